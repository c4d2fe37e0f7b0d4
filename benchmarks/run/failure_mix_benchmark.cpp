// Run-model throughput with failure domains, lemon nodes and a cause table (issue 12: 4,096
// machines, 1,000 replicas, 30 days under 2 s on one core). One benchmark iteration = the whole
// Monte Carlo batch on one thread.
//
// Scenario: 4,096 DGX-H100-like machines, GEMINI (m = 2, group placement), 60 s iterations, the
// Llama 3 405B cause table at its published rate (0.003789 per machine-day), 2% lemon machines at
// 10x with quarantine after 2 failures in 7 days, racks of 2 machines failing at 0.0633% per
// rack-day (hardware), 16 standby machines, uniform 4-7 min replacements.
#include <benchmark/benchmark.h>

#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace {

ckptsim::Scenario domains_and_lemons_scenario() {
  using namespace ckptsim;
  Scenario s;
  s.name = "bench-4096-domains-lemons";
  s.cluster.machines = 4096;
  s.cluster.standby_machines = 16;
  s.cluster.gpus_per_machine = 8;
  s.cluster.gpu_memory_bytes = 80e9;
  s.cluster.cpu_memory_bytes = 2e12;
  s.cluster.network_bandwidth = 400e9;
  s.cluster.gpu_cpu_bandwidth = 50e9;
  s.cluster.nvlink_bandwidth = 900e9;
  s.cluster.gpu_peak_flops = 989e12;
  s.storage.bandwidth = 200e9;
  s.model.parameters = 405e9;
  s.training.serialization_bandwidth = 2e9;
  s.training.iteration_time = seconds(60);
  s.strategy.kind = StrategyKind::gemini;
  s.strategy.replicas = 2;
  s.strategy.placement = PlacementScheme::group;
  s.failures.process = FailureProcessKind::exponential;
  const CausePreset* llama = find_cause_preset("llama3-405b");
  s.failures.rate = llama->rate_per_machine;
  s.failures.causes = FailureCauseTable{llama->name, llama->causes};
  s.failures.lemons.model = LemonModel::fraction;
  s.failures.lemons.fraction = 0.02;
  s.failures.lemons.multiple = 10;
  s.failures.lemons.quarantine_failures = 2;
  s.failures.domains[static_cast<std::size_t>(DomainKind::rack)] = DomainSpec{2, 0.000633 / 86400.0, 1.0};
  s.failures.replacement.distribution = ReplacementDistribution::uniform;
  s.run.duration = days(30);
  s.run.replicas = 1000;
  return s;
}

void BM_RunModel4096MachinesDomainsLemons30Days(benchmark::State& state) {
  const auto s = domains_and_lemons_scenario();
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
BENCHMARK(BM_RunModel4096MachinesDomainsLemons30Days)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
