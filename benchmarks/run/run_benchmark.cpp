// Run-model throughput (issue "ckptsim run": 1,000 replicas of a 30-day run on 1,024 machines of
// 8 GPUs, GEMINI every iteration, 60 s iterations, 1.5% of machines failing per day, in under
// 2 s on one core). One benchmark iteration = the whole Monte Carlo batch on one thread.
#include <benchmark/benchmark.h>

#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace {

ckptsim::Scenario large_gemini_scenario() {
  using namespace ckptsim;
  Scenario s;
  s.name = "bench-1024xdgx-h100";
  s.cluster.machines = 1024;
  s.cluster.gpus_per_machine = 8;
  s.cluster.gpu_memory_bytes = 80e9;
  s.cluster.cpu_memory_bytes = 2e12;
  s.cluster.network_bandwidth = 400e9;  // 3.2 Tbps
  s.cluster.gpu_cpu_bandwidth = 50e9;
  s.cluster.nvlink_bandwidth = 900e9;
  s.cluster.gpu_peak_flops = 989e12;
  s.cluster.gpu_memory_bandwidth = 3350e9;  // H100 SXM data sheet: 3.35 TB/s
  s.storage.bandwidth = 2.5e9;          // 20 Gbps
  s.model.parameters = 175e9;
  s.training.serialization_bandwidth = 1e9;
  s.training.iteration_time = seconds(60);
  s.strategy.kind = StrategyKind::gemini;
  s.strategy.replicas = 2;
  s.strategy.placement = PlacementScheme::group;
  s.strategy.every_iterations = 1;
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.015 / 86400.0;
  s.failures.hardware_fraction = 0.5;
  s.failures.replacement.distribution = ReplacementDistribution::uniform;
  s.run.duration = days(30);
  s.run.replicas = 1000;
  return s;
}

void BM_RunModel1024Machines30Days(benchmark::State& state) {
  const auto s = large_gemini_scenario();
  const ckptsim::RunModel model(s, ckptsim::compute_strategy_costs(s, nullptr));
  ckptsim::MonteCarloOptions options;
  options.replicas = static_cast<int>(state.range(0));
  options.jobs = 1;
  std::int64_t failures = 0;
  for (auto _ : state) {
    const auto results = ckptsim::run_replicas(model, options);
    for (const auto& r : results) failures += r.failures();
    benchmark::DoNotOptimize(results.data());
  }
  state.counters["failures_per_replica"] =
      static_cast<double>(failures) / static_cast<double>(state.iterations() * options.replicas);
  state.SetItemsProcessed(state.iterations() * options.replicas);
}
BENCHMARK(BM_RunModel1024Machines30Days)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The same run with erasure-coded groups (g = 8, p = 2): a replaced machine touches the g
/// counters of its group instead of its m holder sets.
void BM_RunModel1024MachinesErasureCoded30Days(benchmark::State& state) {
  auto s = large_gemini_scenario();
  s.strategy.kind = ckptsim::StrategyKind::erasure_coded;
  s.strategy.group_size = 8;
  s.strategy.parity = 2;
  const ckptsim::RunModel model(s, ckptsim::compute_strategy_costs(s, nullptr));
  ckptsim::MonteCarloOptions options;
  options.replicas = static_cast<int>(state.range(0));
  options.jobs = 1;
  for (auto _ : state) {
    const auto results = ckptsim::run_replicas(model, options);
    benchmark::DoNotOptimize(results.data());
  }
  state.SetItemsProcessed(state.iterations() * options.replicas);
}
BENCHMARK(BM_RunModel1024MachinesErasureCoded30Days)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
