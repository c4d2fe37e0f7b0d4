// Asynchronous islands (tier islands: diloco; run/strategies/diloco.cpp, docs/models.md
// "Asynchronous islands"). The job trains as G islands of N / G machines in rounds: H inner
// steps of T on each island alone, L = H T, then an outer synchronization at which the islands
// of the round all-reduce their pseudo-gradients (A_H) and commit. Healthy work is counted in
// island-time: an island's inner steps are 1 / G of the job's rate.
//
// A failure of machine j hits island j / (N / G) (a failure domain: every island it touches):
//   - the island loses its inner steps since the round began (TorchFT's DiLoCo restores the
//     parameters of the last synchronization: torchft/local_sgd.py), its own share only;
//   - it is out for the detection D, the replacement (hardware: a standby at once if free) and
//     its restart (the restart model's, the phases at the island's ranks), and rejoins at the
//     first synchronization whose quorum forms after that: the lighthouse issues a quorum from
//     the replicas that joined it (src/lighthouse.rs quorum_compute);
//   - the others do not stop. At the next synchronization the quorum has changed: the lighthouse
//     leaves the failed island out once its heartbeat has stopped for heartbeat_timeout, so the
//     synchronization starts no earlier than the failure + heartbeat_timeout, and every island
//     waits for the process group's reconfiguration Q (Manager._async_quorum configures it on
//     every quorum change); the same Q when an island rejoins, plus its heal: DiLoCo runs
//     TorchFT's Manager with a synchronous quorum (use_async_quorum=False), so start_quorum
//     returns once the live peer has sent the state (send_checkpoint) and the all-reduce that
//     follows needs that peer: every island waits for the heal;
//   - a synchronization needs min_groups islands (lighthouse --min_replicas): below it every
//     island waits at the quorum for the next one to be ready;
//   - a failure of an island of the quorum during the synchronization (quorum formed, heal or
//     all-reduce in flight) fails should_commit for all: every island restores the parameters of
//     the last synchronization, losing the round (torchft/local_sgd.py perform_sync), and they
//     resume after max(heartbeat_timeout, min(D, step_timeout)) with a new round.
// Accounting (every part in exact int64 ns; the parts add up to the wall time):
//   compute    = island-time of inner steps / G;  training = committed island-time / G
//   degraded   = inner-phase wall - compute (the absent islands' share of the samples)
//   lost_progress = compute - training (the rounds failures discarded)
//   checkpoint_stall = the A_H of every synchronization; retrieval = the heals every island waits
//   for; detection = the waits for the lighthouse, the reconfigurations and a failed commit.
// Uneventful rounds (no failure, nobody to rejoin, the quorum unchanged) are committed in one
// step: O(1) per stretch between failures, O(islands out) per failure; nothing per machine.
// At the end of a run given as a duration, the round in progress counts as training (its islands
// hold it; the final synchronization is not charged). Not modelled: the islands' staleness's
// effect on model quality (every inner step counts as a step of synchronous training); a
// restarted island's local steps before the synchronization it joins (it idles until then; TorchFT's
// example trains them and discards them when it heals, which costs the same); the lighthouse's
// join_timeout wait for an island that heartbeats but has not joined; every island out at once
// (the model waits for the first to be ready instead of restarting from a checkpoint).
#include <algorithm>
#include <optional>
#include <vector>

#include "ckptsim/core/checked_time.hpp"

#include "../replica_loop.hpp"
#include "policies.hpp"
#include "replica_groups.hpp"

namespace ckptsim {
namespace {

/// The islands' pattern: T, a round of k = H steps, and the outer synchronization A_H as its stall
/// (no checkpoints: the pattern only says how long rounds are).
SegmentPattern islands_pattern(const StrategyCosts& c) {
  SegmentPattern p = SegmentPattern::periodic(c, {});
  p.every = std::max<std::int64_t>(1, c.sync_every);
  p.stall = c.outer_sync;
  return p;
}

/// The failure-free length of `iterations`: whole rounds of H T + A_H, saturating.
SimTime islands_failure_free(const SegmentPattern& p, std::int64_t iterations) {
  const std::int64_t rounds = (iterations + p.every - 1) / p.every;
  const SimTime cycle = saturating_add(p.iteration * p.every, p.stall);
  return rounds > 0 && cycle.ns() > SimTime::max().ns() / rounds ? SimTime::max() : cycle * rounds;
}

class IslandsLoop final : public ReplicaRun {
 public:
  IslandsLoop(const ReplicaInputs& in, std::uint64_t replica)
      : ReplicaRun(in, replica),
        groups_(std::max(1, c_.replica_groups)),
        per_group_(std::max(1, s_.cluster.machines / groups_)),
        round_(checked_multiply(c_.iteration_time, std::max<std::int64_t>(1, c_.sync_every), "/strategy/sync_every",
                                "the inner steps of one round")),
        live_(static_cast<std::size_t>(groups_), 1),
        live_count_(groups_) {}

