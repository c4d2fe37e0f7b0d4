// The replica simulation of run_model.hpp.
#include "ckptsim/run/run_model.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>

#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include <fmt/format.h>

#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/run/interval_policy.hpp"
#include "ckptsim/run/level_clock.hpp"
#include "ckptsim/run/segment_clock.hpp"

namespace ckptsim {
namespace {

/// A recoverable state: its iteration and the lineage work invested when it was captured.
struct Version {
  std::int64_t iteration = 0;
  SimTime lineage;
};

/// Which holder sets lost too many holders since the latest complete in-memory checkpoint:
/// every holder (replicas, lost_at = 0), or lost_at of them (erasure-coded groups: p + 1).
class MemoryHealth {
 public:
  MemoryHealth(const Placement* placement, const std::vector<std::vector<int>>* stored_on, int lost_at)
      : placement_(placement), stored_on_(stored_on), lost_at_(lost_at) {
    if (placement_ != nullptr) {
      empty_.assign(static_cast<std::size_t>(placement_->machines), 0);
      lost_holders_.assign(static_cast<std::size_t>(placement_->machines), 0);
    }
  }
  /// A new checkpoint completed: every holder has every replica again.
  void refill() {
    for (int j : touched_) empty_[static_cast<std::size_t>(j)] = 0;
    for (int i : damaged_) lost_holders_[static_cast<std::size_t>(i)] = 0;
    touched_.clear();
    damaged_.clear();
    whole_set_lost_ = false;
  }
  /// Machine j's CPU memory is gone (it was replaced).
  void lose(int j) {
    if (placement_ == nullptr || empty_[static_cast<std::size_t>(j)]) return;
    empty_[static_cast<std::size_t>(j)] = 1;
    touched_.push_back(j);
    for (int i : (*stored_on_)[static_cast<std::size_t>(j)]) {
      auto& lost = lost_holders_[static_cast<std::size_t>(i)];
      if (lost == 0) damaged_.push_back(i);
      const int limit = lost_at_ > 0 ? lost_at_ : static_cast<int>(placement_->holders[static_cast<std::size_t>(i)].size());
      if (++lost == limit) whole_set_lost_ = true;
    }
  }
  [[nodiscard]] bool recoverable() const { return !whole_set_lost_; }
  /// Some machine lost its CPU memory since the latest complete checkpoint: a recovery from
  /// memory must fetch that machine's shard from its peers.
  [[nodiscard]] bool some_machine_empty() const { return !touched_.empty(); }

 private:
  const Placement* placement_;
  const std::vector<std::vector<int>>* stored_on_;
  int lost_at_ = 0;
  std::vector<char> empty_;
  std::vector<int> lost_holders_;
  std::vector<int> touched_;
  std::vector<int> damaged_;
  bool whole_set_lost_ = false;
};

constexpr std::int64_t kIterationRunTimeLimit = 100;

template <typename Clock>
class ReplicaSimulation {
 public:
  ReplicaSimulation(const Scenario& s, const StrategyCosts& c, const Placement* placement,
                    const std::vector<std::vector<int>>* stored_on, int lost_at, const std::vector<TraceRecord>* trace,
                    const std::shared_ptr<const std::vector<FailureCause>>& causes, std::uint64_t replica)
      : s_(s),
        causes_(*causes),
        c_(c),
        pattern_(SegmentPattern::from_costs(c)),
        memory_health_(placement, stored_on, lost_at),
        replacement_rng_(make_stream(s.run.seed, replica, RandomComponent::replacement)) {
    failures_ = make_failure_source(FailureSourceContext{s.failures, s.cluster.machines, s.run.seed, replica, trace});
    pending_failure_ = failures_->next();
    standby_free_ = s.cluster.standby_machines;
    result_.causes = causes;
    result_.failures_by_cause.assign(causes_.size(), 0);
    result_.lost_by_cause.assign(causes_.size(), SimTime::zero());
  }

