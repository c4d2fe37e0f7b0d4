// Placement sweep points (placement_point.hpp).
#include "ckptsim/sweep/placement_point.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/erasure_recovery.hpp"
#include "ckptsim/analysis/placement_work.hpp"
#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "ckptsim/scenario/kinds.hpp"

namespace ckptsim::sweep {
namespace {

/// The first `count` entries of `v`, with null for values that are not finite.
nlohmann::json first_values(const std::vector<double>& v, int count) {
  nlohmann::json a = nlohmann::json::array();
  for (int i = 0; i < count && i < static_cast<int>(v.size()); ++i) {
    const double x = v[static_cast<std::size_t>(i)];
    if (std::isfinite(x)) a.push_back(x);
    else a.push_back(nullptr);
  }
  return a;
}

/// The work `ckptsim placement --machines N --replicas m --scheme S` estimates, for this one
/// scheme (analysis/placement_work.hpp), checked before anything is built.
void check_work(const Scenario& scenario, const char* way_out) {
  PlacementWorkRequest work;
  work.machines = scenario.cluster.machines;
  work.replicas = scenario.strategy.replicas;
  work.exact_schemes = scenario.strategy.placement == PlacementScheme::ring ? 0 : 1;
  work.convolution = scenario.strategy.placement == PlacementScheme::random;
  work.machines_input = "/cluster/machines";
  work.replicas_input = "/strategy/replicas";
  work.file = scenario.source_file;
  enforce_work_limits(estimate_placement_work(work), false, way_out);
}

/// Erasure-coded groups: the exact counts Q(x)^(N/g) (analysis/erasure_recovery.hpp) for the
/// first k, memory c g / (g - p) per checkpoint.
nlohmann::json erasure_point_json(const Scenario& scenario, double shard_bytes, int count) {
  const ErasureCode code{scenario.strategy.group_size, scenario.strategy.parity};
  const int machines = scenario.cluster.machines;
  const std::vector<double> p = erasure_recovery_probability(machines, code, count - 1);
  std::vector<double> storage;
  for (const double x : p) storage.push_back(machines * (1.0 - x));
  nlohmann::json j = {{"scheme", name_of(scenario.strategy.placement)},
                      {"machines", machines},
                      {"group_size", code.group_size},
                      {"parity", code.parity},
                      {"k", nlohmann::json::array()},
                      {"shards_per_machine", code.shards_per_machine()},
                      {"cpu_memory_per_machine_bytes", code.cpu_memory_bytes(shard_bytes)},
                      {"method", "erasure-coded closed form"},
                      {"exact", true},
                      {"probability", first_values(p, count)},
                      {"expected_storage_machines", first_values(storage, count)}};
  for (int k = 0; k < count; ++k) j["k"].push_back(k);
  return j;
}

}  // namespace

nlohmann::json placement_point_json(const Scenario& scenario, double shard_bytes, const char* way_out) {
  const int machines = scenario.cluster.machines;
  if (checkpoint_layout(scenario.strategy.kind) == CheckpointLayout::erasure_code)
    return erasure_point_json(scenario, shard_bytes, std::min(machines, kPlacementPointMaxFailures) + 1);
  const int replicas = scenario.strategy.replicas;
  check_work(scenario, way_out);
  const Placement placement =
      make_placement(scenario.strategy.placement, machines, replicas, scenario.run.seed, scenario.strategy.replication_jump);
  const int count = std::min(machines, kPlacementPointMaxFailures) + 1;
  nlohmann::json j = {{"scheme", name_of(scenario.strategy.placement)},
                      {"machines", machines},
                      {"replicas", replicas},
                      {"k", nlohmann::json::array()},
                      {"shards_per_machine", placement.max_shards_per_machine()},
                      {"cpu_memory_per_machine_bytes", placement_cpu_memory_bytes(placement, shard_bytes)}};
  for (int k = 0; k < count; ++k) j["k"].push_back(k);
  if (const auto counts = exact_recovery_counts(placement)) {
    const RecoveryCurve curve = recovery_curve(*counts, placement);
    j["method"] = curve.method;
    j["exact"] = true;
    j["probability"] = first_values(curve.probability, count);
    j["expected_storage_machines"] = first_values(curve.expected_storage_machines, count);
    return j;
  }
  const MonteCarloRecovery mc =
      monte_carlo_recovery_first(placement, kPlacementPointSamples, scenario.run.seed, count - 1);
  std::vector<double> storage;
  for (const double p : mc.probability) storage.push_back(machines * (1.0 - p));
  j["method"] = "monte carlo";
  j["exact"] = false;
  j["probability"] = first_values(mc.probability, count);
  j["ci95_low"] = first_values(mc.ci95_low, count);
  j["ci95_high"] = first_values(mc.ci95_high, count);
  j["expected_storage_machines"] = first_values(storage, count);
  return j;
}

}  // namespace ckptsim::sweep
