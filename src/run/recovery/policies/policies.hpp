#pragma once
// The recovery policies (run/recovery/recovery_policy.hpp), one unit per CheckpointTier in this
// folder: each file defines the function that returns its row of the policy table.
#include "ckptsim/run/recovery/recovery_policy.hpp"

namespace ckptsim {

const RecoveryPolicyRow& no_checkpoint_policy();
const RecoveryPolicyRow& memory_policy();
const RecoveryPolicyRow& storage_policy();
const RecoveryPolicyRow& multi_level_policy();
const RecoveryPolicyRow& per_step_policy();
const RecoveryPolicyRow& just_in_time_policy();
const RecoveryPolicyRow& islands_policy();
const RecoveryPolicyRow& shadow_policy();

/// The failure-free time of `iterations` on the segment clock (every tier but multi-level).
SimTime segment_failure_free(const SegmentPattern& pattern, std::int64_t iterations);

/// No retrieval term (a tier that takes no checkpoints).
HorizonTerm no_retrieval(const StrategyCosts& costs);

}  // namespace ckptsim
