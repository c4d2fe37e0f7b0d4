#pragma once
// Recovery policies: how a replica recovers under each checkpoint tier (docs/architecture.md,
// "Recovery"). A policy is one unit per CheckpointTier, src/run/recovery/policies/<tier>.cpp,
// and one row of the table of recovery_policy() (src/run/recovery/policy_table.cpp, in enum
// order). The rest of the run layer asks the row, never the tier:
//   simulate        one replica under the tier: the policy's checkpoint tracks (which states a
//                   segment completes, and which it had captured before an instant), the target
//                   an episode recovers to and from where (its retrieval), what a recovery leaves
//                   behind, and its adaptive period, driven by the replica loop
//                   (src/run/recovery/replica_loop.hpp); per-step fault tolerance has a loop of
//                   its own (replica groups out of the quorum, group_outages.hpp);
//   pattern         the tier's checkpoint pattern for the segment clocks (segment_clock.hpp);
//   failure_free    the failure-free time of an iteration target under that pattern;
//   holds_memory_copies  in-memory copies on holders: the run builds the placement;
//   adapts_period   strategy.adaptive_interval moves its period (interval_policy.hpp);
//   slowest_retrieval, extra_horizon_terms  its terms of the worst-case horizon (run_horizon.hpp).
// The closed forms (analysis/analytic_models.cpp) sit in a layer above and keep their own table,
// one family per tier in the same order.
#include <cstdint>
#include <string_view>
#include <vector>

#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/segment_clock.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct ReplicaInputs;  // replica_state.hpp

struct RecoveryPolicyRow {
  CheckpointTier tier;
  std::string_view name;  ///< as reports print the tier
  ReplicaResult (*simulate)(const ReplicaInputs& in, std::uint64_t replica, AdvanceMode mode);
  SegmentPattern (*pattern)(const StrategyCosts& costs);
  SimTime (*failure_free)(const SegmentPattern& pattern, std::int64_t iterations);
  bool holds_memory_copies;
  bool adapts_period;
  /// The slowest retrieval it can use (a zero term when it retrieves nothing).
  HorizonTerm (*slowest_retrieval)(const StrategyCosts& costs);
  /// Its terms after the checkpoint period's (heal, save, stall, completion, upload).
  void (*extra_horizon_terms)(const Scenario& s, const StrategyCosts& costs, std::vector<HorizonTerm>& terms);
};

/// The row of a tier.
const RecoveryPolicyRow& recovery_policy(CheckpointTier tier);

}  // namespace ckptsim
