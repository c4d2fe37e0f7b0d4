// The replica simulation of run_model.hpp.
#include "ckptsim/run/run_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/failure/elastic.hpp"
#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/migration.hpp"
#include "ckptsim/failure/restart_tiers.hpp"
#include "ckptsim/run/recovery/recovery_mechanism.hpp"
#include "ckptsim/run/recovery/replica_state.hpp"
#include "ckptsim/run/recovery/restart_model.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/run/group_outages.hpp"
#include "ckptsim/run/interval_policy.hpp"
#include "ckptsim/run/level_clock.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/segment_clock.hpp"

namespace ckptsim {
namespace {

template <typename Clock>
class ReplicaSimulation {
 public:
  ReplicaSimulation(const ReplicaInputs& in, std::uint64_t replica)
      : s_(in.scenario),
        c_(in.costs),
        pattern_(SegmentPattern::from_costs(in.costs)),
        st_(in, replica),
        restarts_(in.scenario, in.costs, *in.causes),
        segment_(*this) {
    const Scenario& s = in.scenario;
    for (const auto& plan : *in.mechanisms) mechanisms_.push_back(plan->start(st_, replica));
    if (c_.tier == CheckpointTier::just_in_time) {
      st_.result.just_in_time = true;
      jit_positions_ = std::max(1, s.cluster.machines / std::max(1, c_.replica_groups));
      jit_failed_.assign(static_cast<std::size_t>(jit_positions_), 0);
      jit_holder_lost_.assign(static_cast<std::size_t>(s.cluster.machines), 0);
    }
    st_.result.restart_tiers = restarts_.tiered();
  }