  ReplicaResult run() {
    const std::int64_t target = s_.run.iterations.value_or(0);
    const SimTime end_time = run_end_bound(s_, islands_failure_free(islands_pattern(c_), target));
    const SimTime cycle = saturating_add(round_, c_.outer_sync);
    SimTime t;
    for (;;) {
      if (target_reached(target)) break;
      // Uneventful rounds at once: all of them before the next failure, the next island ready to
      // rejoin and the run's end, up to the iteration target.
      if (!changed_ && live_count_ >= c_.min_groups) {
        SimTime next = end_time;
        if (st_.failures.any()) next = std::min(next, st_.failures.next().time);
        for (const auto& o : out_) next = std::min(next, o.ready);
        std::int64_t rounds = next > t ? (next - t).ns() / cycle.ns() : 0;
        if (s_.run.iterations && live_count_ > 0) {
          const WideNs per_round = static_cast<WideNs>(live_count_) * round_.ns();
          const WideNs missing = static_cast<WideNs>(target) * c_.iteration_time.ns() * groups_ - kept_;
          rounds = std::min<std::int64_t>(rounds, static_cast<std::int64_t>((missing + per_round - 1) / per_round));
        }
        if (rounds > 0) {
          const WideNs work = static_cast<WideNs>(rounds) * live_count_ * round_.ns();
          worked_ += work;
          kept_ += work;
          inner_wall_ += round_ * rounds;
          stall_ += c_.outer_sync * rounds;
          t += cycle * rounds;
          continue;
        }
      }
      const std::optional<SimTime> next = one_round(t, end_time);
      if (!next) break;
      t = *next;
    }
    return finish(target);
  }

 private:
  struct Out {
    int island;
    SimTime ready;  ///< restarted, ready to join a quorum
  };

  [[nodiscard]] bool target_reached(std::int64_t target) const {
    return s_.run.iterations && kept_ >= static_cast<WideNs>(target) * c_.iteration_time.ns() * groups_;
  }

  /// One round from t with its events; the next round's start, or nothing when the run ended.
  std::optional<SimTime> one_round(SimTime t, SimTime end_time) {
    round_start_ = t;
    inner_done_ = false;
    const SimTime sync_start = saturating_add(t, round_);
    // The inner steps: failures take their islands out.
    while (st_.failures.before(std::min(sync_start, end_time))) apply_failure(pull());
    if (end_time <= sync_start) {
      // The run ends in the inner steps: the round in progress counts as training (header).
      const WideNs work = static_cast<WideNs>(live_count_) * (end_time - t).ns();
      worked_ += work;
      kept_ += work;
      inner_wall_ += end_time - t;
      wall_ = end_time;
      return std::nullopt;
    }
    inner_done_ = true;
    worked_ += static_cast<WideNs>(live_count_) * round_.ns();
    inner_wall_ += round_;
    // The quorum: not before the lighthouse has dropped the islands that left, and with enough
    // islands (waiting for the next to be ready, failures in the wait taking theirs out).
    SimTime q = sync_start;
    if (changed_) q = std::max(q, saturating_add(last_departure_, c_.heartbeat_timeout));
    for (;;) {
      while (st_.failures.before(std::min(q, end_time))) {
        const FailureEvent f = pull();
        if (apply_failure(f)) q = std::max(q, saturating_add(f.time, c_.heartbeat_timeout));
      }
      if (q >= end_time) return end_in_sync(sync_start, end_time, {end_time, end_time, end_time});
      const int ready = static_cast<int>(std::count_if(out_.begin(), out_.end(), [&](const Out& o) { return o.ready <= q; }));
      if (live_count_ + ready >= c_.min_groups && live_count_ + ready > 0) break;
      SimTime next = SimTime::max();
      for (const auto& o : out_)
        if (o.ready > q) next = std::min(next, o.ready);
      q = next;
    }
    // Joiners heal at this synchronization; a changed quorum reconfigures.
    joining_.clear();
    std::erase_if(out_, [&](const Out& o) {
      if (o.ready > q) return false;
      joining_.push_back(o.island);
      return true;
    });
    const bool reconfigure = changed_ || !joining_.empty();
    const SimTime configured = reconfigure ? saturating_add(q, c_.reconfigure) : q;
    const SimTime healed = joining_.empty() ? configured : saturating_add(configured, c_.heal);
    const SimTime sync_end = saturating_add(healed, c_.outer_sync);
    // A failure of an island of the quorum before the commit fails it for every island.
    while (st_.failures.before(std::min(sync_end, end_time))) {
      const FailureEvent f = pull();
      if (in_quorum(f)) return failed_commit(f, sync_start, end_time);
      apply_failure(f);
    }
    if (end_time < sync_end) return end_in_sync(sync_start, end_time, {q, configured, healed});
    commit(sync_start, {q, configured, healed}, sync_end);
    return sync_end;
  }