  ReplicaResult run() {
    SimTime t;
    std::int64_t n0 = 0;
    SimTime lineage0;
    // An iteration target that failures keep out of reach (e.g. no checkpoints and a high
    // failure rate) must not run forever: such a replica stops at 100x its failure-free time
    // and is reported as unfinished.
    std::optional<SimTime> end_time = s_.run.duration;
    if (s_.run.iterations) {
      // Saturates rather than overflowing: the cap only has to be far beyond the run.
      std::int64_t cap_ns = 0;
      const SimTime failure_free = Clock(pattern_, 0).time_to_complete(*s_.run.iterations);
      end_time = __builtin_mul_overflow(failure_free.ns(), kIterationRunTimeLimit, &cap_ns)
                     ? SimTime::max()
                     : SimTime::from_ns(cap_ns);
    }
    for (;;) {
      if (c_.adaptive_interval) adapt_persistent_period(t);
      Clock clock(pattern_, n0);
      // When training alone would end the run.
      SimTime target_end = SimTime::max();
      if (end_time) target_end = *end_time;
      if (s_.run.iterations) target_end = std::min(target_end, t + clock.time_to_complete(*s_.run.iterations - n0));
      if (!pending_failure_ || pending_failure_->time >= target_end) {
        const SimTime e = target_end - t;
        const std::int64_t done = clock.completed(e);
        const SimTime stall = clock.stall(e);
        compute_ += e - stall;
        result_.breakdown.checkpoint_stall += stall;
        result_.iterations = n0 + done;
        // The compute of a partial final iteration counts as training (progress is continuous):
        // the segment's compute minus that of its `done` whole iterations (T each).
        partial_training_ = (e - stall) - c_.iteration_time * done;
        result_.wall_time = target_end;
        result_.finished = !s_.run.iterations || result_.iterations >= *s_.run.iterations;
        break;
      }
      // Train until the failure.
      const FailureEvent f = *pending_failure_;
      const SimTime e = f.time - t;
      const SimTime stall = clock.stall(e);
      compute_ += e - stall;
      result_.breakdown.checkpoint_stall += stall;
      note_completed_checkpoints(clock, e, lineage0);
      const SimTime lineage_at_failure = lineage0 + e;
      // Recovery episode.
      const auto outcome = recover(f, end_time);
      const SimTime rolled_back = lineage_at_failure - outcome.target.lineage;
      result_.wasted_time += rolled_back + outcome.retrieval_spent;
      cause_lost(f.cause) += rolled_back;
      result_.lost_by_tier[static_cast<std::size_t>(outcome.tier)] += rolled_back + outcome.downtime;
      if (outcome.run_ended) {
        result_.iterations = outcome.target.iteration;
        result_.wall_time = *end_time;
        result_.finished = !s_.run.iterations;
        break;
      }
      t = outcome.resume_at;
      n0 = outcome.target.iteration;
      lineage0 = outcome.target.lineage;
      if (s_.run.iterations && n0 >= *s_.run.iterations) {
        result_.iterations = n0;
        result_.wall_time = t;
        break;
      }
    }
    result_.final_persistent_every = c_.tier == CheckpointTier::storage ? pattern_.every : pattern_.persistent_every;
    auto& b = result_.breakdown;
    b.training = c_.iteration_time * result_.iterations + partial_training_;
    b.lost_progress = compute_ - b.training;
    return result_;
  }

 private:
  struct Outcome {
    Version target;
    SimTime retrieval_spent;
    SimTime resume_at;
    bool run_ended = false;
    RecoveryTier tier = RecoveryTier::scratch;
    SimTime downtime;  ///< from the first failure until the restart (or the run's end)
  };

  SimTime& cause_lost(int cause) { return result_.lost_by_cause[static_cast<std::size_t>(cause)]; }

  /// The adaptive policy (run/interval_policy.hpp): Daly's period for the failures seen by
  /// wall time t. remote-periodic: every failure, its checkpoint stall, in iterations;
  /// multi-level: the failures no memory level could absorb, the level-3 cost above level 2,
  /// in multiples of the level-2 period.
  void adapt_persistent_period(SimTime t) {
    if (c_.tier == CheckpointTier::storage) {
      pattern_.every = adaptive_period_iterations(c_.stall, c_.iteration_time, 1, result_.failures(), t,
                                                  c_.adaptive_prior_mtbf);
    } else if (c_.tier == CheckpointTier::multi_level && pattern_.persistent_every > 0) {
      pattern_.persistent_every =
          adaptive_period_iterations(c_.persistent_stall - c_.partner_stall, c_.iteration_time, c_.partner_every_iterations,
                                     needed_persistent_, t, c_.adaptive_prior_mtbf);
    }
  }