  ReplicaResult run() {
    if (c_.tier == CheckpointTier::per_step) return run_per_step();
    Segment& seg = segment_;
    // An iteration target that failures keep out of reach (e.g. no checkpoints and a high
    // failure rate) must not run forever: such a replica stops at 100x its failure-free time
    // (or 100 years) and is reported as unfinished.
    // run.duration, or for run.iterations 100x the failure-free time (at most 100 years): the
    // end of the run_horizon.hpp check, so every instant of the replica fits the clock.
    const SimTime end_time = run_end_bound(s_, Clock(pattern_, 0).time_to_complete(s_.run.iterations.value_or(0)));
    seg.run_end = end_time;
    for (;;) {
      if (c_.adaptive_interval) adapt_persistent_period(seg.start, end_time);
      const Clock clock(pattern_, seg.n0);
      seg.clock = &clock;
      const SimTime t = seg.start;
      // When training alone would end the run.
      seg.target_end = end_time;
      // Healthy work to the iteration target, when it is reached first (stragglers stretch it
      // into more wall time: fault_model.hpp).
      std::optional<SimTime> target_work;
      // Asked first as completed(), which stays in the clock: the time to complete the
      // remaining iterations may not (an adaptive persistent period can put a long stall at
      // every block once the run has started; fuzz/fuzz_time_edges finding), and then the
      // run's end comes first anyway. Work never exceeds wall time, so a target out of reach
      // at full speed stays out of reach.
      if (s_.run.iterations && clock.completed(end_time - t) >= *s_.run.iterations - seg.n0) {
        const SimTime w = clock.time_to_complete(*s_.run.iterations - seg.n0);
        const SimTime wall = st_.rate.wall_after(t, w);
        if (wall <= end_time) {
          seg.target_end = wall;
          target_work = w;
        }
      }
      if (!mechanisms_.empty()) {
        const SegmentChange change = before_segment();
        if (change == SegmentChange::run_ended) break;
        if (change == SegmentChange::restarted) continue;
      }
      const SimTime target_end = seg.target_end;
      if (!st_.failures.before(target_end)) {
        const SimTime e = target_work ? *target_work : st_.rate.work(t, target_end);
        after_training(target_end);
        const std::int64_t done = clock.completed(e);
        const SimTime stall = clock.stall(e);
        st_.count_training(target_end - t, e, stall);
        // The compute of a partial final iteration counts as training (progress is continuous):
        // the segment's compute minus that of its `done` whole iterations (T each).
        st_.partial_training = (e - stall) - c_.iteration_time * done;
        st_.end_run(target_end, seg.n0 + done, !s_.run.iterations || seg.n0 + done >= *s_.run.iterations);
        break;
      }
      if (st_.failures.next().predicted && !mechanisms_.empty()) {
        const SegmentChange change = on_predicted_failure();
        if (change == SegmentChange::run_ended) break;
        if (change == SegmentChange::restarted) continue;
      }
      // Train until the failure.
      const FailureEvent f = st_.failures.next();
      const SimTime e = st_.rate.work(t, f.time);
      st_.count_training(f.time - t, e, clock.stall(e));
      after_training(f.time);
      note_completed_checkpoints(clock, e, seg.lineage0);
      const SimTime lineage_at_failure = seg.lineage0 + e;
      // Just-in-time: the state at the start of the interrupted minibatch (the last whole
      // iteration), which the surviving replicas can save.
      if (c_.tier == CheckpointTier::just_in_time) {
        const std::int64_t done = clock.completed(e);
        jit_ = Version{seg.n0 + done, seg.lineage0 + clock.time_to_complete(done)};
      }
      // Recovery episode.
      const auto outcome = recover(f, end_time);
      const SimTime rolled_back = lineage_at_failure - outcome.target.lineage;
      st_.result.wasted_time += rolled_back + outcome.retrieval_spent;
      st_.cause_lost(f.cause) += rolled_back;
      st_.result.lost_by_tier[static_cast<std::size_t>(outcome.tier)] += rolled_back + outcome.downtime;
      if (outcome.run_ended) {
        st_.end_run(end_time, outcome.target.iteration, !s_.run.iterations);
        break;
      }
      seg.start = outcome.resume_at;
      seg.n0 = outcome.target.iteration;
      seg.lineage0 = outcome.target.lineage;
      if (s_.run.iterations && seg.n0 >= *s_.run.iterations) {
        st_.result.iterations = seg.n0;
        st_.result.wall_time = seg.start;
        break;
      }
    }
    st_.result.final_persistent_every = c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time
                                            ? pattern_.every
                                            : pattern_.persistent_every;
    auto& b = st_.result.breakdown;
    b.training = c_.iteration_time * st_.result.iterations + st_.partial_training;
    b.lost_progress = st_.compute - b.training;
    return st_.result;
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

  /// The training segment in progress as the mechanisms see it (recovery_mechanism.hpp).
  class Segment final : public TrainingSegment {
   public:
    explicit Segment(ReplicaSimulation& sim) : sim_(sim) {}
    const Clock* clock = nullptr;
    [[nodiscard]] std::int64_t completed(SimTime work) const override { return clock->completed(work); }
    [[nodiscard]] SimTime time_to_complete(std::int64_t iterations) const override {
      return clock->time_to_complete(iterations);
    }
    [[nodiscard]] CleanStates states_before(SimTime work) const override {
      return sim_.clean_states(*clock, work, lineage0);
    }
    void stop_at_boundary(SimTime boundary, SimTime work) override {
      sim_.st_.count_training(boundary - start, work, clock->stall(work));
      sim_.after_training(boundary);
      sim_.note_completed_checkpoints(*clock, work, lineage0);
    }
    bool resume_after_pause(SimTime resume, std::int64_t done, SimTime work) override {
      for (auto& m : sim_.mechanisms_) m->during_pause(sim_.st_, resume);
      sim_.st_.failures.pause_until(resume);
      n0 += done;
      lineage0 = lineage0 + work;
      start = resume;
      if (resume < run_end) return true;
      sim_.st_.end_run(run_end, n0, !sim_.s_.run.iterations);
      return false;
    }

   private:
    ReplicaSimulation& sim_;
  };

  SegmentChange before_segment() {
    for (auto& m : mechanisms_) {
      const SegmentChange change = m->before_segment(st_, segment_);
      if (change != SegmentChange::none) return change;
    }
    return SegmentChange::none;
  }

  SegmentChange on_predicted_failure() {
    for (auto& m : mechanisms_) {
      const SegmentChange change = m->on_predicted_failure(st_, segment_);
      if (change != SegmentChange::none) return change;
    }
    return SegmentChange::none;
  }

  void after_training(SimTime until) {
    for (auto& m : mechanisms_) m->after_training(st_, segment_, until);
  }

  /// The newest states captured within the first `e` of the segment, or else before it (a silent
  /// corruption's clean states).
  CleanStates clean_states(const Clock& clock, SimTime e, SimTime lineage0) const {
    const auto version = [&](const std::optional<SegmentCheckpoint>& ck, const std::optional<Version>& before) {
      return ck ? std::optional<Version>(Version{ck->version, lineage0 + ck->captured_at}) : before;
    };
    CleanStates c;
    if (c_.tier == CheckpointTier::memory) {
      c.memory = version(clock.latest_checkpoint(e), st_.states.memory);
      c.persistent = version(clock.latest_persistent(e), st_.states.persistent);
    } else if (c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time) {
      c.persistent = version(clock.latest_checkpoint(e), st_.states.persistent);
    } else if (c_.tier == CheckpointTier::multi_level) {
      c.persistent = version(clock.latest_persistent(e), st_.states.persistent);
    }
    return c;
  }

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
    const SimTime t_iter = c_.iteration_time;
    const SimTime end_time = run_end_bound(s_, t_iter * s_.run.iterations.value_or(0));
    const std::int64_t target = s_.run.iterations.value_or(0);
    SimTime t;
    SimTime work;  // healthy-equivalent work kept so far (progress = work / T)
    auto& b = st_.result.breakdown;
    const auto work_over = [&](SimTime from, SimTime to) { return out.work(from, to, st_.rate.stragglers().windows(from, to), st_.rate.stragglers().speed()); };
    for (;;) {
      SimTime stop = end_time;
      const bool failure = st_.failures.any() && st_.failures.next().time < end_time;
      // A failure during the wait of the previous one is handled when the wait ends.
      if (failure) stop = std::max(t, st_.failures.next().time);
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
      st_.compute += w;
      work += w;
      if (reached || !failure) {
        st_.result.iterations = work.ns() / t_iter.ns();
        st_.result.wall_time = stop;
        st_.result.finished = !s_.run.iterations || st_.result.iterations >= target;
        st_.partial_training = work - t_iter * st_.result.iterations;
        break;
      }
      const FailureEvent f = st_.failures.next();
      if (f.predicted && averted_in_group(out, std::min(out.groups() - 1, f.machine / per_group), stop)) {
        // Live migration (failure/migration.hpp): the machine's group leaves the quorum at the
        // step boundary and rejoins on the standby P later; no step is discarded, nobody waits.
        t = stop;
        continue;
      }
      apply_per_step_failure(f, out, per_group);
      // The step in flight is discarded: progress falls back to the last whole iteration.
      const SimTime kept = t_iter * (work.ns() / t_iter.ns());
      st_.cause_lost(f.cause) += work - kept;
      st_.result.wasted_time += work - kept;
      work = kept;
      // Every group waits (no work, ends the run if it comes first): until the failed step's
      // collective errors out (the failure's detection) or times out, and the lighthouse has
      // dropped the failed group (heartbeat timeout), whichever is later.
      const SimTime resumed = std::max(stop, std::min(end_time, saturating_add(f.time, per_step_wait(f))));
      b.detection += resumed - stop;
      st_.cause_lost(f.cause) += resumed - stop;
      t = resumed;
      if (resumed == end_time) {
        st_.result.iterations = work.ns() / t_iter.ns();
        st_.result.wall_time = end_time;
        st_.result.finished = !s_.run.iterations;
        break;
      }
    }
    b.training = t_iter * st_.result.iterations + st_.partial_training;
    b.lost_progress = st_.compute - b.training;
    return st_.result;
  }

