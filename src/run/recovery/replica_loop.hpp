#pragma once
// The replica loop of run_model.hpp's timeline, for every tier that recovers from checkpoints
// (none, memory, storage, multi-level, just-in-time; per-step fault tolerance has its own, in
// policies/per_step.cpp). Private to the recovery policies: each policy file instantiates it with
// its policy and its two clocks (closed form, and iteration by iteration for --exact).
//
// The loop alternates training segments and recovery episodes (run_model.hpp). It owns no
// recovery rule of its own: it asks the policy (what a segment completes, the target of an
// episode, what a recovery leaves), the restart model (detection, restart), the replica state
// (work rate, standbys, accounting) and the mechanisms the scenario models (recovery_mechanism.hpp),
// whose hooks it skips without a call when there are none.
//
// A policy (derived from PolicyBase, whose members are the defaults) provides:
//   Policy(const ReplicaInputs&, ReplicaState&)
//   note_completed(clock, e, lineage0, state)       the states the segment completed by work e
//   clean_states(clock, e, lineage0, state)          the newest states captured by work e, else before
//   choose_target(state), choose_clean(state)        an episode's target and tier (after a detected
//                                                    corruption: choose_clean)
// and may replace adapt_period, at_failure, on_episode_start, on_failure, saved_at, on_recovered
// and final_persistent_every.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/run/recovery/recovery_mechanism.hpp"
#include "ckptsim/run/recovery/recovery_policy.hpp"
#include "ckptsim/run/recovery/replica_state.hpp"
#include "ckptsim/run/recovery/restart_model.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/segment_clock.hpp"

namespace ckptsim {

/// An episode's target: the state it recovers to and the tier it retrieves it from.
struct RecoveryTarget {
  Version state;
  RecoveryTier tier = RecoveryTier::scratch;
};

/// What every replica loop holds: the state, the restart model and the mechanisms.
class ReplicaRun {
 public:
  ReplicaRun(const ReplicaInputs& in, std::uint64_t replica)
      : s_(in.scenario), c_(in.costs), st_(in, replica), restarts_(in.scenario, in.costs, *in.causes) {
    for (const auto& plan : *in.mechanisms) mechanisms_.push_back(plan->start(st_, replica));
    st_.result.restart_tiers = restarts_.tiered();
  }

 protected:
  /// Fills the breakdown's training and lost progress; the result is final.
  ReplicaResult finish() {
    auto& b = st_.result.breakdown;
    b.training = c_.iteration_time * st_.result.iterations + st_.partial_training;
    b.lost_progress = st_.compute - b.training;
    return std::move(st_.result);
  }