  /// The instants a synchronization passes: the quorum formed, the group configured, the heal done.
  struct SyncMarks {
    SimTime quorum;
    SimTime configured;
    SimTime healed;
  };

  /// The synchronization's waits into the breakdown, up to `until`.
  void count_sync(SimTime sync_start, const SyncMarks& m, SimTime until) {
    detection_ += std::min(m.configured, until) - sync_start;
    retrieval_ += std::max(SimTime::zero(), std::min(m.healed, until) - std::min(m.configured, until));
    stall_ += std::max(SimTime::zero(), until - std::min(m.healed, until));
  }

  /// The round commits: the islands of its quorum that trained it keep their steps; the joiners
  /// train from the next round on.
  void commit(SimTime sync_start, const SyncMarks& m, SimTime sync_end) {
    kept_ += static_cast<WideNs>(live_count_) * round_.ns();
    count_sync(sync_start, m, sync_end);
    for (int g : joining_) live_[static_cast<std::size_t>(g)] = 1;
    live_count_ += static_cast<int>(joining_.size());
    joining_.clear();
    changed_ = false;
  }

  /// The run ends during a synchronization: the round counts as training (header).
  std::optional<SimTime> end_in_sync(SimTime sync_start, SimTime end_time, const SyncMarks& m) {
    kept_ += static_cast<WideNs>(live_count_) * round_.ns();
    count_sync(sync_start, m, end_time);
    wall_ = end_time;
    return std::nullopt;
  }

  /// An island of the quorum failed before the commit: every island loses the round and waits
  /// max(heartbeat_timeout, min(D, step_timeout)) from the failure (header).
  std::optional<SimTime> failed_commit(const FailureEvent& f, SimTime sync_start, SimTime end_time) {
    const SimTime resume = std::min(end_time, saturating_add(f.time, quorum_wait(c_, restarts_.detection(f))));
    apply_failure(f);  // the failed island's own round
    // The other trainers' rounds.
    const SimTime lost = SimTime::from_ns(static_cast<std::int64_t>(static_cast<WideNs>(live_count_) * round_.ns() / groups_));
    st_.cause_lost(f.cause) += lost + (resume - sync_start);
    st_.result.wasted_time += lost;
    detection_ += resume - sync_start;
    // The joiners hold the state of the last synchronization, which every island restores.
    for (int g : joining_) live_[static_cast<std::size_t>(g)] = 1;
    live_count_ += static_cast<int>(joining_.size());
    joining_.clear();
    if (resume >= end_time) {
      wall_ = end_time;
      return std::nullopt;
    }
    return resume;
  }

  FailureEvent pull() {
    const FailureEvent f = st_.failures.next();
    st_.failures.pull();
    return f;
  }

  /// Failure f hits an island of the synchronization's quorum (a trainer of the round or a joiner).
  [[nodiscard]] bool in_quorum(const FailureEvent& f) const {
    for (int g = first_island(f); g <= last_island(f); ++g)
      if (live_[static_cast<std::size_t>(g)] || std::find(joining_.begin(), joining_.end(), g) != joining_.end()) return true;
    return false;
  }
  [[nodiscard]] int first_island(const FailureEvent& f) const { return std::min(groups_ - 1, f.machine / per_group_); }
  [[nodiscard]] int last_island(const FailureEvent& f) const {
    return std::min(groups_ - 1, (f.machine + f.machines - 1) / per_group_);
  }

