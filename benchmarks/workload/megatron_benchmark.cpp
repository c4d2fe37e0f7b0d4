// One Megatron training step (workload/megatron_iteration.hpp) on the bundled layouts (issue 25:
// Llama 3 405B on 16,384 GPUs under 2 s, GPT-3 175B on 1,024 GPUs under 0.2 s):
//   BM_MegatronLlama3_405B_16384:  scenarios/examples/llama3-405b-megatron-16384xh100.json
//                                  (TP 8, PP 16 with 2 chunks, DP 128, 16 micro-batches)
//   BM_MegatronGpt3_175B_1024:     scenarios/examples/gpt3-175b-megatron-1024xa100.json
//                                  (TP 8, PP 8 with 2 chunks, DP 16, 96 micro-batches)
//   BM_MegatronMixtral_64:         scenarios/examples/mixtral-8x7b-megatron-64xh100.json
//   BM_PipelineSchedule/m:         the interleaved schedule alone, p = 16, v = 2, m micro-batches
//   BM_MegatronCostsLlama3_405B:   what `run` computes before its replicas on the Llama 3 layout:
//                                  the step, its shared idle spans, the GEMINI plan over 2,048
//                                  machines, its simulation and the smallest k
//                                  (checkpoint/iteration_costs.hpp)
// Group symmetry makes the cost O(p·v·m), independent of the GPU count.
// Medians of 5 repetitions, 2026-12-01 21:01 UTC, the shared 2-core 2.3 GHz machine under a load
// average of 9-10 (wall / CPU): Llama 3 405B 0.207 / 0.157 ms, GPT-3 175B 3.26 / 0.92 ms, Mixtral
// 0.120 / 0.033 ms, the Llama 3 costs (step, spans, GEMINI plan over 2,048 machines, its
// simulation, smallest k) 284 / 108 ms.
#include <benchmark/benchmark.h>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/workload/megatron_iteration.hpp"
#include "ckptsim/workload/pipeline_schedule.hpp"

namespace {

using namespace ckptsim;

void run_file(benchmark::State& state, const char* file) {
  const Scenario s = load_scenario_file(std::string(CKPTSIM_SOURCE_ROOT "/scenarios/examples/") + file);
  for (auto _ : state) {
    const MegatronIteration it = simulate_megatron_iteration(s);
    benchmark::DoNotOptimize(it.iteration_time);
  }
}

void BM_MegatronLlama3_405B_16384(benchmark::State& state) { run_file(state, "llama3-405b-megatron-16384xh100.json"); }
BENCHMARK(BM_MegatronLlama3_405B_16384)->Unit(benchmark::kMillisecond);

void BM_MegatronGpt3_175B_1024(benchmark::State& state) { run_file(state, "gpt3-175b-megatron-1024xa100.json"); }
BENCHMARK(BM_MegatronGpt3_175B_1024)->Unit(benchmark::kMillisecond);

void BM_MegatronMixtral_64(benchmark::State& state) { run_file(state, "mixtral-8x7b-megatron-64xh100.json"); }
BENCHMARK(BM_MegatronMixtral_64)->Unit(benchmark::kMillisecond);

void BM_PipelineSchedule(benchmark::State& state) {
  const int m = static_cast<int>(state.range(0));
  const PipelineCosts costs = PipelineCosts::uniform(16, 2, m, milliseconds(10), milliseconds(20), microseconds(50));
  for (auto _ : state) {
    const PipelineRun run = run_pipeline(costs);
    benchmark::DoNotOptimize(run.makespan);
  }
}
BENCHMARK(BM_PipelineSchedule)->Arg(16)->Arg(256)->Arg(4096)->Unit(benchmark::kMillisecond);


void BM_MegatronCostsLlama3_405B(benchmark::State& state) {
  const Scenario s = load_scenario_file(std::string(CKPTSIM_SOURCE_ROOT "/scenarios/examples/") + "llama3-405b-megatron-16384xh100.json");
  for (auto _ : state) {
    const IterationCosts c = compute_iteration_costs(s);
    benchmark::DoNotOptimize(c.iteration_time_with_checkpoint);
  }
}
BENCHMARK(BM_MegatronCostsLlama3_405B)->Unit(benchmark::kMillisecond);

}  // namespace