  /// Per-step fault tolerance: a mechanism averts the announced failure of a machine of `group`
  /// (its group leaves the quorum at `at` instead).
  bool averted_in_group(GroupOutages& out, int group, SimTime at) {
    for (auto& m : mechanisms_)
      if (m->on_predicted_group_failure(st_, out, group, at)) return true;
    return false;
  }

  /// Per-step fault tolerance: how long after failure f every group waits before the next
  /// quorum, max(heartbeat_timeout, min(detection, step_timeout)) (run/strategies/torchft.cpp).
  SimTime per_step_wait(const FailureEvent& f) const {
    return std::max(c_.heartbeat_timeout, std::min(restarts_.detection(f), c_.step_timeout));
  }

  /// A failure under per-step fault tolerance: its groups leave the quorum until healed.
  void apply_per_step_failure(const FailureEvent& f, GroupOutages& out, int per_group) {
    st_.failures.pull();
    ++st_.result.episodes;
    ++st_.result.failures_by_cause[static_cast<std::size_t>(f.cause)];
    const SimTime detected = saturating_add(f.time, per_step_wait(f));
    SimTime ready = detected;
    bool spare = true;
    if (f.type == FailureType::hardware) {
      ++st_.result.hardware_failures;
      st_.episode.replacements_ready = SimTime::zero();
      for (int j = f.machine; j < f.machine + f.machines; ++j) spare = st_.replace_machine(j, f.time, detected) && spare;
      ready = std::max(ready, st_.episode.replacements_ready);
    } else {
      ++st_.result.software_failures;
    }
    const auto [tier, restart] = restarts_.restart(f, spare);
    if (restarts_.tiered()) ++st_.result.restarts_by_tier[static_cast<std::size_t>(tier)];
    const SimTime rejoin = saturating_add(saturating_add(ready, restart), c_.heal);
    const int first = std::min(out.groups() - 1, f.machine / per_group);
    const int last = std::min(out.groups() - 1, (f.machine + f.machines - 1) / per_group);
    for (int g = first; g <= last; ++g) out.take_out(g, f.time, rejoin);
    ++st_.result.recoveries[static_cast<std::size_t>(RecoveryTier::peer)];
  }

