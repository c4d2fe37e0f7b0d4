// Per-step fault tolerance (tier per_step: torchft; group_outages.hpp, docs/models.md): the job
// never stops for a failure. A failure of machine j takes its replica group (j / (N / G)) out of
// the quorum; the step in flight is discarded by every group (its work is lost progress) and
// every group waits W = max(heartbeat_timeout, min(detection, step_timeout)) + 2 reconfigure after
// the failure before the next quorum; each step takes T + F (F torchft's cost per step, counted as
// checkpoint_stall); then the others train on while the group waits for its replacement
// (hardware: a standby at once if free), restarts (the restart model's warm-up) and heals (copies
// the state from a live peer, H), then rejoins. No checkpoint is needed while one group is alive.
// Its own loop: no training segment, no recovery target; of the mechanisms only those that act
// on an announced failure of a group's machine are asked (live migration).
#include <algorithm>

#include "ckptsim/core/checked_time.hpp"

#include "../replica_loop.hpp"
#include "policies.hpp"
#include "replica_groups.hpp"

namespace ckptsim {
namespace {

class PerStepLoop final : public ReplicaRun {
 public:
  PerStepLoop(const ReplicaInputs& in, std::uint64_t replica) : ReplicaRun(in, replica) {}

  ReplicaResult run() {
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
    auto& b = st_.result.breakdown;
    SlowWindows& slow = st_.rate.stragglers();
    const auto work_over = [&](SimTime from, SimTime to) { return out.work(from, to, slow.windows(from, to), slow.speed()); };
    for (;;) {
      SimTime stop = end_time;
      const bool failure = st_.failures.before(end_time);
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
        st_.end_run(stop, work.ns() / t_iter.ns(), !s_.run.iterations || work.ns() / t_iter.ns() >= target);
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
      apply_failure(f, out, per_group);
      // The step in flight is discarded: progress falls back to the last whole iteration.
      const SimTime kept = t_iter * (work.ns() / t_iter.ns());
      st_.cause_lost(f.cause) += work - kept;
      st_.result.wasted_time += work - kept;
      work = kept;
      // Every group waits (no work, ends the run if it comes first): until the failed step's
      // collective errors out (the failure's detection) or times out, and the lighthouse has
      // dropped the failed group (heartbeat timeout), whichever is later.
      const SimTime resumed = std::max(stop, std::min(end_time, saturating_add(f.time, wait_after(f))));
      b.detection += resumed - stop;
      st_.cause_lost(f.cause) += resumed - stop;
      t = resumed;
      if (resumed == end_time) {
        st_.end_run(end_time, work.ns() / t_iter.ns(), !s_.run.iterations);
        break;
      }
    }
    // Of the steps kept, F / (T + F) is fault-tolerance time (the partial step's share too).
    const SimTime kept_steps = t_iter * st_.result.iterations + st_.partial_training;
    const SimTime ft_time = c_.ft_step > SimTime::zero()
                                ? c_.ft_step * st_.result.iterations +
                                      SimTime::from_ns(static_cast<std::int64_t>(
                                          static_cast<long double>(st_.partial_training.ns()) * c_.ft_step.ns() / t_iter.ns()))
                                : SimTime::zero();
    b.checkpoint_stall = ft_time;
    b.training = kept_steps - ft_time;
    b.lost_progress = st_.compute - kept_steps;
    return std::move(st_.result);
  }

 private:
  /// A mechanism averts the announced failure of a machine of `group` (its group leaves the
  /// quorum at `at` instead).
  bool averted_in_group(GroupOutages& out, int group, SimTime at) {
    for (auto& m : mechanisms_)
      if (m->on_predicted_group_failure(st_, out, group, at)) return true;
    return false;
  }

  /// How long after failure f every group waits before the next quorum,
  /// max(heartbeat_timeout, min(detection, step_timeout)) (run/strategies/torchft.cpp), plus the
  /// cross-group communicator's two reconfigurations (the group leaves and rejoins).
  SimTime wait_after(const FailureEvent& f) const {
    return saturating_add(quorum_wait(c_, restarts_.detection(f)), c_.reconfigure * 2);
  }

  /// A failure: its groups leave the quorum until healed.
  void apply_failure(const FailureEvent& f, GroupOutages& out, int per_group) {
    st_.failures.pull();
    const SimTime restarted = group_restarted_at(st_, restarts_, f, saturating_add(f.time, wait_after(f)));
    const SimTime rejoin = saturating_add(restarted, c_.heal);
    const int first = std::min(out.groups() - 1, f.machine / per_group);
    const int last = std::min(out.groups() - 1, (f.machine + f.machines - 1) / per_group);
    for (int g = first; g <= last; ++g) out.take_out(g, f.time, rejoin);
  }
};

ReplicaResult simulate_per_step(const ReplicaInputs& in, std::uint64_t replica, AdvanceMode) {
  return PerStepLoop(in, replica).run();
}

SegmentPattern per_step_pattern(const StrategyCosts& c) { return SegmentPattern::periodic(c, {}); }

/// The heal field: strategy.heal_bandwidth when given, else the NIC's.
void per_step_terms(const Scenario& s, const StrategyCosts& c, std::vector<HorizonTerm>& terms) {
  terms.push_back({s.strategy.heal_bandwidth ? "/strategy/heal_bandwidth" : "/cluster/network_bandwidth",
                   "a replica group's heal", c.heal});
  terms.push_back({"/strategy/heartbeat_timeout", "the heartbeat timeout", c.heartbeat_timeout});
}

}  // namespace

const RecoveryPolicyRow& per_step_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::per_step,
                                     "per-step",
                                     &simulate_per_step,
                                     &per_step_pattern,
                                     &segment_failure_free,
                                     false,
                                     false,
                                     &no_retrieval,
                                     &per_step_terms};
  return row;
}

}  // namespace ckptsim