  const Scenario& s_;
  const StrategyCosts& c_;
  ReplicaState st_;
  RestartModel restarts_;
  std::vector<std::unique_ptr<RecoveryMechanism>> mechanisms_;  ///< those the scenario models, in table order
};

/// The defaults of a policy (replica_loop.hpp's header).
class PolicyBase {
 public:
  explicit PolicyBase(const StrategyCosts& c) : c_(c) {}
  /// The adaptive period before a segment from wall time t (the run ends at `end`): none.
  void adapt_period(SegmentPattern&, const ReplicaState&, SimTime /*t*/, SimTime /*end*/) {}
  /// A failure interrupted the segment after work e.
  template <typename Clock>
  void at_failure(const Clock&, SimTime /*e*/, std::int64_t /*n0*/, SimTime /*lineage0*/) {}
  void on_episode_start() {}
  void on_failure(const FailureEvent&) {}
  /// When the wait for replacements starts after the detection: at once.
  SimTime saved_at(const ReplicaState&, SimTime detected) { return detected; }
  /// The episode recovered to `target`.
  void on_recovered(ReplicaState&, const Version& /*target*/) {}
  /// After a detected corruption: the newest persistent state captured before it, else scratch.
  [[nodiscard]] RecoveryTarget choose_clean(const ReplicaState& st) const {
    const CleanStates& c = st.episode.corruption->clean;
    if (c.persistent) return {*c.persistent, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }
  /// The newest persistent state, else scratch.
  [[nodiscard]] static RecoveryTarget persistent_or_scratch(const ReplicaState& st) {
    if (st.states.persistent) return {*st.states.persistent, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }
  /// ReplicaResult::final_persistent_every: the persistent track's period.
  [[nodiscard]] std::int64_t final_persistent_every(const SegmentPattern& p) const { return p.persistent_every; }

 protected:
  /// A checkpoint of the segment that started at lineage0 as a recoverable state.
  static Version version_of(const SegmentCheckpoint& ck, SimTime lineage0) {
    return Version{ck.version, lineage0 + ck.captured_at};
  }
  /// The checkpoint if there is one, else the state held before the segment.
  static std::optional<Version> newest(const std::optional<SegmentCheckpoint>& ck, const std::optional<Version>& before,
                                       SimTime lineage0) {
    return ck ? std::optional<Version>(version_of(*ck, lineage0)) : before;
  }
  const StrategyCosts& c_;
};

template <typename Policy, typename Clock>
class ReplicaLoop : public ReplicaRun {
 public:
  ReplicaLoop(const ReplicaInputs& in, std::uint64_t replica)
      : ReplicaRun(in, replica), pattern_(recovery_policy(in.costs.tier).pattern(in.costs)), policy_(in, st_), segment_(*this) {}

  ReplicaResult run() {
    Segment& seg = segment_;
    // An iteration target that failures keep out of reach (e.g. no checkpoints and a high
    // failure rate) must not run forever: such a replica stops at 100x its failure-free time
    // (or 100 years) and is reported as unfinished.
    // run.duration, or for run.iterations 100x the failure-free time (at most 100 years): the
    // end of the run_horizon.hpp check, so every instant of the replica fits the clock.
    const SimTime end_time = run_end_bound(s_, Clock(pattern_, 0).time_to_complete(s_.run.iterations.value_or(0)));
    seg.run_end = end_time;
    for (;;) {
      policy_.adapt_period(pattern_, st_, seg.start, end_time);
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
      policy_.note_completed(clock, e, seg.lineage0, st_);
      const SimTime lineage_at_failure = seg.lineage0 + e;
      policy_.at_failure(clock, e, seg.n0, seg.lineage0);
      // Recovery episode.
      const Outcome outcome = recover(f, end_time);
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
    st_.result.final_persistent_every = policy_.final_persistent_every(pattern_);
    return finish();
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
    explicit Segment(ReplicaLoop& loop) : loop_(loop) {}
    const Clock* clock = nullptr;
    [[nodiscard]] std::int64_t completed(SimTime work) const override { return clock->completed(work); }
    [[nodiscard]] SimTime time_to_complete(std::int64_t iterations) const override {
      return clock->time_to_complete(iterations);
    }
    [[nodiscard]] CleanStates states_before(SimTime work) const override {
      return loop_.policy_.clean_states(*clock, work, lineage0, loop_.st_);
    }
    void stop_at_boundary(SimTime boundary, SimTime work) override {
      loop_.st_.count_training(boundary - start, work, clock->stall(work));
      loop_.after_training(boundary);
      loop_.policy_.note_completed(*clock, work, lineage0, loop_.st_);
    }
    bool resume_after_pause(SimTime resume, std::int64_t done, SimTime work) override {
      for (auto& m : loop_.mechanisms_) m->during_pause(loop_.st_, resume);
      loop_.st_.failures.pause_until(resume);
      n0 += done;
      lineage0 = lineage0 + work;
      start = resume;
      if (resume < run_end) return true;
      loop_.st_.end_run(run_end, n0, !loop_.s_.run.iterations);
      return false;
    }

   private:
    ReplicaLoop& loop_;
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

  /// The first of the mechanisms' shortcuts (recovery_mechanism.hpp): every mechanism is asked.
  EpisodeShortcut instead_of_waiting(SimTime saved) {
    EpisodeShortcut first;
    for (auto& m : mechanisms_) {
      const EpisodeShortcut s = m->instead_of_waiting(st_, saved);
      if (first.machines_out == 0) first = s;
    }
    return first;
  }

  /// Counts the failure and, for hardware, empties its machines and requests their replacements.
  void apply_failure(const FailureEvent& f) {
    st_.failures.pull();
    for (auto& m : mechanisms_) m->on_failure(st_, f);
    policy_.on_failure(f);
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
    const RestartModel::Restart restart = restarts_.restart(f, spare);
    st_.episode.restart = std::max(st_.episode.restart, restart.latency);
    st_.episode.restart_tier = std::max(st_.episode.restart_tier, restart.tier);
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
    policy_.on_episode_start();
    ++st_.result.episodes;
    apply_failure(first);
    SimTime start = first.time;
    int cause = first.cause;
    SimTime detection = restarts_.detection(first);
    SimTime retrieval_spent;
    auto& b = st_.result.breakdown;
    for (;;) {
      const RecoveryTarget chosen = st_.episode.corruption ? policy_.choose_clean(st_) : policy_.choose_target(st_);
      const Version target = chosen.state;
      const RecoveryTier tier = chosen.tier;
      const SimTime detected = start + detection;
      // The policy may use the wait for a save first (just-in-time: the surviving replicas save
      // over [detected, saved), while the replacements are on their way).
      const SimTime saved = policy_.saved_at(st_, detected);
      // A mechanism may restart without the machines still awaited instead of waiting
      // (elastic restart, failure/elastic.hpp).
      const EpisodeShortcut shortcut = mechanisms_.empty() ? EpisodeShortcut{} : instead_of_waiting(saved);
      // Saturating after a replacement that may never come (lognormal); the horizon check
      // (run_horizon.hpp) keeps every other sum of the episode within the clock.
      const SimTime replaced = shortcut.machines_out > 0 ? saved : std::max(saved, st_.episode.replacements_ready);
      const SimTime retrieved = saturating_add(replaced, saturating_add(retrieval_time(tier), shortcut.reshard));
      const SimTime restarted = saturating_add(retrieved, st_.episode.restart);
      SimTime stop = restarted;
      bool interrupted = false;
      for (auto& m : mechanisms_) m->while_down(st_, std::min(restarted, end_time));
      if (st_.failures.before(stop)) {
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
      policy_.on_recovered(st_, target);
      for (auto& m : mechanisms_) m->on_recovered(st_, CompletedRecovery{target, tier, first.cause, restarted});
      // Recovering to an older state discards newer persistent/in-memory versions' relevance:
      // the persistent state stays (it is still in storage); the in-memory ones are kept only
      // after a memory recovery. Multi-level after a peer recovery: the replaced machines got
      // their shards from their partners into GPU memory but hold no level-1 copy of their own
      // until the next level-1 checkpoint completes, so local_lost stays set and a failure
      // before then recovers from a peer again (docs/models.md; GEMINI's rule for memory).
      if (tier == RecoveryTier::storage || tier == RecoveryTier::scratch) {
        st_.states.memory.reset();
        st_.states.partner.reset();
        ++st_.persistent_recoveries;
      }
      return Outcome{target, retrieval_spent, restarted, false, tier, restarted - first.time};
    }
  }

  SegmentPattern pattern_;
  Policy policy_;
  Segment segment_;
};

/// One replica under `Policy`: closed form, or iteration by iteration (--exact).
template <typename Policy, typename Clock, typename SteppedClockType>
ReplicaResult simulate_replica(const ReplicaInputs& in, std::uint64_t replica, AdvanceMode mode) {
  if (mode == AdvanceMode::exact) return ReplicaLoop<Policy, SteppedClockType>(in, replica).run();
  return ReplicaLoop<Policy, Clock>(in, replica).run();
}

}  // namespace ckptsim
