// The replica simulation of run_model.hpp.
#include "ckptsim/run/run_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <stdexcept>

#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include <fmt/format.h>

#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/failure/elastic.hpp"
#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/migration.hpp"
#include "ckptsim/failure/restart_tiers.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/run/group_outages.hpp"
#include "ckptsim/run/interval_policy.hpp"
#include "ckptsim/run/level_clock.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/segment_clock.hpp"

namespace ckptsim {
namespace {

/// A recoverable state: its iteration and the lineage work invested when it was captured.
struct Version {
  std::int64_t iteration = 0;
  SimTime lineage;
};

/// Which holder sets lost too many holders since the latest complete in-memory checkpoint:
/// every holder (replicas), or p + 1 of them (erasure-coded groups; RunModel::HolderIndex).
class MemoryHealth {
 public:
  using HolderIndex = RunModel::HolderIndex;
  explicit MemoryHealth(const HolderIndex* index) : index_(index) {
    if (index_ != nullptr) {
      empty_.assign(index_->offsets.size() - 1, 0);
      lost_holders_.assign(index_->loss_limit.size(), 0);
    }
  }
  /// A new checkpoint completed: every holder has every replica again. (The early return is
  /// the common case: the run model asks at every failure, and most find no machine replaced.)
  void refill() {
    if (touched_.empty()) return;  // lose() marks a set damaged only with its machine touched
    for (int j : touched_) empty_[static_cast<std::size_t>(j)] = 0;
    for (int i : damaged_) lost_holders_[static_cast<std::size_t>(i)] = 0;
    touched_.clear();
    damaged_.clear();
    whole_set_lost_ = false;
  }
  /// Machine j's CPU memory is gone (it was replaced).
  void lose(int j) {
    if (index_ == nullptr || empty_[static_cast<std::size_t>(j)]) return;
    empty_[static_cast<std::size_t>(j)] = 1;
    touched_.push_back(j);
    const auto first = static_cast<std::size_t>(index_->offsets[static_cast<std::size_t>(j)]);
    const auto last = static_cast<std::size_t>(index_->offsets[static_cast<std::size_t>(j) + 1]);
    for (std::size_t k = first; k < last; ++k) {
      const auto i = static_cast<std::size_t>(index_->sets[k]);
      auto& lost = lost_holders_[i];
      if (lost == 0) damaged_.push_back(static_cast<int>(i));
      if (++lost == index_->loss_limit[i]) whole_set_lost_ = true;
    }
  }
  [[nodiscard]] bool recoverable() const { return !whole_set_lost_; }
  /// Some machine lost its CPU memory since the latest complete checkpoint: a recovery from
  /// memory must fetch that machine's shard from its peers.
  [[nodiscard]] bool some_machine_empty() const { return !touched_.empty(); }

 private:
  const HolderIndex* index_;
  std::vector<char> empty_;
  std::vector<int> lost_holders_;
  std::vector<int> touched_;
  std::vector<int> damaged_;
  bool whole_set_lost_ = false;
};

template <typename Clock>
class ReplicaSimulation {
 public:
  ReplicaSimulation(const Scenario& s, const StrategyCosts& c, const RunModel::HolderIndex* holders,
                    const std::vector<TraceRecord>* trace,
                    const std::shared_ptr<const std::vector<FailureCause>>& causes, SimTime pause,
                    const ElasticPlan* elastic, std::uint64_t replica)
      : s_(s),
        causes_(*causes),
        c_(c),
        pattern_(SegmentPattern::from_costs(c)),
        memory_health_(holders),
        replacement_rng_(make_stream(s.run.seed, replica, RandomComponent::replacement)),
        slow_(s.failures, s.cluster.machines, s.run.seed, replica),
        elastic_(elastic),
        tiers_(s.failures.restart_tiers.enabled ? &s.failures.restart_tiers : nullptr),
        in_job_hang_detection_(hang_detection(s.failures.hangs, c.iteration_time)),
        hang_detection_(tiers_ != nullptr ? tiered_hang_detection(*tiers_, in_job_hang_detection_)
                                          : in_job_hang_detection_) {
    failures_ = with_fault_model(
        make_failure_source(FailureSourceContext{s.failures, s.cluster.machines, s.run.seed, replica, trace}), s.failures,
        s.cluster.machines, s.run.seed, replica);
    if (silent_corruption_modelled(s.failures)) {
      onsets_.emplace(s.failures.silent_corruption, s.cluster.machines, s.run.seed, replica);
      next_onset_ = onsets_->next().first;
    }
    pull_failure();
    standby_free_ = s.cluster.standby_machines;
    if (migration_modelled(s.failures)) {
      migration_pause_ = pause;
      result_.live_migration = true;
    }
    if (elastic_ != nullptr) {
      result_.elastic = true;
      unit_out_.assign(elastic_->unit_machines.size(), 0);
    }
    if (c.tier == CheckpointTier::just_in_time) {
      result_.just_in_time = true;
      jit_positions_ = std::max(1, s.cluster.machines / std::max(1, c.replica_groups));
      jit_failed_.assign(static_cast<std::size_t>(jit_positions_), 0);
      jit_holder_lost_.assign(static_cast<std::size_t>(s.cluster.machines), 0);
    }
    result_.restart_tiers = tiers_ != nullptr;
    result_.causes = causes;
    result_.failures_by_cause.assign(causes_.size(), 0);
    result_.lost_by_cause.assign(causes_.size(), SimTime::zero());
  }

