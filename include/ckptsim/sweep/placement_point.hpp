#pragma once
// The result of a sweep point whose command is "placement": the probability of recovering every
// checkpoint from CPU memory after k simultaneous machine failures, for the scenario's own
// placement (cluster.machines N, strategy.replicas m, strategy.placement, run.seed for random),
// for k = 0..min(N, kPlacementPointMaxFailures). Same models as `ckptsim placement`
// (analysis/recovery_probability.hpp):
//   P_k = G_k / C(N, k), G_k the failure sets of size k that leave every checkpoint a holder
//   (exact counting where a method exists; otherwise Monte Carlo over the first failures of a
//   uniform random order, kPlacementPointSamples samples, 95% Wilson intervals);
//   expected_storage_machines_k = N (1 - P_k) (GEMINI restarts every machine from storage when
//   any checkpoint is lost); CPU memory per machine = 2 x max shards per machine x shard bytes.
// Work is estimated first, as `ckptsim placement` estimates it (analysis/placement_work.hpp); a
// point beyond docs/limits.md is an invalid point (LimitError), never a hang.
#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim::sweep {

inline constexpr int kPlacementPointMaxFailures = 16;
inline constexpr int kPlacementPointSamples = 10000;

/// {"scheme", "machines", "replicas", "method", "exact", "k", "probability", ("ci95_low",
/// "ci95_high" when estimated), "expected_storage_machines", "shards_per_machine",
/// "cpu_memory_per_machine_bytes"}; arrays are indexed by k. `shard_bytes`: checkpoint bytes per
/// machine. Throws PlacementError (a ModelError) when the scheme cannot place m replicas on N,
/// LimitError (ending with `way_out`) beyond the work limits of `ckptsim placement`.
nlohmann::json placement_point_json(const Scenario& scenario, double shard_bytes, const char* way_out);

}  // namespace ckptsim::sweep
