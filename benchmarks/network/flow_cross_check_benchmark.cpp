// ckptsim's flow set next to SimGrid on identical flow sets (tests/support/cross_check_flows.hpp;
// every flow run to completion, arrivals as given):
//   BM_FlowSetRandom/F:          F random flows, 64 links, 1-4 links each, sizes over three
//                                decades, all starting at time 0 (incremental re-solve)
//   BM_ReferenceFlowSetRandom/F: the same through the full re-solve it replaced (the oracle)
//   BM_SimGridRandom/F:          the same through SimGrid (CM02, no cross traffic; manual time:
//                                the forked child's platform creation + simulation)
//   BM_FlowSetIteration/N, BM_SimGridIteration/N: every transfer of one GPT-2 100B iteration
//                                with gemini checkpoint traffic on N p4d machines
#include <benchmark/benchmark.h>

#include "ckptsim/network/flow_set.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "cross_check_flows.hpp"
#include "reference_flow_set.hpp"
#ifdef CKPTSIM_WITH_SIMGRID
#include "simgrid_flows.hpp"
#endif

namespace {

using namespace ckptsim;
using namespace ckptsim::cross_check;

CrossFlowSet iteration(int machines) {
  Scenario s = load_scenario_file(CKPTSIM_SOURCE_ROOT "/scenarios/paper/gpt2-100b-16xp4d.json");
  s.cluster.machines = machines;
  return iteration_flow_set(s);  // at line rate, as SimGrid needs
}

template <class Set>
void run_random(benchmark::State& state) {
  const CrossFlowSet set = random_flow_set(static_cast<int>(state.range(0)), 1);
  for (auto _ : state) benchmark::DoNotOptimize(run_flow_set<Set>(set).back());
  state.SetItemsProcessed(state.iterations() * state.range(0));
}

void BM_FlowSetRandom(benchmark::State& state) { run_random<FlowSet>(state); }
BENCHMARK(BM_FlowSetRandom)->Arg(64)->Arg(512)->Arg(2048)->Arg(4096)->Unit(benchmark::kMillisecond);

void BM_ReferenceFlowSetRandom(benchmark::State& state) { run_random<reference::ReferenceFlowSet>(state); }
BENCHMARK(BM_ReferenceFlowSetRandom)->Arg(64)->Arg(512)->Arg(2048)->Unit(benchmark::kMillisecond);

void BM_FlowSetIteration(benchmark::State& state) {
  const CrossFlowSet set = iteration(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(run_flow_set<FlowSet>(set).back());
  state.counters["flows"] = static_cast<double>(set.flows.size());
}
BENCHMARK(BM_FlowSetIteration)->Arg(16)->Arg(128)->Unit(benchmark::kMillisecond);

#ifdef CKPTSIM_WITH_SIMGRID
void run_simgrid_timed(benchmark::State& state, const CrossFlowSet& set) {
  for (auto _ : state) state.SetIterationTime(run_simgrid(set).wall_seconds);
  state.counters["flows"] = static_cast<double>(set.flows.size());
}

void BM_SimGridRandom(benchmark::State& state) {
  run_simgrid_timed(state, random_flow_set(static_cast<int>(state.range(0)), 1));
}
BENCHMARK(BM_SimGridRandom)->Arg(64)->Arg(512)->Arg(2048)->Arg(4096)->UseManualTime()->Unit(benchmark::kMillisecond);

void BM_SimGridIteration(benchmark::State& state) {
  run_simgrid_timed(state, iteration(static_cast<int>(state.range(0))));
}
BENCHMARK(BM_SimGridIteration)->Arg(16)->Arg(128)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif

}  // namespace
