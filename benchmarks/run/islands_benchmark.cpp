// Run-model throughput of asynchronous islands (strategy diloco, tier islands; issue 43, item 4:
// "a year of 10^6 accelerators in islands of 10^4 under failures, 100 replicas: < 10 s on 2
// cores"). 125,000 DGX-H100-like machines of 8 GPUs in 100 islands of 1,250 machines, Llama 3's
// failure rate and causes (about 470 interruptions a day over the cluster, 1.7e5 a year per
// replica), explicit 60 s steps, an outer synchronization every 50 steps, 365 days. One
// benchmark iteration = the whole batch on one thread (two cores run two batches of half).
#include <benchmark/benchmark.h>

#include "run_fixtures.hpp"

namespace {

void BM_RunModelIslandsMillionAccelerators365Days(benchmark::State& state) {
  using namespace ckptsim;
  Scenario s = bench::llama3_405b_scenario("bench-islands-125000xdgx-h100", 125000);
  s.strategy.kind = StrategyKind::diloco;
  s.strategy.replica_groups = 100;
  s.strategy.min_replica_groups = 1;
  s.strategy.sync_every = 50;
  s.run.duration = days(365);
  bench::run_replica_batch(state, s);
}
BENCHMARK(BM_RunModelIslandsMillionAccelerators365Days)->Arg(100)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