  ReplicaResult run() {
    if (c_.tier == CheckpointTier::per_step) return run_per_step();
    SimTime t;
    std::int64_t n0 = 0;
    SimTime lineage0;
    // An iteration target that failures keep out of reach (e.g. no checkpoints and a high
    // failure rate) must not run forever: such a replica stops at 100x its failure-free time
    // (or 100 years) and is reported as unfinished.
    // run.duration, or for run.iterations 100x the failure-free time (at most 100 years): the
    // end of the run_horizon.hpp check, so every instant of the replica fits the clock.
    const SimTime end_time = run_end_bound(s_, Clock(pattern_, 0).time_to_complete(s_.run.iterations.value_or(0)));
    for (;;) {
      if (c_.adaptive_interval) adapt_persistent_period(t, end_time);
      Clock clock(pattern_, n0);
      // When training alone would end the run.
      SimTime target_end = end_time;
      // Healthy work to the iteration target, when it is reached first (stragglers stretch it
      // into more wall time: fault_model.hpp).
      std::optional<SimTime> target_work;
      // Asked first as completed(), which stays in the clock: the time to complete the
      // remaining iterations may not (an adaptive persistent period can put a long stall at
      // every block once the run has started; fuzz/fuzz_time_edges finding), and then the
      // run's end comes first anyway. Work never exceeds wall time, so a target out of reach
      // at full speed stays out of reach.
      if (s_.run.iterations && clock.completed(end_time - t) >= *s_.run.iterations - n0) {
        const SimTime w = clock.time_to_complete(*s_.run.iterations - n0);
        const SimTime wall = job_wall_after(t, w);
        if (wall <= end_time) {
          target_end = wall;
          target_work = w;
        }
      }
      skip_undone_detections(clock, t, lineage0);
      if (machines_out_ > 0) {
        const Resize g = grow(clock, t, n0, lineage0, end_time, target_end);
        if (g == Resize::run_ended) break;
        if (g == Resize::done) continue;
      }
      if (!pending_failure_ || pending_failure_->time >= target_end) {
        const SimTime e = target_work ? *target_work : job_work(t, target_end);
        register_onsets(clock, t, target_end, lineage0);
        result_.breakdown.degraded += (target_end - t) - e;
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
      if (pending_failure_->predicted) {
        const Migration m = migrate(clock, *pending_failure_, t, n0, lineage0, end_time);
        if (m == Migration::run_ended) break;
        if (m == Migration::done) continue;
      }
      // Train until the failure.
      const FailureEvent f = *pending_failure_;
      const SimTime e = job_work(t, f.time);
      result_.breakdown.degraded += (f.time - t) - e;
      const SimTime stall = clock.stall(e);
      compute_ += e - stall;
      result_.breakdown.checkpoint_stall += stall;
      register_onsets(clock, t, f.time, lineage0);
      note_completed_checkpoints(clock, e, lineage0);
      const SimTime lineage_at_failure = lineage0 + e;
      // Just-in-time: the state at the start of the interrupted minibatch (the last whole
      // iteration), which the surviving replicas can save.
      if (c_.tier == CheckpointTier::just_in_time) {
        const std::int64_t done = clock.completed(e);
        jit_ = Version{n0 + done, lineage0 + clock.time_to_complete(done)};
      }
      // Recovery episode.
      const auto outcome = recover(f, end_time);
      const SimTime rolled_back = lineage_at_failure - outcome.target.lineage;
      result_.wasted_time += rolled_back + outcome.retrieval_spent;
      cause_lost(f.cause) += rolled_back;
      result_.lost_by_tier[static_cast<std::size_t>(outcome.tier)] += rolled_back + outcome.downtime;
      if (outcome.run_ended) {
        result_.iterations = outcome.target.iteration;
        result_.wall_time = end_time;
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
    result_.final_persistent_every = c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time
                                         ? pattern_.every
                                         : pattern_.persistent_every;
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

  /// Per-step fault tolerance (TorchFT; group_outages.hpp, docs/models.md): the job never
  /// stops for a failure. A failure of machine j takes its replica group (j / (N / G)) out of the
  /// quorum; the step in flight is discarded by every group (its work is lost progress) and
  /// every group waits the failure's detection (the collective timeout) before the next quorum;
  /// then the others train on while the group waits for its replacement (hardware: a standby at
  /// once if free), restarts (warm-up R) and heals (copies the state from a live peer), then
  /// rejoins. No checkpoint is needed while one group is alive.
  ReplicaResult run_per_step() {
    const int groups = c_.replica_groups;
    const int per_group = std::max(1, s_.cluster.machines / groups);
    GroupOutages out(groups, c_.min_groups);
    // A step takes T + F (F: torchft's own cost per step); the loop counts work in steps of that
    // length and splits it into training and fault-tolerance time at the end.
    const SimTime t_iter = checked_add(c_.iteration_time, c_.ft_step, "/strategy/ft_commit_latency", "a step with its fault-tolerance cost");
    const SimTime end_time = run_end_bound(s_, t_iter * s_.run.iterations.value_or(0));
    const std::int64_t target = s_.run.iterations.value_or(0);
    SimTime t;
    SimTime work;  // healthy-equivalent work kept so far (progress = work / T)
    auto& b = result_.breakdown;
    const auto work_over = [&](SimTime from, SimTime to) { return out.work(from, to, slow_.windows(from, to), slow_.speed()); };
    for (;;) {
      SimTime stop = end_time;
      const bool failure = pending_failure_ && pending_failure_->time < end_time;
      // A failure during the wait of the previous one is handled when the wait ends.
      if (failure) stop = std::max(t, pending_failure_->time);
      SimTime w = work_over(t, stop);
      bool reached = false;
      if (s_.run.iterations && (work + w).ns() / t_iter.ns() >= target) {
        // The wall time at which the target's work is done: the first instant with enough work
        // (work is monotone in time: bisection in whole ns).
        const SimTime need = t_iter * target - work;
        std::int64_t lo = t.ns(), hi = stop.ns();
        while (lo < hi) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          if (work_over(t, SimTime::from_ns(mid)) >= need) hi = mid; else lo = mid + 1;
        }
        stop = SimTime::from_ns(lo);
        w = need;
        reached = true;
      }
      b.degraded += (stop - t) - w;
      compute_ += w;
      work += w;
      if (reached || !failure) {
        result_.iterations = work.ns() / t_iter.ns();
        result_.wall_time = stop;
        result_.finished = !s_.run.iterations || result_.iterations >= target;
        partial_training_ = work - t_iter * result_.iterations;
        break;
      }
      const FailureEvent f = *pending_failure_;
      if (f.predicted && take_standby(stop)) {
        // Live migration (failure/migration.hpp): the machine's group leaves the quorum at the
        // step boundary and rejoins on the standby P later; no step is discarded, nobody waits.
        ++result_.migrations;
        const int g = std::min(out.groups() - 1, f.machine / per_group);
        out.take_out(g, stop, saturating_add(stop, migration_pause_));
        pull_failure();
        t = stop;
        continue;
      }
      apply_per_step_failure(f, out, per_group);
      // The step in flight is discarded: progress falls back to the last whole iteration.
      const SimTime kept = t_iter * (work.ns() / t_iter.ns());
      cause_lost(f.cause) += work - kept;
      result_.wasted_time += work - kept;
      work = kept;
      // Every group waits (no work, ends the run if it comes first): until the failed step's
      // collective errors out (the failure's detection) or times out, and the lighthouse has
      // dropped the failed group (heartbeat timeout), whichever is later.
      const SimTime resumed = std::max(stop, std::min(end_time, saturating_add(f.time, per_step_wait(f))));
      b.detection += resumed - stop;
      cause_lost(f.cause) += resumed - stop;
      t = resumed;
      if (resumed == end_time) {
        result_.iterations = work.ns() / t_iter.ns();
        result_.wall_time = end_time;
        result_.finished = !s_.run.iterations;
        break;
      }
    }
    // Of the steps kept, F / (T + F) is fault-tolerance time (the partial step's share too).
    const SimTime kept_steps = t_iter * result_.iterations + partial_training_;
    const SimTime ft_time = c_.ft_step > SimTime::zero()
                                ? c_.ft_step * result_.iterations +
                                      SimTime::from_ns(static_cast<std::int64_t>(
                                          static_cast<long double>(partial_training_.ns()) * c_.ft_step.ns() / t_iter.ns()))
                                : SimTime::zero();
    b.checkpoint_stall = ft_time;
    b.training = kept_steps - ft_time;
    b.lost_progress = compute_ - kept_steps;
    return result_;
  }

  /// Per-step fault tolerance: how long after failure f every group waits before the next
  /// quorum, max(heartbeat_timeout, min(detection, step_timeout)) (run/strategies/torchft.cpp),
  /// plus the cross-group communicator's two reconfigurations (the group leaves and rejoins).
  SimTime per_step_wait(const FailureEvent& f) const {
    return saturating_add(std::max(c_.heartbeat_timeout, std::min(detection_of(f), c_.step_timeout)), c_.reconfigure * 2);
  }

  /// A failure under per-step fault tolerance: its groups leave the quorum until healed.
  void apply_per_step_failure(const FailureEvent& f, GroupOutages& out, int per_group) {
    pull_failure();
    ++result_.episodes;
    ++result_.failures_by_cause[static_cast<std::size_t>(f.cause)];
    const SimTime detected = saturating_add(f.time, per_step_wait(f));
    SimTime ready = detected;
    bool spare = true;
    if (f.type == FailureType::hardware) {
      ++result_.hardware_failures;
      replacements_ready_ = SimTime::zero();
      for (int j = f.machine; j < f.machine + f.machines; ++j) spare = replace_machine(j, f.time, detected) && spare;
      ready = std::max(ready, replacements_ready_);
    } else {
      ++result_.software_failures;
    }
    const auto [tier, restart] = restart_of(f, spare);
    if (tiers_ != nullptr) ++result_.restarts_by_tier[static_cast<std::size_t>(tier)];
    const SimTime rejoin = saturating_add(saturating_add(ready, restart), c_.heal);
    const int first = std::min(out.groups() - 1, f.machine / per_group);
    const int last = std::min(out.groups() - 1, (f.machine + f.machines - 1) / per_group);
    for (int g = first; g <= last; ++g) out.take_out(g, f.time, rejoin);
    ++result_.recoveries[static_cast<std::size_t>(RecoveryTier::peer)];
  }

  SimTime& cause_lost(int cause) { return result_.lost_by_cause[static_cast<std::size_t>(cause)]; }

  /// The adaptive policy (run/interval_policy.hpp): Daly's period for the failures seen by
  /// wall time t. remote-periodic: every failure, its checkpoint stall, in iterations;
  /// multi-level: the failures no memory level could absorb, the level-3 cost above level 2,
  /// in multiples of the level-2 period.
  /// The period is capped at the run's end `end` (a longer one never checkpoints within it).
  void adapt_persistent_period(SimTime t, SimTime end) {
    if (c_.tier == CheckpointTier::storage) {
      pattern_.every = adaptive_period_iterations(c_.stall, c_.iteration_time, 1, result_.failures(), t,
                                                  c_.adaptive_prior_mtbf, end);
    } else if (c_.tier == CheckpointTier::multi_level && pattern_.persistent_every > 0) {
      pattern_.persistent_every =
          adaptive_period_iterations(c_.persistent_stall - c_.partner_stall, c_.iteration_time, c_.partner_every_iterations,
                                     needed_persistent_, t, c_.adaptive_prior_mtbf, end);
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
    } else if (c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time) {
      if (auto ck = clock.latest_checkpoint(e)) persistent_ = Version{ck->version, lineage0 + ck->captured_at};
    }
  }

  /// Multi-level: the latest checkpoint of each level that completed in this segment. A
  /// level-1 (or higher) completion restores every machine's local copy; a level-2 (or higher)
  /// completion refills the partner copies.
  void note_completed_levels(const Clock& clock, SimTime e, SimTime lineage0) {
    if constexpr (requires { clock.latest_by_level(e); }) {
      const LatestByLevel latest = clock.latest_by_level(e);
      if (const auto& ck = latest[0]) {
        memory_ = Version{ck->version, lineage0 + ck->captured_at};
        local_lost_ = false;
      }
      if (const auto& ck = latest[1]) {
        partner_ = Version{ck->version, lineage0 + ck->captured_at};
        memory_health_.refill();
      }
      if (const auto& ck = latest[2]) persistent_ = Version{ck->version, lineage0 + ck->captured_at};
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

  /// The next failure of the source; one that falls in a planned stop's pause is taken at its end.
  void pull_failure() {
    pending_failure_ = failures_->next();
    if (pending_failure_ && pending_failure_->time < not_before_) pending_failure_->time = not_before_;
  }

  enum class Migration { not_possible, done, run_ended };

  /// Live migration (failure/migration.hpp) of the predicted failure f, which the segment from t
  /// (state n0, lineage0) reaches: the segment ends at the last iteration boundary before f, the
  /// job pauses P and resumes there (t, n0, lineage0 moved). Nothing changes without a free standby.
  template <typename C>
  Migration migrate(const C& clock, const FailureEvent& f, SimTime& t, std::int64_t& n0, SimTime& lineage0,
                    SimTime end_time) {
    const std::int64_t done = clock.completed(job_work(t, f.time));
    const SimTime e = clock.time_to_complete(done);
    const SimTime boundary = std::min(f.time, job_wall_after(t, e));
    if (!take_standby(boundary)) return Migration::not_possible;
    stop_at_boundary(clock, t, boundary, e, lineage0);
    const SimTime resume = std::min(end_time, saturating_add(boundary, migration_pause_));
    result_.breakdown.migration += resume - boundary;
    ++result_.migrations;
    pull_failure();  // the predicted failure was averted
    return resume_after_pause(resume, done, e, t, n0, lineage0, end_time) ? Migration::done : Migration::run_ended;
  }

  /// A planned stop (a migration, an elastic grow): the segment from t ends at `boundary`, an
  /// iteration boundary reached after work e; its training, stalls and checkpoints are counted.
  template <typename C>
  void stop_at_boundary(const C& clock, SimTime t, SimTime boundary, SimTime e, SimTime lineage0) {
    result_.breakdown.degraded += (boundary - t) - e;
    const SimTime stall = clock.stall(e);
    compute_ += e - stall;
    result_.breakdown.checkpoint_stall += stall;
    register_onsets(clock, t, boundary, lineage0);
    note_completed_checkpoints(clock, e, lineage0);
  }

  /// After a planned stop's pause until `resume`: failures that fall in the pause are taken at its
  /// end, and training resumes from the boundary (`done` more iterations, work e) with nothing
  /// rolled back. False when the pause reaches the run's end (the result is then final).
  bool resume_after_pause(SimTime resume, std::int64_t done, SimTime e, SimTime& t, std::int64_t& n0, SimTime& lineage0,
                          SimTime end_time) {
    register_downtime_onsets(resume);
    not_before_ = std::max(not_before_, resume);
    if (pending_failure_ && pending_failure_->time < resume) pending_failure_->time = resume;
    n0 += done;
    lineage0 = lineage0 + e;
    t = resume;
    if (resume < end_time) return true;
    result_.iterations = n0;
    result_.wall_time = end_time;
    result_.finished = !s_.run.iterations;
    return false;
  }

  /// Healthy-equivalent work over [from, to): stragglers' (fault_model.hpp), times (N - out) / N
  /// while an elastic job is smaller (failure/elastic.hpp), rounded down to whole ns.
  SimTime job_work(SimTime from, SimTime to) {
    const SimTime w = slow_.work(from, to);
    if (machines_out_ == 0) return w;
    const long double n = s_.cluster.machines;
    return SimTime::from_ns(static_cast<std::int64_t>(static_cast<long double>(w.ns()) * (n - machines_out_) / n));
  }

  /// The wall time at which `w` of healthy-equivalent work has been done from `from` (saturating).
  SimTime job_wall_after(SimTime from, SimTime w) {
    if (machines_out_ == 0) return slow_.wall_after_work(from, w);
    const long double n = s_.cluster.machines;
    const long double need = std::ceil(static_cast<long double>(w.ns()) * n / (n - machines_out_));
    return slow_.wall_after_work(from, need < 9.2e18L ? SimTime::from_ns(static_cast<std::int64_t>(need)) : SimTime::max());
  }

  enum class Resize { not_yet, done, run_ended };

  /// Elastic restart (failure/elastic.hpp): once every replacement of the units out has arrived,
  /// the segment from t ends at the first iteration boundary at or after that; the job reshards
  /// back to N machines and restarts (t, n0, lineage0 moved), nothing rolled back. Not yet when
  /// a failure or the segment's end `target_end` comes first.
  template <typename C>
  Resize grow(const C& clock, SimTime& t, std::int64_t& n0, SimTime& lineage0, SimTime end_time, SimTime target_end) {
    if (grow_at_ >= target_end || (pending_failure_ && pending_failure_->time <= grow_at_)) return Resize::not_yet;
    std::int64_t done = 0;
    SimTime e;
    if (grow_at_ > t) {
      const SimTime by_arrival = job_work(t, grow_at_);
      done = clock.completed(by_arrival);
      e = clock.time_to_complete(done);
      if (e < by_arrival) e = clock.time_to_complete(++done);
    }
    const SimTime boundary = job_wall_after(t, e);
    if (boundary >= target_end || (pending_failure_ && pending_failure_->time < boundary)) return Resize::not_yet;
    stop_at_boundary(clock, t, boundary, e, lineage0);
    // The pause: the reshard back to N machines (retrieval), then the restart.
    const SimTime resharded = std::min(end_time, saturating_add(boundary, elastic_->grow_reshard));
    const SimTime resume = std::min(end_time, saturating_add(resharded, grow_restart_));
    result_.breakdown.retrieval += resharded - boundary;
    result_.breakdown.restart += resume - resharded;
    cause_lost(shrink_cause_) += resume - boundary;
    result_.lost_by_tier[static_cast<std::size_t>(shrink_tier_)] += resume - boundary;
    ++result_.elastic_grows;
    std::fill(unit_out_.begin(), unit_out_.end(), 0);
    machines_out_ = 0;
    grow_at_ = SimTime::zero();
    grow_restart_ = SimTime::zero();
    return resume_after_pause(resume, done, e, t, n0, lineage0, end_time) ? Resize::done : Resize::run_ended;
  }

  /// Elastic restart: the episode restarted without the units of its machines that found no
  /// standby; the job grows back once every replacement of the units out has arrived.
  void shrink(int machines_out, RecoveryTier tier, int cause) {
    for (int j : episode_unplaced_) unit_out_[static_cast<std::size_t>(elastic_->unit_of[static_cast<std::size_t>(j)])] = 1;
    grow_at_ = std::max(grow_at_, replacements_ready_);
    if (machines_out == machines_out_) return;  // every unit was out already
    machines_out_ = machines_out;
    grow_restart_ = std::max(grow_restart_, episode_restart_);
    shrink_tier_ = tier;
    shrink_cause_ = cause;
    ++result_.elastic_shrinks;
  }

  /// Elastic restart: the machines out if the job restarted now without the units of this
  /// episode's machines that found no standby (those already out count once).
  int machines_out_if_shrunk() const {
    int out = machines_out_;
    std::vector<char> seen;
    for (int j : episode_unplaced_) {
      const auto u = static_cast<std::size_t>(elastic_->unit_of[static_cast<std::size_t>(j)]);
      if (unit_out_[u] != 0) continue;
      if (seen.empty()) seen.assign(unit_out_.size(), 0);
      if (seen[u] != 0) continue;
      seen[u] = 1;
      out += elastic_->unit_machines[u];
    }
    return out;
  }

  /// Standby machines whose replacement has arrived by `at` go back to the pool.
  void return_standbys(SimTime at) {
    std::erase_if(standby_returns_, [&](SimTime r) {
      if (r <= at) {
        ++standby_free_;
        return true;
      }
      return false;
    });
  }

  /// A free standby takes a migrating machine's place at `at`; the pool gets a machine back one
  /// replacement delay later. False when none is free.
  bool take_standby(SimTime at) {
    return_standbys(at);
    if (standby_free_ == 0) return false;
    --standby_free_;
    standby_returns_.push_back(saturating_add(at, draw_replacement_delay()));
    return true;
  }

  /// Counts the failure and, for hardware, empties its machines and requests their replacements.
  void apply_failure(const FailureEvent& f) {
    pull_failure();
    if (f.corruption) take_corruption(*f.corruption);
    mark_jit_positions(f);
    ++result_.failures_by_cause[static_cast<std::size_t>(f.cause)];
    bool spare = true;
    if (f.type == FailureType::software) {
      ++result_.software_failures;
    } else {
      ++result_.hardware_failures;
      const SimTime detected = f.time + detection_of(f);
      for (int j = f.machine; j < f.machine + f.machines; ++j) spare = replace_machine(j, f.time, detected) && spare;
    }
    // The episode restarts once, at the highest tier and latency among its failures.
    const auto [tier, restart] = restart_of(f, spare);
    episode_restart_ = std::max(episode_restart_, restart);
    episode_tier_ = std::max(episode_tier_, tier);
  }

  /// The restart tier and latency after failure f (`spare`: every lost machine found a free
  /// standby): the cause's flat restart without restart tiers (failure/restart_tiers.hpp).
  std::pair<RestartTier, SimTime> restart_of(const FailureEvent& f, bool spare) const {
    const SimTime cause_restart = causes_[static_cast<std::size_t>(f.cause)].restart;
    if (tiers_ == nullptr) return {RestartTier::in_job, cause_restart};
    const RestartTier tier = restart_tier(*tiers_, fault_class(f.type == FailureType::hardware, f.hang), spare,
                                          in_process_hang_detection(*tiers_), in_job_hang_detection_);
    return {tier, restart_latency(*tiers_, tier, cause_restart, c_.iteration_time)};
  }

  /// Machine j's CPU memory is gone; a standby takes its place at detection if one is free,
  /// else its replacement arrives one replacement delay after detection. True when a standby
  /// took its place.
  bool replace_machine(int j, SimTime failed_at, SimTime detected) {
    ++result_.machines_replaced;
    memory_health_.lose(j);
    local_lost_ = true;
    // Standby machines come back to the pool once their replacement arrives.
    return_standbys(failed_at);
    // A lognormal delay may be SimTime::max() ("never"): these sums saturate, not overflow.
    const SimTime delay = draw_replacement_delay();
    if (standby_free_ > 0) {
      --standby_free_;
      standby_returns_.push_back(saturating_add(detected, delay));
      replacements_ready_ = std::max(replacements_ready_, detected);
      return true;
    }
    replacements_ready_ = std::max(replacements_ready_, saturating_add(detected, delay));
    if (elastic_ != nullptr) episode_unplaced_.push_back(j);
    return false;
  }

  /// A recovery from memory is `peer` when any machine's CPU memory is empty since the latest
  /// complete checkpoint: replaced in this episode, or in an earlier one (it got its own shard
  /// back from its peers, but still holds none of the shards it stores for others, and its
  /// own shard is only on its peers until the next checkpoint completes).
  SimTime detection_of(const FailureEvent& f) const {
    return f.hang ? hang_detection_ : causes_[static_cast<std::size_t>(f.cause)].detection;
  }

  /// Silent corruptions (fault_model.hpp): registers the onsets before `until` that fall in the
  /// training segment starting at t, with the newest states captured before each (candidates
  /// completed by the onset; memory_ / persistent_ still hold the segment's starting values).
  template <typename C>
  void register_onsets(const C& clock, SimTime t, SimTime until, SimTime lineage0) {
    // Inline for the common case (no onset before `until`; none at all without silent
    // corruption): the run model asks at every failure.
    if (next_onset_ < until) register_onsets_before(clock, t, until, lineage0);
  }

  template <typename C>
  void register_onsets_before(const C& clock, SimTime t, SimTime until, SimTime lineage0) {
    while (next_onset_ < until) {
      Corruption c;
      c.id = onsets_seen_++;
      if (next_onset_ >= t) {
        c.valid = true;
        const SimTime e = job_work(t, next_onset_);
        c.lineage = lineage0 + e;
        const auto version = [&](const std::optional<SegmentCheckpoint>& ck, const std::optional<Version>& before) {
          return ck ? std::optional<Version>(Version{ck->version, lineage0 + ck->captured_at}) : before;
        };
        if (c_.tier == CheckpointTier::memory) {
          c.memory_clean = version(clock.latest_checkpoint(e), memory_);
          c.persistent_clean = version(clock.latest_persistent(e), persistent_);
        } else if (c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time) {
          c.persistent_clean = version(clock.latest_checkpoint(e), persistent_);
        } else if (c_.tier == CheckpointTier::multi_level) {
          c.persistent_clean = version(clock.latest_persistent(e), persistent_);
        }
      }
      corruptions_.push_back(c);
      next_onset_ = onsets_->next().first;
    }
  }

  /// Onsets before `until` while the job is down: no computation to corrupt.
  void register_downtime_onsets(SimTime until) {
    while (next_onset_ < until) {
      corruptions_.push_back(Corruption{onsets_seen_++, false, SimTime::zero(), std::nullopt, std::nullopt});
      next_onset_ = onsets_->next().first;
    }
  }

  /// True when the pending failure detects a corruption that did nothing (started while the
  /// job was down, or rolled back since): such a detection is dropped.
  bool pending_is_undone() const {
    if (!pending_failure_ || !pending_failure_->corruption) return false;
    return corruptions_.empty() || corruptions_.front().id != *pending_failure_->corruption || !corruptions_.front().valid;
  }

  void drop_pending() {
    if (!corruptions_.empty() && corruptions_.front().id == *pending_failure_->corruption) corruptions_.pop_front();
    pull_failure();
  }

  template <typename C>
  void skip_undone_detections(const C& clock, SimTime t, SimTime lineage0) {
    while (pending_failure_ && pending_failure_->corruption) {
      register_onsets(clock, t, pending_failure_->time, lineage0);
      if (!pending_is_undone()) return;
      drop_pending();
    }
  }

  void skip_undone_detections_while_down(SimTime until) {
    while (pending_failure_ && pending_failure_->corruption && pending_failure_->time < until) {
      register_downtime_onsets(pending_failure_->time);
      if (!pending_is_undone()) return;
      drop_pending();
    }
  }

  /// A detected corruption binds the episode's recovery to a state captured before it (the
  /// earliest such corruption when several are detected in one episode).
  void take_corruption(std::int64_t id) {
    if (corruptions_.empty() || corruptions_.front().id != id) return;
    const Corruption c = corruptions_.front();
    corruptions_.pop_front();
    if (c.valid && (!episode_corruption_ || c.lineage < episode_corruption_->lineage)) episode_corruption_ = c;
  }

  /// After a recovery to `target`: states newer than the corruption it undid are corrupt, and
  /// corruptions after the recovered state are undone.
  void after_recovery(const Version& target, SimTime resumed) {
    if (episode_corruption_) {
      persistent_ = episode_corruption_->persistent_clean;
      partner_.reset();
      episode_corruption_.reset();
    }
    for (auto& c : corruptions_)
      if (c.valid && c.lineage >= target.lineage) c.valid = false;
    register_downtime_onsets(resumed);
  }

  std::pair<Version, RecoveryTier> choose_target() const {
    if (episode_corruption_) return choose_clean();
    if (jit_recovery()) return {*jit_, RecoveryTier::storage};
    if (c_.tier == CheckpointTier::multi_level) return choose_level();
    if (c_.tier == CheckpointTier::memory && memory_ && memory_health_.recoverable())
      return {*memory_, memory_health_.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
    if (persistent_) return {*persistent_, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  /// Just-in-time: the episode's failures left a replica of every shard, and no corruption
  /// forces a rollback past the interrupted minibatch.
  bool jit_recovery() const { return c_.tier == CheckpointTier::just_in_time && jit_ && !jit_lost_ && !episode_corruption_; }

  /// Just-in-time: machine j holds shard position j mod (N / G); the position is lost once all G
  /// of its holders, G distinct machines, failed in this episode (their GPU state is gone). A
  /// machine that fails again within the episode is a holder already lost: counted once.
  void mark_jit_positions(const FailureEvent& f) {
    if (c_.tier != CheckpointTier::just_in_time) return;
    for (int j = f.machine; j < f.machine + f.machines; ++j) {
      auto& lost = jit_holder_lost_[static_cast<std::size_t>(j)];
      if (lost != 0) continue;
      lost = 1;
      jit_touched_.push_back(j);
      if (++jit_failed_[static_cast<std::size_t>(j % jit_positions_)] >= c_.replica_groups) jit_lost_ = true;
    }
  }

  void reset_jit_positions() {
    for (int j : jit_touched_) {
      jit_holder_lost_[static_cast<std::size_t>(j)] = 0;
      jit_failed_[static_cast<std::size_t>(j % jit_positions_)] = 0;
    }
    jit_touched_.clear();
    jit_lost_ = false;
  }

  /// After a detected corruption: the newest state captured before it that still exists; an
  /// in-memory one only while it is still the newest in memory.
  std::pair<Version, RecoveryTier> choose_clean() const {
    const Corruption& c = *episode_corruption_;
    if (c_.tier == CheckpointTier::memory && c.memory_clean && memory_ && memory_->iteration == c.memory_clean->iteration &&
        memory_->lineage == c.memory_clean->lineage && memory_health_.recoverable())
      return {*memory_, memory_health_.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
    if (c.persistent_clean) return {*c.persistent_clean, RecoveryTier::storage};
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

  Outcome recover(const FailureEvent& first, SimTime end_time) {
    replacements_ready_ = SimTime::zero();
    episode_restart_ = SimTime::zero();
    episode_tier_ = RestartTier::in_process;
    episode_corruption_.reset();
    episode_unplaced_.clear();
    reset_jit_positions();
    ++result_.episodes;
    apply_failure(first);
    SimTime start = first.time;
    int cause = first.cause;
    SimTime detection = detection_of(first);
    SimTime retrieval_spent;
    auto& b = result_.breakdown;
    for (;;) {
      const auto [target, tier] = choose_target();
      const SimTime detected = start + detection;
      // Just-in-time: the surviving replicas save over [detected, saved), while the
      // replacements are on their way.
      const bool jit = jit_recovery();
      const SimTime saved = jit ? saturating_add(detected, c_.jit_save) : detected;
      // Saturating after a replacement that may never come (lognormal); the horizon check
      // (run_horizon.hpp) keeps every other sum of the episode within the clock.
      // Elastic restart (failure/elastic.hpp): shrink instead of waiting, when allowed and shorter.
      int shrunk_out = 0;
      SimTime reshard;
      if (elastic_ != nullptr && !episode_unplaced_.empty() && replacements_ready_ > saved) {
        // Machines whose units are out already cost nothing more: the job is that size, and its
        // grow waits for their replacements too.
        const int out = machines_out_if_shrunk();
        const int size = s_.cluster.machines - out;
        if (out == machines_out_) {
          shrunk_out = out;
        } else if (size >= elastic_->min_machines) {
          reshard = reshard_time(s_, size);
          const SimTime cost = saturating_add(saturating_add(reshard, elastic_->grow_reshard), episode_restart_);
          if (replacements_ready_ - saved > cost) shrunk_out = out;
          else reshard = SimTime::zero();
        }
      }
      const SimTime replaced = shrunk_out > 0 ? saved : std::max(saved, replacements_ready_);
      const SimTime retrieved = saturating_add(replaced, saturating_add(retrieval_time(tier), reshard));
      const SimTime restarted = saturating_add(retrieved, episode_restart_);
      SimTime stop = restarted;
      bool interrupted = false;
      skip_undone_detections_while_down(std::min(restarted, end_time));
      if (pending_failure_ && pending_failure_->time < stop) {
        stop = pending_failure_->time;
        interrupted = true;
      }
      const bool ends_run = end_time < stop;
      if (ends_run) stop = end_time;
      // The episode's phases follow one another from its start, start <= detected <= saved <=
      // replaced <= retrieved <= restarted, and stop >= start: each phase's part before stop is
      // the difference of its two ends cut at stop.
      const auto before_stop = [stop](SimTime from, SimTime to) { return std::min(to, stop) - std::min(from, stop); };
      b.detection += before_stop(start, detected);
      b.checkpoint_stall += before_stop(detected, saved);
      b.replacement_wait += before_stop(saved, replaced);
      const SimTime r = before_stop(replaced, retrieved);
      b.retrieval += r;
      retrieval_spent += r;
      b.restart += before_stop(retrieved, restarted);
      cause_lost(cause) += stop - start;
      if (ends_run) return Outcome{target, retrieval_spent, stop, true, tier, stop - first.time};
      if (interrupted) {
        const FailureEvent next = *pending_failure_;
        apply_failure(next);
        start = next.time;
        cause = next.cause;
        detection = detection_of(next);
        continue;
      }
      ++result_.recoveries[static_cast<std::size_t>(tier)];
      if (tiers_ != nullptr) ++result_.restarts_by_tier[static_cast<std::size_t>(episode_tier_)];
      if (shrunk_out > 0) shrink(shrunk_out, tier, first.cause);
      if (c_.tier == CheckpointTier::just_in_time) {
        ++(jit ? result_.jit_recoveries : result_.jit_fallbacks);
        if (jit) persistent_ = target;  // the save is in storage now: a later fallback's newest
        jit_.reset();
      }
      after_recovery(target, restarted);
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
  SimTime migration_pause_;  ///< P of failure/migration.hpp (live migration modelled)
  SimTime not_before_;       ///< end of the latest planned stop's pause: no failure is taken earlier
  std::vector<SimTime> standby_returns_;
  SimTime replacements_ready_;
  SimTime episode_restart_;
  RestartTier episode_tier_ = RestartTier::in_process;
  std::optional<Version> memory_;     ///< memory tier; multi-level: level 1
  std::optional<Version> partner_;    ///< multi-level: level 2
  std::optional<Version> persistent_;
  bool local_lost_ = false;           ///< multi-level: a machine lost its memory since level 1 completed
  std::optional<Version> jit_;        ///< just-in-time: the interrupted minibatch's starting state
  int jit_positions_ = 1;             ///< just-in-time: shard positions N / G
  std::vector<int> jit_failed_;       ///< just-in-time: distinct holders failed in this episode, by position
  std::vector<char> jit_holder_lost_; ///< just-in-time: machine failed in this episode, by machine
  std::vector<int> jit_touched_;      ///< just-in-time: the machines marked in jit_holder_lost_
  bool jit_lost_ = false;             ///< just-in-time: some position lost every holder
  std::int64_t needed_persistent_ = 0;  ///< recoveries from storage or scratch
  SlowWindows slow_;                    ///< fail-slow stragglers (fault_model.hpp)
  const ElasticPlan* elastic_;          ///< elastic restart (failure/elastic.hpp; nullptr: off)
  std::vector<char> unit_out_;          ///< elastic: units out of the job, by unit index
  int machines_out_ = 0;                ///< elastic: their machines (0: the job is whole)
  SimTime grow_at_;                     ///< elastic: when every replacement of the units out has arrived
  SimTime grow_restart_;                ///< elastic: the restart after the grow (the shrinks' longest)
  RecoveryTier shrink_tier_ = RecoveryTier::scratch;  ///< elastic: the grow's pause counts to these
  int shrink_cause_ = 0;
  std::vector<int> episode_unplaced_;   ///< elastic: this episode's lost machines with no standby
  const RestartTierSpec* tiers_;        ///< restart tiers in force (nullptr: the causes' flat restart)
  SimTime in_job_hang_detection_;       ///< the heartbeat / watchdog rule (fault_model.hpp)
  SimTime hang_detection_;              ///< the rule in force (restart_tiers.hpp)
  /// A silent corruption: its onset's lineage and the newest states captured before it.
  struct Corruption {
    std::int64_t id = 0;
    bool valid = false;
    SimTime lineage;
    std::optional<Version> memory_clean;
    std::optional<Version> persistent_clean;
  };
  std::optional<CorruptionOnsets> onsets_;
  SimTime next_onset_ = SimTime::max();
  std::int64_t onsets_seen_ = 0;
  std::deque<Corruption> corruptions_;     ///< registered, not yet detected, in onset order
  std::optional<Corruption> episode_corruption_;
  SimTime compute_;
  SimTime partial_training_;
  ReplicaResult result_;
};

}  // namespace

RunModel::RunModel(const Scenario& scenario, StrategyCosts costs) : scenario_(scenario), costs_(std::move(costs)) {
  std::vector<std::vector<int>> stored_on;
  int lost_at = 0;  // holders lost that lose a set: 0 = all of them
  if (costs_.erasure_coded()) {
    // A coding group is lost when p + 1 of its g members are replaced. Its members' holder sets
    // are all the group, so one counter per group suffices: machine j counts only for its
    // group's first member (one update per replaced machine, as cheap as GEMINI's pairs).
    placement_ = erasure_groups(costs_.placement, scenario_.cluster.machines, ErasureCode{costs_.group_size, costs_.parity});
    lost_at = costs_.parity + 1;
    stored_on.assign(placement_.holders.size(), {});
    for (std::size_t j = 0; j < placement_.holders.size(); ++j) stored_on[j] = {placement_.holders[j].front()};
    has_placement_ = true;
  } else if (costs_.tier == CheckpointTier::memory || costs_.tier == CheckpointTier::multi_level) {
    placement_ = make_placement(costs_.placement, scenario_.cluster.machines, costs_.replicas, scenario_.run.seed,
                                costs_.replication_jump);
    stored_on = placement_.stored_on();
    has_placement_ = true;
  }
  if (has_placement_) {
    holder_index_.offsets.push_back(0);
    for (const auto& sets : stored_on) {
      holder_index_.sets.insert(holder_index_.sets.end(), sets.begin(), sets.end());
      holder_index_.offsets.push_back(static_cast<int>(holder_index_.sets.size()));
    }
    for (const auto& holders : placement_.holders)
      holder_index_.loss_limit.push_back(lost_at > 0 ? lost_at : static_cast<int>(holders.size()));
  }
  if (scenario_.failures.process == FailureProcessKind::trace)
    trace_ = load_failure_trace(scenario_.failures.trace_file, scenario_.cluster.machines);
  check_trace_causes();
  // Once for every replica; a pause beyond the clock is refused here, before any replica runs.
  if (migration_modelled(scenario_.failures)) migration_pause_ = migration_pause(scenario_);
  if (elastic_modelled(scenario_.failures)) {
    // Per-step fault tolerance trains on without a failed group already (group_outages.hpp).
    if (costs_.tier == CheckpointTier::per_step)
      throw ModelError("/failures/elastic/min_machines",
                       "absent under per-step fault tolerance, whose groups leave the quorum and train on without "
                       "restarting (an elastic restart would restart the whole job)");
    elastic_ = elastic_plan(scenario_);
  }
  std::vector<FailureCause> causes = failure_causes(scenario_.failures);
  // Per-step fault tolerance restarts only the failed group (torchft.cpp): its restart from the
  // phases at the group's ranks replaces the whole job's where a cause takes the scenario's.
  if (costs_.tier == CheckpointTier::per_step && costs_.group_restart > SimTime::zero())
    for (FailureCause& c : causes)
      if (c.restart == scenario_.failures.restart) c.restart = costs_.group_restart;
  causes_ = std::make_shared<const std::vector<FailureCause>>(std::move(causes));
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

ReplicaResult RunModel::simulate(std::uint64_t replica, AdvanceMode mode) const {
  const HolderIndex* h = has_placement_ ? &holder_index_ : nullptr;
  const ElasticPlan* e = elastic_ ? &*elastic_ : nullptr;
  if (costs_.tier == CheckpointTier::multi_level) {
    if (mode == AdvanceMode::exact) return ReplicaSimulation<SteppedLevelClock>(scenario_, costs_, h, &trace_, causes_, migration_pause_, e, replica).run();
    return ReplicaSimulation<LevelClock>(scenario_, costs_, h, &trace_, causes_, migration_pause_, e, replica).run();
  }
  if (mode == AdvanceMode::exact) return ReplicaSimulation<SteppedClock>(scenario_, costs_, h, &trace_, causes_, migration_pause_, e, replica).run();
  return ReplicaSimulation<SegmentClock>(scenario_, costs_, h, &trace_, causes_, migration_pause_, e, replica).run();
}

}  // namespace ckptsim
