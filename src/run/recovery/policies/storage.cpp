// Recovery from storage (tier storage: remote-periodic, remote-highfreq, async-two-phase to
// storage; run_model.hpp, "tiers"): the latest checkpoint in storage (`storage`), else the
// initial state (`scratch`). With strategy.adaptive_interval the checkpoint period follows Daly's
// interval for every failure seen so far and the checkpoint's stall (interval_policy.hpp).
#include "ckptsim/run/interval_policy.hpp"

#include "../replica_loop.hpp"
#include "policies.hpp"

namespace ckptsim {
namespace {

class StoragePolicy final : public PolicyBase {
 public:
  StoragePolicy(const ReplicaInputs& in, ReplicaState&) : PolicyBase(in.costs) {}

  /// The adaptive period (interval_policy.hpp): every failure, the checkpoint's stall, in
  /// iterations; capped at the run's end (a longer one never checkpoints within it).
  void adapt_period(SegmentPattern& p, const ReplicaState& st, SimTime t, SimTime end) {
    if (!c_.adaptive_interval) return;
    p.every = adaptive_period_iterations(c_.stall, c_.iteration_time, 1, st.result.failures(), t, c_.adaptive_prior_mtbf, end);
  }

  template <typename Clock>
  void note_completed(const Clock& clock, SimTime e, SimTime lineage0, ReplicaState& st) {
    if (auto ck = clock.latest_checkpoint(e)) st.states.persistent = version_of(*ck, lineage0);
  }

  template <typename Clock>
  CleanStates clean_states(const Clock& clock, SimTime e, SimTime lineage0, const ReplicaState& st) const {
    return {std::nullopt, newest(clock.latest_checkpoint(e), st.states.persistent, lineage0)};
  }

  [[nodiscard]] RecoveryTarget choose_target(const ReplicaState& st) const { return persistent_or_scratch(st); }

  [[nodiscard]] std::int64_t final_persistent_every(const SegmentPattern& p) const { return p.every; }
};

SegmentPattern storage_pattern(const StrategyCosts& c) { return SegmentPattern::periodic(c, {true, false, false}); }

void storage_terms(const Scenario& s, const StrategyCosts& c, std::vector<HorizonTerm>& terms) {
  checkpoint_horizon_terms(s, c, c.stall, terms);
}

}  // namespace

const RecoveryPolicyRow& storage_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::storage,
                                     "storage",
                                     &simulate_replica<StoragePolicy, SegmentClock, SteppedClock>,
                                     &storage_pattern,
                                     &segment_failure_free,
                                     false,
                                     true,
                                     &storage_retrieval,
                                     &storage_terms};
  return row;
}

}  // namespace ckptsim
