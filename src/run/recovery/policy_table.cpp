// The table of recovery policies (run/recovery/recovery_policy.hpp): one row per CheckpointTier,
// in enum order, and the shared pieces the rows use.
#include "ckptsim/run/recovery/recovery_policy.hpp"

#include <array>
#include <stdexcept>

#include "policies/policies.hpp"

namespace ckptsim {

SimTime segment_failure_free(const SegmentPattern& pattern, std::int64_t iterations) {
  return SegmentClock(pattern, 0).time_to_complete(iterations);
}

HorizonTerm no_retrieval(const StrategyCosts&) { return {"", "", SimTime::zero()}; }

namespace {

const std::array<const RecoveryPolicyRow*, 8>& policy_rows() {
  static const std::array<const RecoveryPolicyRow*, 8> rows{
      &no_checkpoint_policy(), &memory_policy(),   &storage_policy(),
      &multi_level_policy(),   &per_step_policy(), &just_in_time_policy(), &islands_policy(), &shadow_policy(),
  };
  static const bool in_order = [] {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (static_cast<std::size_t>(rows[i]->tier) != i)
        throw std::logic_error("recovery policy table out of CheckpointTier order");
    return true;
  }();
  (void)in_order;
  return rows;
}

}  // namespace

static_assert(static_cast<std::size_t>(CheckpointTier::shadow) + 1 == 8, "a CheckpointTier without a recovery policy");

const RecoveryPolicyRow& recovery_policy(CheckpointTier tier) { return *policy_rows().at(static_cast<std::size_t>(tier)); }

}  // namespace ckptsim
