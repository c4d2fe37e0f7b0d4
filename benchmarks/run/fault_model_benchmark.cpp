// Run-model throughput under the fault model (failure/fault_model.hpp): a year of a 16,384-GPU
// job with stragglers, hangs, misdiagnosis and silent corruption, 100 replicas; the issue's
// target is under 1 s on 2 cores. One benchmark iteration = the whole Monte Carlo batch on one
// thread.
//
// Scenario: 2,048 DGX-H100-like machines (16,384 GPUs), GEMINI (m = 2, group placement), 60 s
// iterations, Llama 3 405B's cause table at its published rate (0.003789 per machine-day),
// stragglers at 0.5% per machine-day (mean 1 h, speed 0.5, evicted after 10 min), 10% of
// failures hangs, 5% of hardware failures misdiagnosed (recurring after 2 h on average), silent
// corruption at Llama 3's count (6 in 54 days on 2,048 machines) found 1 h late; 16 standby
// machines, uniform 4-7 min replacements, 365 days. The fault-model rates are illustrative.
#include <benchmark/benchmark.h>

#include "ckptsim/run/strategy_costs.hpp"
#include "run_fixtures.hpp"

namespace {

ckptsim::Scenario fault_model_scenario() {
  using namespace ckptsim;
  Scenario s = bench::llama3_405b_scenario("bench-2048-fault-model-365d", 2048);
  s.failures.stragglers.rate = 0.005 / 86400.0;
  s.failures.stragglers.speed = 0.5;
  s.failures.stragglers.duration = hours(1);
  s.failures.stragglers.eviction = minutes(10);
  s.failures.hangs.fraction = 0.1;
  s.failures.misdiagnosis.fraction = 0.05;
  s.failures.misdiagnosis.recurrence = hours(2);
  s.failures.silent_corruption.rate = 6.0 / (2048.0 * 54.0 * 86400.0);
  s.failures.silent_corruption.detection = hours(1);
  s.run.duration = days(365);
  return s;
}

void BM_RunModel2048MachinesFaultModel365Days(benchmark::State& state) {
  ckptsim::bench::run_replica_batch(state, fault_model_scenario());
}
BENCHMARK(BM_RunModel2048MachinesFaultModel365Days)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The case: the same year with stragglers under per-step fault tolerance (TorchFT,
/// strategy torchft, run/group_outages.hpp): 16 replica groups of 128 machines, each failure takes one group out
/// until it is replaced, restarted and healed from a live peer (its 128 machines each receive
/// C / 128 = 38 GB at 400 GB/s: 0.095 s); the job never stops.
void BM_RunModel2048MachinesPerStepStragglers365Days(benchmark::State& state) {
  using namespace ckptsim;
  Scenario s = fault_model_scenario();
  s.strategy.kind = StrategyKind::torchft;
  s.strategy.replica_groups = 16;
  s.strategy.min_replica_groups = 1;
  s.failures.silent_corruption.rate = 0;  // not modelled under per-step fault tolerance
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  bench::run_replica_batch(state, s, c);
}
BENCHMARK(BM_RunModel2048MachinesPerStepStragglers365Days)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
