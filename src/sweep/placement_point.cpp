// Placement sweep points (placement_point.hpp).
#include "ckptsim/sweep/placement_point.hpp"

#include <algorithm>
#include <cmath>

#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/core/work_limits.hpp"
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

/// The exact counts' memory (two rows of N+1 integers of up to N bits, as `ckptsim placement`
/// estimates them) and the placement's holder sets, checked before anything is built.
void check_work(int machines, int replicas) {
  const double n = machines;
  enforce_work_limits({{"/cluster/machines", "the placement", n * (8.0 * replicas + 64.0), kMaxMemoryBytes, "bytes"},
                       {"/cluster/machines", "the exact recovery counts", 2.0 * (n + 1) * (n / 8 + 16), kMaxMemoryBytes,
                        "bytes"}},
                      false);
}

}  // namespace

nlohmann::json placement_point_json(const Scenario& scenario, double shard_bytes) {
  const int machines = scenario.cluster.machines;
  const int replicas = scenario.strategy.replicas;
  check_work(machines, replicas);
  const Placement placement = make_placement(scenario.strategy.placement, machines, replicas, scenario.run.seed);
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