  void note_completed_checkpoints(const Clock& clock, SimTime e, SimTime lineage0) {
    if (c_.tier == CheckpointTier::multi_level) {
      note_completed_levels(clock, e, lineage0);
    } else if (c_.tier == CheckpointTier::memory) {
      if (auto ck = clock.latest_checkpoint(e)) {
        memory_ = Version{ck->version, lineage0 + ck->captured_at};
        memory_health_.refill();
      }
      if (auto ck = clock.latest_persistent(e)) persistent_ = Version{ck->version, lineage0 + ck->captured_at};
    } else if (c_.tier == CheckpointTier::storage) {
      if (auto ck = clock.latest_checkpoint(e)) persistent_ = Version{ck->version, lineage0 + ck->captured_at};
    }
  }

  /// Multi-level: the latest checkpoint of each level that completed in this segment. A
  /// level-1 (or higher) completion restores every machine's local copy; a level-2 (or higher)
  /// completion refills the partner copies.
  void note_completed_levels(const Clock& clock, SimTime e, SimTime lineage0) {
    if constexpr (requires { clock.latest_at_level(e, CheckpointLevel::partner); }) {
      if (auto ck = clock.latest_at_level(e, CheckpointLevel::local)) {
        memory_ = Version{ck->version, lineage0 + ck->captured_at};
        local_lost_ = false;
      }
      if (auto ck = clock.latest_at_level(e, CheckpointLevel::partner)) {
        partner_ = Version{ck->version, lineage0 + ck->captured_at};
        memory_health_.refill();
      }
      if (auto ck = clock.latest_at_level(e, CheckpointLevel::persistent))
        persistent_ = Version{ck->version, lineage0 + ck->captured_at};
    }
  }

  SimTime draw_replacement_delay() {
    const auto& r = s_.failures.replacement;
    switch (r.distribution) {
      case ReplacementDistribution::fixed: return r.fixed;
      case ReplacementDistribution::uniform: {
        // Equal bounds are a fixed delay (boost's distribution requires low < high).
        if (r.low >= r.high) return r.low;
        boost::random::uniform_real_distribution<double> u(r.low.seconds(), r.high.seconds());
        return SimTime::from_seconds(u(replacement_rng_));
      }
      case ReplacementDistribution::lognormal: {
        // boost's lognormal takes the mean and sd of the underlying normal: mu = ln(median).
        boost::random::lognormal_distribution<double> d(std::log(r.median.seconds()), r.sigma);
        // A sample beyond the clock (heavy tail, huge sigma) saturates: the machine never returns.
        return saturating_seconds(d(replacement_rng_));
      }
    }
    throw std::logic_error("replacement distribution outside its enum");
  }

  /// Counts the failure and, for hardware, empties its machines and requests their replacements.
  void apply_failure(const FailureEvent& f) {
    pending_failure_ = failures_->next();
    ++result_.failures_by_cause[static_cast<std::size_t>(f.cause)];
    episode_restart_ = std::max(episode_restart_, causes_[static_cast<std::size_t>(f.cause)].restart);
    if (f.type == FailureType::software) {
      ++result_.software_failures;
      return;
    }
    ++result_.hardware_failures;
    const SimTime detected = f.time + causes_[static_cast<std::size_t>(f.cause)].detection;
    for (int j = f.machine; j < f.machine + f.machines; ++j) replace_machine(j, f.time, detected);
  }

  /// Machine j's CPU memory is gone; a standby takes its place at detection if one is free,
  /// else its replacement arrives one replacement delay after detection.
  void replace_machine(int j, SimTime failed_at, SimTime detected) {
    ++result_.machines_replaced;
    memory_health_.lose(j);
    local_lost_ = true;
    // Standby machines come back to the pool once their replacement arrives.
    std::erase_if(standby_returns_, [&](SimTime r) {
      if (r <= failed_at) {
        ++standby_free_;
        return true;
      }
      return false;
    });
    const SimTime delay = draw_replacement_delay();
    if (standby_free_ > 0) {
      --standby_free_;
      standby_returns_.push_back(detected + delay);
      replacements_ready_ = std::max(replacements_ready_, detected);
    } else {
      replacements_ready_ = std::max(replacements_ready_, detected + delay);
    }
  }