  /// Failure f takes its islands out until restarted (a second failure of an island already out
  /// moves its readiness to the later of the two). True when it hit a trainer of the round.
  bool apply_failure(const FailureEvent& f) {
    const SimTime ready = group_restarted_at(st_, restarts_, f, saturating_add(f.time, restarts_.detection(f)));
    bool hit_live = false;
    for (int g = first_island(f); g <= last_island(f); ++g) {
      auto& live = live_[static_cast<std::size_t>(g)];
      if (live) {
        // Its steps of the round so far are lost (counted as compute, never kept).
        const SimTime did = inner_done_ ? SimTime::zero() : std::max(SimTime::zero(), f.time - round_start_);
        worked_ += did.ns();
        const SimTime lost = inner_done_ ? round_ : did;
        const SimTime share = SimTime::from_ns(lost.ns() / groups_);
        st_.cause_lost(f.cause) += share;
        st_.result.wasted_time += share;
        live = 0;
        --live_count_;
        changed_ = true;
        last_departure_ = std::max(last_departure_, f.time);
        hit_live = true;
      }
      std::erase(joining_, g);
      take_out(g, ready);
    }
    return hit_live;
  }

  void take_out(int island, SimTime ready) {
    for (auto& o : out_)
      if (o.island == island) {
        o.ready = std::max(o.ready, ready);
        return;
      }
    out_.push_back(Out{island, ready});
  }

  ReplicaResult finish(std::int64_t target) {
    const SimTime wall = wall_.value_or(inner_wall_ + detection_ + retrieval_ + stall_);
    const SimTime compute = SimTime::from_ns(static_cast<std::int64_t>(worked_ / groups_));
    const SimTime kept = SimTime::from_ns(static_cast<std::int64_t>(kept_ / groups_));
    const std::int64_t iterations = kept.ns() / c_.iteration_time.ns();
    st_.end_run(wall, iterations, !s_.run.iterations || iterations >= target);
    st_.partial_training = kept - c_.iteration_time * iterations;
    st_.compute = compute;
    auto& b = st_.result.breakdown;
    b.training = kept;
    b.lost_progress = compute - kept;
    b.degraded = inner_wall_ - compute;
    b.checkpoint_stall = stall_;
    b.detection = detection_;
    b.retrieval = retrieval_;
    return std::move(st_.result);
  }

  int groups_;
  int per_group_;
  SimTime round_;                 ///< L = H T
  std::vector<char> live_;        ///< island trains the current round (G entries, not N)
  int live_count_;
  std::vector<Out> out_;          ///< islands out, at most one entry each
  std::vector<int> joining_;      ///< islands rejoining at the synchronization in progress
  bool changed_ = false;          ///< an island left the quorum since the last synchronization
  SimTime last_departure_;        ///< the latest failure of a trainer of the round
  SimTime round_start_;
  bool inner_done_ = false;       ///< the round's inner steps are over (its trainers did all L)
  WideNs worked_ = 0;             ///< island-time of inner steps done
  WideNs kept_ = 0;               ///< island-time committed
  SimTime inner_wall_, detection_, retrieval_, stall_;
  std::optional<SimTime> wall_;  ///< the run's end, when it came before the target
};

ReplicaResult simulate_islands(const ReplicaInputs& in, std::uint64_t replica, AdvanceMode) {
  return IslandsLoop(in, replica).run();
}

/// The heal, the heartbeat timeout and the outer synchronization.
void islands_terms(const Scenario& s, const StrategyCosts& c, std::vector<HorizonTerm>& terms) {
  terms.push_back({s.strategy.heal_bandwidth ? "/strategy/heal_bandwidth" : "/cluster/network_bandwidth",
                   "an island's heal", c.heal});
  terms.push_back({"/strategy/heartbeat_timeout", "the heartbeat timeout", c.heartbeat_timeout});
  terms.push_back({"/strategy/sync_every", "the outer synchronization", c.outer_sync});
}

}  // namespace

const RecoveryPolicyRow& islands_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::islands,
                                     "islands",
                                     &simulate_islands,
                                     &islands_pattern,
                                     &islands_failure_free,
                                     false,
                                     false,
                                     &no_retrieval,
                                     &islands_terms};
  return row;
}

}  // namespace ckptsim
