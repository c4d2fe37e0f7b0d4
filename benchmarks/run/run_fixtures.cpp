// The shared run-model benchmark set-up of run_fixtures.hpp.
#include "run_fixtures.hpp"

#include <utility>

#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/gpu_types.hpp"

namespace ckptsim::bench {

Scenario dgx_h100_scenario(std::string name, int machines) {
  Scenario s;
  s.name = std::move(name);
  s.cluster.machines = machines;
  apply_gpu_type(s.cluster, *find_gpu_type("h100-sxm5-80gb"));
  s.cluster.gpus_per_machine = 8;
  s.cluster.gpu_memory_bytes = 80e9;
  s.cluster.cpu_memory_bytes = 2e12;
  s.cluster.network_bandwidth = 400e9;  // 3.2 Tbps
  s.cluster.gpu_cpu_bandwidth = 50e9;
  s.cluster.nvlink_bandwidth = 900e9;
  s.cluster.gpu_peak_flops = 989e12;
  s.cluster.gpu_memory_bandwidth = 3350e9;  // H100 SXM data sheet: 3.35 TB/s
  s.training.iteration_time = seconds(60);
  s.strategy.kind = StrategyKind::gemini;
  s.strategy.replicas = 2;
  s.strategy.placement = PlacementScheme::group;
  s.strategy.every_iterations = 1;
  s.failures.process = FailureProcessKind::exponential;
  s.failures.replacement.distribution = ReplacementDistribution::uniform;
  s.run.duration = days(30);
  s.run.replicas = 1000;
  return s;
}

Scenario llama3_405b_scenario(std::string name, int machines) {
  Scenario s = dgx_h100_scenario(std::move(name), machines);
  s.cluster.standby_machines = 16;
  s.storage.bandwidth = 200e9;
  s.model.parameters = 405e9;
  s.training.serialization_bandwidth = 2e9;
  const CausePreset* llama = find_cause_preset("llama3-405b");
  s.failures.rate = llama->rate_per_machine;
  s.failures.causes = FailureCauseTable{llama->name, llama->causes};
  return s;
}

void run_replica_batch(benchmark::State& state, const Scenario& scenario) {
  run_replica_batch(state, scenario, compute_strategy_costs(scenario, nullptr));
}

void run_replica_batch(benchmark::State& state, const Scenario& scenario, const StrategyCosts& costs) {
  const RunModel model(scenario, costs);
  MonteCarloOptions options;
  options.replicas = static_cast<int>(state.range(0));
  options.jobs = 1;
  std::int64_t failures = 0;
  for (auto _ : state) {
    const auto results = run_replicas(model, options);
    for (const auto& r : results) failures += r.failures();
    benchmark::DoNotOptimize(results.data());
  }
  state.counters["failures_per_replica"] =
      static_cast<double>(failures) / static_cast<double>(state.iterations() * options.replicas);
  state.SetItemsProcessed(state.iterations() * options.replicas);
}

}  // namespace ckptsim::bench