  /// A recovery from memory is `peer` when any machine's CPU memory is empty since the latest
  /// complete checkpoint: replaced in this episode, or in an earlier one (it got its own shard
  /// back from its peers, but still holds none of the shards it stores for others, and its
  /// own shard is only on its peers until the next checkpoint completes).
  std::pair<Version, RecoveryTier> choose_target() const {
    if (c_.tier == CheckpointTier::multi_level) return choose_level();
    if (c_.tier == CheckpointTier::memory && memory_ && memory_health_.recoverable())
      return {*memory_, memory_health_.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
    if (persistent_) return {*persistent_, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  /// Multi-level: the cheapest level that survived. Level 1 (`local`) unless some machine lost
  /// its CPU memory since the latest level-1 completion; then level 2 (`peer`) unless every
  /// holder of some machine's partner copies was replaced since the latest level-2 completion;
  /// then level 3 (`storage`); else the initial state. The levels nest (a level-2 checkpoint is
  /// a level-1 one too), so the cheapest surviving level is also the newest surviving state.
  std::pair<Version, RecoveryTier> choose_level() const {
    if (memory_ && !local_lost_) return {*memory_, RecoveryTier::local};
    if (partner_ && memory_health_.recoverable()) return {*partner_, RecoveryTier::peer};
    if (persistent_) return {*persistent_, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  SimTime retrieval_time(RecoveryTier tier) const {
    switch (tier) {
      case RecoveryTier::local: return c_.retrieval_local;
      case RecoveryTier::peer: return c_.retrieval_peer;
      case RecoveryTier::storage: return c_.retrieval_storage;
      case RecoveryTier::scratch: return SimTime::zero();
    }
    return SimTime::zero();
  }

  /// Adds the part of [from, until) that falls into [a, b) to `bucket`.
  static void account(SimTime& bucket, SimTime from, SimTime until, SimTime a, SimTime b) {
    const SimTime lo = std::max(from, a);
    const SimTime hi = std::min(until, b);
    if (hi > lo) bucket += hi - lo;
  }

  Outcome recover(const FailureEvent& first, const std::optional<SimTime>& end_time) {
    replacements_ready_ = SimTime::zero();
    episode_restart_ = SimTime::zero();
    apply_failure(first);
    SimTime start = first.time;
    int cause = first.cause;
    SimTime retrieval_spent;
    auto& b = result_.breakdown;
    for (;;) {
      const auto [target, tier] = choose_target();
      const SimTime detected = start + causes_[static_cast<std::size_t>(cause)].detection;
      const SimTime replaced = std::max(detected, replacements_ready_);
      const SimTime retrieved = replaced + retrieval_time(tier);
      const SimTime restarted = retrieved + episode_restart_;
      SimTime stop = restarted;
      bool interrupted = false;
      if (pending_failure_ && pending_failure_->time < stop) {
        stop = pending_failure_->time;
        interrupted = true;
      }
      const bool ends_run = end_time && *end_time < stop;
      if (ends_run) stop = *end_time;
      account(b.detection, start, stop, start, detected);
      account(b.replacement_wait, start, stop, detected, replaced);
      SimTime r;
      account(r, start, stop, replaced, retrieved);
      b.retrieval += r;
      retrieval_spent += r;
      account(b.restart, start, stop, retrieved, restarted);
      cause_lost(cause) += stop - start;
      if (ends_run) return Outcome{target, retrieval_spent, stop, true, tier, stop - first.time};
      if (interrupted) {
        const FailureEvent next = *pending_failure_;
        apply_failure(next);
        start = next.time;
        cause = next.cause;
        continue;
      }
      ++result_.recoveries[static_cast<std::size_t>(tier)];
      if (tier == RecoveryTier::storage || tier == RecoveryTier::scratch) {
        memory_.reset();
        partner_.reset();
        ++needed_persistent_;
      }
      // Multi-level after a peer recovery: the replaced machines got their shards from their
      // partners into GPU memory but hold no level-1 copy of their own until the next level-1
      // checkpoint completes (note_completed_levels), so local_lost_ stays set and a failure
      // before then recovers from a peer again (docs/models.md; GEMINI's rule for memory).
      // Recovering to an older state discards newer persistent/in-memory versions' relevance:
      // persistent_ stays (it is still in storage); memory_ is kept only after a memory recovery.
      return Outcome{target, retrieval_spent, restarted, false, tier, restarted - first.time};
    }
  }

  const Scenario& s_;
  const std::vector<FailureCause>& causes_;
  const StrategyCosts& c_;
  SegmentPattern pattern_;
  MemoryHealth memory_health_;
  RandomEngine replacement_rng_;
  std::unique_ptr<FailureSource> failures_;
  std::optional<FailureEvent> pending_failure_;
  int standby_free_ = 0;
  std::vector<SimTime> standby_returns_;
  SimTime replacements_ready_;
  SimTime episode_restart_;
  std::optional<Version> memory_;     ///< memory tier; multi-level: level 1
  std::optional<Version> partner_;    ///< multi-level: level 2
  std::optional<Version> persistent_;
  bool local_lost_ = false;           ///< multi-level: a machine lost its memory since level 1 completed
  std::int64_t needed_persistent_ = 0;  ///< recoveries from storage or scratch
  SimTime compute_;
  SimTime partial_training_;
  ReplicaResult result_;
};

}  // namespace

RunModel::RunModel(const Scenario& scenario, StrategyCosts costs) : scenario_(scenario), costs_(std::move(costs)) {
  if (costs_.erasure_coded()) {
    // A coding group is lost when p + 1 of its g members are replaced. Its members' holder sets
    // are all the group, so one counter per group suffices: machine j counts only for its
    // group's first member (one update per replaced machine, as cheap as GEMINI's pairs).
    placement_ = erasure_groups(costs_.placement, scenario_.cluster.machines, ErasureCode{costs_.group_size, costs_.parity});
    lost_at_ = costs_.parity + 1;
    stored_on_.assign(placement_.holders.size(), {});
    for (std::size_t j = 0; j < placement_.holders.size(); ++j) stored_on_[j] = {placement_.holders[j].front()};
    has_placement_ = true;
  } else if (costs_.tier == CheckpointTier::memory || costs_.tier == CheckpointTier::multi_level) {
    placement_ = make_placement(costs_.placement, scenario_.cluster.machines, costs_.replicas, scenario_.run.seed);
    stored_on_ = placement_.stored_on();
    has_placement_ = true;
  }
  if (scenario_.failures.process == FailureProcessKind::trace)
    trace_ = load_failure_trace(scenario_.failures.trace_file, scenario_.cluster.machines);
  check_trace_causes();
  causes_ = std::make_shared<const std::vector<FailureCause>>(failure_causes(scenario_.failures));
  check_work_limit();
}

void RunModel::check_trace_causes() const {
  const auto& table = scenario_.failures.causes.causes;
  for (const auto& r : trace_) {
    if (trace_cause_index(r, table) >= 0) continue;
    throw ModelError("/failures/causes",
                     fmt::format("the trace {} has a failure at {} with cause \"{}\", which the cause table does not "
                                 "name (with a cause table every trace line needs a cause column naming a row)",
                                 scenario_.failures.trace_file, format_duration(r.time), r.cause));
  }
}

void RunModel::check_work_limit() const {
  const SimTime horizon = scenario_.run.duration
                              ? *scenario_.run.duration
                              : SimTime::from_seconds(std::min(9.2e9, costs_.iteration_time.seconds() *
                                                                          static_cast<double>(*scenario_.run.iterations) *
                                                                          kIterationRunTimeLimit));
  const double events = expected_failure_events(scenario_.failures, scenario_.cluster.machines, horizon);
  if (events > kMaxFailureEventsPerReplica)
    throw LimitError(fmt::format("the failure rates ask for ~{:.3g} failure events per replica over {}, above the "
                                 "limit of {:.0g}; lower /failures/rate, the domain rates or the run's length",
                                 events, format_duration(horizon), kMaxFailureEventsPerReplica));
}

ReplicaResult RunModel::simulate(std::uint64_t replica, AdvanceMode mode) const {
  const Placement* p = has_placement_ ? &placement_ : nullptr;
  if (costs_.tier == CheckpointTier::multi_level) {
    if (mode == AdvanceMode::exact)
      return ReplicaSimulation<SteppedLevelClock>(scenario_, costs_, p, &stored_on_, lost_at_, &trace_, causes_, replica).run();
    return ReplicaSimulation<LevelClock>(scenario_, costs_, p, &stored_on_, lost_at_, &trace_, causes_, replica).run();
  }
  if (mode == AdvanceMode::exact)
    return ReplicaSimulation<SteppedClock>(scenario_, costs_, p, &stored_on_, lost_at_, &trace_, causes_, replica).run();
  return ReplicaSimulation<SegmentClock>(scenario_, costs_, p, &stored_on_, lost_at_, &trace_, causes_, replica).run();
}

}  // namespace ckptsim
