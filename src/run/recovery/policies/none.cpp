// Recovery without checkpoints (tier none; strategy none): every failure rolls the run back to
// its initial state, which costs no retrieval (run_model.hpp, "tiers": `scratch`).
#include "../replica_loop.hpp"
#include "policies.hpp"

namespace ckptsim {
namespace {

class NoCheckpointPolicy final : public PolicyBase {
 public:
  NoCheckpointPolicy(const ReplicaInputs& in, ReplicaState&) : PolicyBase(in.costs) {}
  template <typename Clock>
  void note_completed(const Clock&, SimTime, SimTime, ReplicaState&) {}
  template <typename Clock>
  CleanStates clean_states(const Clock&, SimTime, SimTime, const ReplicaState&) const {
    return {};
  }
  /// The initial state (a silent corruption's rollback may have left a persistent state: none here).
  [[nodiscard]] RecoveryTarget choose_target(const ReplicaState& st) const { return persistent_or_scratch(st); }
};

SegmentPattern no_checkpoint_pattern(const StrategyCosts& c) { return SegmentPattern::periodic(c, {}); }

void no_checkpoint_terms(const Scenario&, const StrategyCosts&, std::vector<HorizonTerm>&) {}

}  // namespace

const RecoveryPolicyRow& no_checkpoint_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::none,
                                     "none",
                                     &simulate_replica<NoCheckpointPolicy, SegmentClock, SteppedClock>,
                                     &no_checkpoint_pattern,
                                     &segment_failure_free,
                                     false,
                                     false,
                                     &no_retrieval,
                                     &no_checkpoint_terms};
  return row;
}

}  // namespace ckptsim