  /// The adaptive policy (run/interval_policy.hpp): Daly's period for the failures seen by
  /// wall time t. remote-periodic: every failure, its checkpoint stall, in iterations;
  /// multi-level: the failures no memory level could absorb, the level-3 cost above level 2,
  /// in multiples of the level-2 period.
  /// The period is capped at the run's end `end` (a longer one never checkpoints within it).
  void adapt_persistent_period(SimTime t, SimTime end) {
    if (c_.tier == CheckpointTier::storage) {
      pattern_.every = adaptive_period_iterations(c_.stall, c_.iteration_time, 1, st_.result.failures(), t,
                                                  c_.adaptive_prior_mtbf, end);
    } else if (c_.tier == CheckpointTier::multi_level && pattern_.persistent_every > 0) {
      pattern_.persistent_every =
          adaptive_period_iterations(c_.persistent_stall - c_.partner_stall, c_.iteration_time, c_.partner_every_iterations,
                                     st_.persistent_recoveries, t, c_.adaptive_prior_mtbf, end);
    }
  }

  void note_completed_checkpoints(const Clock& clock, SimTime e, SimTime lineage0) {
    if (c_.tier == CheckpointTier::multi_level) {
      note_completed_levels(clock, e, lineage0);
    } else if (c_.tier == CheckpointTier::memory) {
      if (auto ck = clock.latest_checkpoint(e)) {
        st_.states.memory = Version{ck->version, lineage0 + ck->captured_at};
        st_.memory.refill();
      }
      if (auto ck = clock.latest_persistent(e)) st_.states.persistent = Version{ck->version, lineage0 + ck->captured_at};
    } else if (c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time) {
      if (auto ck = clock.latest_checkpoint(e)) st_.states.persistent = Version{ck->version, lineage0 + ck->captured_at};
    }
  }

  /// Multi-level: the latest checkpoint of each level that completed in this segment. A
  /// level-1 (or higher) completion restores every machine's local copy; a level-2 (or higher)
  /// completion refills the partner copies.
  void note_completed_levels(const Clock& clock, SimTime e, SimTime lineage0) {
    if constexpr (requires { clock.latest_by_level(e); }) {
      const LatestByLevel latest = clock.latest_by_level(e);
      if (const auto& ck = latest[0]) {
        st_.states.memory = Version{ck->version, lineage0 + ck->captured_at};
        st_.states.local_lost = false;
      }
      if (const auto& ck = latest[1]) {
        st_.states.partner = Version{ck->version, lineage0 + ck->captured_at};
        st_.memory.refill();
      }
      if (const auto& ck = latest[2]) st_.states.persistent = Version{ck->version, lineage0 + ck->captured_at};
    }
  }

