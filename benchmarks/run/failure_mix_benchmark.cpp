// Run-model throughput with failure domains, lemon nodes and a cause table (4,096
// machines, 1,000 replicas, 30 days under 2 s on one core). One benchmark iteration = the whole
// Monte Carlo batch on one thread.
//
// Scenario: 4,096 DGX-H100-like machines, GEMINI (m = 2, group placement), 60 s iterations, the
// Llama 3 405B cause table at its published rate (0.003789 per machine-day), 2% lemon machines at
// 10x with quarantine after 2 failures in 7 days, racks of 2 machines failing at 0.0633% per
// rack-day (hardware), 16 standby machines, uniform 4-7 min replacements.
#include <benchmark/benchmark.h>

#include "run_fixtures.hpp"

namespace {

ckptsim::Scenario domains_and_lemons_scenario() {
  using namespace ckptsim;
  Scenario s = bench::llama3_405b_scenario("bench-4096-domains-lemons", 4096);
  s.failures.lemons.model = LemonModel::fraction;
  s.failures.lemons.fraction = 0.02;
  s.failures.lemons.multiple = 10;
  s.failures.lemons.quarantine_failures = 2;
  s.failures.domains[static_cast<std::size_t>(DomainKind::rack)] = DomainSpec{2, 0.000633 / 86400.0, 1.0};
  return s;
}

void BM_RunModel4096MachinesDomainsLemons30Days(benchmark::State& state) {
  ckptsim::bench::run_replica_batch(state, domains_and_lemons_scenario());
}
BENCHMARK(BM_RunModel4096MachinesDomainsLemons30Days)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
