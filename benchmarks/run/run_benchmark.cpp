// Run-model throughput (issue "ckptsim run": 1,000 replicas of a 30-day run on 1,024 machines of
// 8 GPUs, GEMINI every iteration, 60 s iterations, 1.5% of machines failing per day, in under
// 2 s on one core). One benchmark iteration = the whole Monte Carlo batch on one thread.
#include <benchmark/benchmark.h>

#include "run_fixtures.hpp"

namespace {

ckptsim::Scenario large_gemini_scenario() {
  using namespace ckptsim;
  Scenario s = bench::dgx_h100_scenario("bench-1024xdgx-h100", 1024);
  s.storage.bandwidth = 2.5e9;  // 20 Gbps
  s.model.parameters = 175e9;
  s.training.serialization_bandwidth = 1e9;
  s.failures.rate = 0.015 / 86400.0;
  s.failures.hardware_fraction = 0.5;
  return s;
}

void BM_RunModel1024Machines30Days(benchmark::State& state) {
  ckptsim::bench::run_replica_batch(state, large_gemini_scenario());
}
BENCHMARK(BM_RunModel1024Machines30Days)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The same cluster and failures with multi-level checkpointing (levels every 10 min, 30 min, 3 h):
/// the level clock's binary searches against the segment clock's divisions.
void BM_RunModel1024MachinesMultiLevel30Days(benchmark::State& state) {
  ckptsim::Scenario s = large_gemini_scenario();
  s.strategy.kind = ckptsim::StrategyKind::multi_level;
  ckptsim::bench::run_replica_batch(state, s);
}
BENCHMARK(BM_RunModel1024MachinesMultiLevel30Days)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The same run with erasure-coded groups (g = 8, p = 2): a replaced machine touches the g
/// counters of its group instead of its m holder sets.
void BM_RunModel1024MachinesErasureCoded30Days(benchmark::State& state) {
  auto s = large_gemini_scenario();
  s.strategy.kind = ckptsim::StrategyKind::erasure_coded;
  s.strategy.group_size = 8;
  s.strategy.parity = 2;
  ckptsim::bench::run_replica_batch(state, s);
}
BENCHMARK(BM_RunModel1024MachinesErasureCoded30Days)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