  /// Counts the failure and, for hardware, empties its machines and requests their replacements.
  void apply_failure(const FailureEvent& f) {
    st_.failures.pull();
    for (auto& m : mechanisms_) m->on_failure(st_, f);
    mark_jit_positions(f);
    ++st_.result.failures_by_cause[static_cast<std::size_t>(f.cause)];
    bool spare = true;
    if (f.type == FailureType::software) {
      ++st_.result.software_failures;
    } else {
      ++st_.result.hardware_failures;
      const SimTime detected = f.time + restarts_.detection(f);
      for (int j = f.machine; j < f.machine + f.machines; ++j) spare = st_.replace_machine(j, f.time, detected) && spare;
    }
    // The episode restarts once, at the highest tier and latency among its failures.
    const auto [tier, restart] = restarts_.restart(f, spare);
    st_.episode.restart = std::max(st_.episode.restart, restart);
    st_.episode.restart_tier = std::max(st_.episode.restart_tier, tier);
  }

  std::pair<Version, RecoveryTier> choose_target() const {
    if (st_.episode.corruption) return choose_clean();
    if (jit_recovery()) return {*jit_, RecoveryTier::storage};
    if (c_.tier == CheckpointTier::multi_level) return choose_level();
    if (c_.tier == CheckpointTier::memory && st_.states.memory && st_.memory.recoverable())
      return {*st_.states.memory, st_.memory.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
    if (st_.states.persistent) return {*st_.states.persistent, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  /// Just-in-time: the episode's failures left a replica of every shard, and no corruption
  /// forces a rollback past the interrupted minibatch.
  bool jit_recovery() const { return c_.tier == CheckpointTier::just_in_time && jit_ && !jit_lost_ && !st_.episode.corruption; }

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
    const CleanStates& c = st_.episode.corruption->clean;
    if (c_.tier == CheckpointTier::memory && c.memory && st_.states.memory && st_.states.memory->iteration == c.memory->iteration &&
        st_.states.memory->lineage == c.memory->lineage && st_.memory.recoverable())
      return {*st_.states.memory, st_.memory.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
    if (c.persistent) return {*c.persistent, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  /// Multi-level: the cheapest level that survived. Level 1 (`local`) unless some machine lost
  /// its CPU memory since the latest level-1 completion; then level 2 (`peer`) unless every
  /// holder of some machine's partner copies was replaced since the latest level-2 completion;
  /// then level 3 (`storage`); else the initial state. The levels nest (a level-2 checkpoint is
  /// a level-1 one too), so the cheapest surviving level is also the newest surviving state.
  std::pair<Version, RecoveryTier> choose_level() const {
    if (st_.states.memory && !st_.states.local_lost) return {*st_.states.memory, RecoveryTier::local};
    if (st_.states.partner && st_.memory.recoverable()) return {*st_.states.partner, RecoveryTier::peer};
    if (st_.states.persistent) return {*st_.states.persistent, RecoveryTier::storage};
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
    st_.episode.replacements_ready = SimTime::zero();
    st_.episode.restart = SimTime::zero();
    st_.episode.restart_tier = RestartTier::in_process;
    st_.episode.corruption.reset();
    st_.episode.unplaced.clear();
    reset_jit_positions();
    ++st_.result.episodes;
    apply_failure(first);
    SimTime start = first.time;
    int cause = first.cause;
    SimTime detection = restarts_.detection(first);
    SimTime retrieval_spent;
    auto& b = st_.result.breakdown;
    for (;;) {
      const auto [target, tier] = choose_target();
      const SimTime detected = start + detection;
      // Just-in-time: the surviving replicas save over [detected, saved), while the
      // replacements are on their way.
      const bool jit = jit_recovery();
      const SimTime saved = jit ? saturating_add(detected, c_.jit_save) : detected;
      // Saturating after a replacement that may never come (lognormal); the horizon check
      // (run_horizon.hpp) keeps every other sum of the episode within the clock.
      // A mechanism may restart without the machines still awaited instead of waiting
      // (elastic restart, failure/elastic.hpp).
      const EpisodeShortcut shortcut = mechanisms_.empty() ? EpisodeShortcut{} : instead_of_waiting(saved);
      const int shrunk_out = shortcut.machines_out;
      const SimTime reshard = shortcut.reshard;
      const SimTime replaced = shrunk_out > 0 ? saved : std::max(saved, st_.episode.replacements_ready);
      const SimTime retrieved = saturating_add(replaced, saturating_add(retrieval_time(tier), reshard));
      const SimTime restarted = saturating_add(retrieved, st_.episode.restart);
      SimTime stop = restarted;
      bool interrupted = false;
      for (auto& m : mechanisms_) m->while_down(st_, std::min(restarted, end_time));
      if (st_.failures.any() && st_.failures.next().time < stop) {
        stop = st_.failures.next().time;
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
      st_.cause_lost(cause) += stop - start;
      if (ends_run) return Outcome{target, retrieval_spent, stop, true, tier, stop - first.time};
      if (interrupted) {
        const FailureEvent next = st_.failures.next();
        apply_failure(next);
        start = next.time;
        cause = next.cause;
        detection = restarts_.detection(next);
        continue;
      }
      ++st_.result.recoveries[static_cast<std::size_t>(tier)];
      if (restarts_.tiered()) ++st_.result.restarts_by_tier[static_cast<std::size_t>(st_.episode.restart_tier)];
      if (c_.tier == CheckpointTier::just_in_time) {
        ++(jit ? st_.result.jit_recoveries : st_.result.jit_fallbacks);
        if (jit) st_.states.persistent = target;  // the save is in storage now: a later fallback's newest
        jit_.reset();
      }
      for (auto& m : mechanisms_) m->on_recovered(st_, CompletedRecovery{target, tier, first.cause, restarted});
      if (tier == RecoveryTier::storage || tier == RecoveryTier::scratch) {
        st_.states.memory.reset();
        st_.states.partner.reset();
        ++st_.persistent_recoveries;
      }
      // Multi-level after a peer recovery: the replaced machines got their shards from their
      // partners into GPU memory but hold no level-1 copy of their own until the next level-1
      // checkpoint completes (note_completed_levels), so st_.states.local_lost stays set and a failure
      // before then recovers from a peer again (docs/models.md; GEMINI's rule for memory).
      // Recovering to an older state discards newer persistent/in-memory versions' relevance:
      // st_.states.persistent stays (it is still in storage); st_.states.memory is kept only after a memory recovery.
      return Outcome{target, retrieval_spent, restarted, false, tier, restarted - first.time};
    }
  }

  /// The first of the mechanisms' shortcuts (recovery_mechanism.hpp): every mechanism is asked.
  EpisodeShortcut instead_of_waiting(SimTime saved) {
    EpisodeShortcut first;
    for (auto& m : mechanisms_) {
      const EpisodeShortcut s = m->instead_of_waiting(st_, saved);
      if (first.machines_out == 0) first = s;
    }
    return first;
  }

  const Scenario& s_;
  const StrategyCosts& c_;
  SegmentPattern pattern_;
  ReplicaState st_;
  RestartModel restarts_;
  std::vector<std::unique_ptr<RecoveryMechanism>> mechanisms_;  ///< those the scenario models, in table order
  Segment segment_;
  std::optional<Version> jit_;        ///< just-in-time: the interrupted minibatch's starting state
  int jit_positions_ = 1;             ///< just-in-time: shard positions N / G
  std::vector<int> jit_failed_;       ///< just-in-time: distinct holders failed in this episode, by position
  std::vector<char> jit_holder_lost_; ///< just-in-time: machine failed in this episode, by machine
  std::vector<int> jit_touched_;      ///< just-in-time: the machines marked in jit_holder_lost_
  bool jit_lost_ = false;             ///< just-in-time: some position lost every holder
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
  // Once for every replica: values that cannot run are refused here, before any replica runs.
  mechanisms_ = mechanism_plans(scenario_, costs_);
  causes_ = std::make_shared<const std::vector<FailureCause>>(failure_causes(scenario_.failures));
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
  const ReplicaInputs in{scenario_, costs_, has_placement_ ? &holder_index_ : nullptr, &trace_, causes_, &mechanisms_};
  if (costs_.tier == CheckpointTier::multi_level) {
    if (mode == AdvanceMode::exact) return ReplicaSimulation<SteppedLevelClock>(in, replica).run();
    return ReplicaSimulation<LevelClock>(in, replica).run();
  }
  if (mode == AdvanceMode::exact) return ReplicaSimulation<SteppedClock>(in, replica).run();
  return ReplicaSimulation<SegmentClock>(in, replica).run();
}

}  // namespace ckptsim
