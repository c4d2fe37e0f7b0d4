// Recovery under multi-level checkpointing (tier multi_level; level_clock.hpp, run_model.hpp,
// "tiers"): the cheapest level that survived. Level 1 (`local`) unless some machine lost its CPU
// memory since the latest level-1 completion; then level 2 (`peer`) unless every holder of some
// machine's partner copies was replaced since the latest level-2 completion; then level 3
// (`storage`); else the initial state. The levels nest (a level-2 checkpoint is a level-1 one
// too), so the cheapest surviving level is also the newest surviving state. A level-1 (or
// higher) completion restores every machine's local copy; a level-2 (or higher) completion
// refills the partner copies. With strategy.adaptive_interval the level-3 period follows Daly's
// interval for the failures no memory level could absorb and the level-3 cost above level 2, in
// multiples of the level-2 period (interval_policy.hpp).
#include <algorithm>

#include "ckptsim/run/interval_policy.hpp"
#include "ckptsim/run/level_clock.hpp"

#include "../replica_loop.hpp"
#include "policies.hpp"

namespace ckptsim {
namespace {

class MultiLevelPolicy final : public PolicyBase {
 public:
  MultiLevelPolicy(const ReplicaInputs& in, ReplicaState&) : PolicyBase(in.costs) {}

  void adapt_period(SegmentPattern& p, const ReplicaState& st, SimTime t, SimTime end) {
    if (!c_.adaptive_interval || p.persistent_every <= 0) return;
    p.persistent_every = adaptive_period_iterations(c_.persistent_stall - c_.partner_stall, c_.iteration_time,
                                                    c_.partner_every_iterations, st.persistent_recoveries, t,
                                                    c_.adaptive_prior_mtbf, end);
  }

  template <typename Clock>
  void note_completed(const Clock& clock, SimTime e, SimTime lineage0, ReplicaState& st) {
    const LatestByLevel latest = clock.latest_by_level(e);
    if (const auto& ck = latest[0]) {
      st.states.memory = version_of(*ck, lineage0);
      st.states.local_lost = false;
    }
    if (const auto& ck = latest[1]) {
      st.states.partner = version_of(*ck, lineage0);
      st.memory.refill();
    }
    if (const auto& ck = latest[2]) st.states.persistent = version_of(*ck, lineage0);
  }

  template <typename Clock>
  CleanStates clean_states(const Clock& clock, SimTime e, SimTime lineage0, const ReplicaState& st) const {
    return {std::nullopt, newest(clock.latest_persistent(e), st.states.persistent, lineage0)};
  }

  [[nodiscard]] RecoveryTarget choose_target(const ReplicaState& st) const {
    if (st.states.memory && !st.states.local_lost) return {*st.states.memory, RecoveryTier::local};
    if (st.states.partner && st.memory.recoverable()) return {*st.states.partner, RecoveryTier::peer};
    return persistent_or_scratch(st);
  }
};

SegmentPattern multi_level_pattern(const StrategyCosts& c) { return SegmentPattern::periodic(c, {true, true, true}); }

SimTime multi_level_failure_free(const SegmentPattern& p, std::int64_t iterations) {
  return LevelClock(p, 0).time_to_complete(iterations);
}

void multi_level_terms(const Scenario& s, const StrategyCosts& c, std::vector<HorizonTerm>& terms) {
  checkpoint_horizon_terms(s, c, std::max(c.stall, c.persistent_stall), terms);
}

}  // namespace

const RecoveryPolicyRow& multi_level_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::multi_level,
                                     "multi-level",
                                     &simulate_replica<MultiLevelPolicy, LevelClock, SteppedLevelClock>,
                                     &multi_level_pattern,
                                     &multi_level_failure_free,
                                     true,
                                     true,
                                     &slowest_memory_retrieval,
                                     &multi_level_terms};
  return row;
}

}  // namespace ckptsim
