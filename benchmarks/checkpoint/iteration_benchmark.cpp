// One iteration of GPT-2 100B (GEMINI's paper scenario, scenarios/paper/gpt2-100b-16xp4d.json)
// with the gemini scheduler, on N p4d machines x 8 GPUs (issue: N = 16 under 20 ms,
// N = 1024 under 2 s; N = 16, 64, 256, 1024 measured):
//   BM_IterationGemini/N:     simulate the training iteration, extract idle spans, plan with
//                             gemini, simulate the plan with the training traffic
//   BM_IterationGeminiStaged/N: the same with host staging (gpudirect_rdma false)
//   BM_IterationCosts/N:      compute_iteration_costs (adds the blocking run the run model uses)
//   BM_GeminiPartition/N:     Algorithm 2 alone on the iteration's spans
//   BM_ComputeTimes:          the kernel model's per-use table (workload/kernel_time.hpp), built
//                             once per iteration model from the kernels of every use and pass
#include <benchmark/benchmark.h>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/workload/kernel_time.hpp"

namespace {

using namespace ckptsim;

Scenario paper(int machines) {
  Scenario s = load_scenario_file(CKPTSIM_SOURCE_ROOT "/scenarios/paper/gpt2-100b-16xp4d.json");
  s.cluster.machines = machines;
  return s;
}

void BM_IterationGemini(benchmark::State& state) {
  const Scenario s = paper(static_cast<int>(state.range(0)));
  for (auto _ : state) {
    const IterationStudy study = prepare_iteration_study(s);
    const SchedulerOutcome o = evaluate_scheduler(study, SchedulerKind::gemini);
    benchmark::DoNotOptimize(o.iteration_time_with_checkpoint);
  }
}
BENCHMARK(BM_IterationGemini)->Arg(16)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMillisecond);

// The same with host staging (no GPUDirect RDMA, as on p3dn): every collective flow also
// crosses each machine's PCIe path, N more resource uses per flow.
void BM_IterationGeminiStaged(benchmark::State& state) {
  Scenario s = paper(static_cast<int>(state.range(0)));
  s.cluster.gpudirect_rdma = false;
  for (auto _ : state) {
    const IterationStudy study = prepare_iteration_study(s);
    const SchedulerOutcome o = evaluate_scheduler(study, SchedulerKind::gemini);
    benchmark::DoNotOptimize(o.iteration_time_with_checkpoint);
  }
}
BENCHMARK(BM_IterationGeminiStaged)->Arg(16)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_IterationCosts(benchmark::State& state) {
  const Scenario s = paper(static_cast<int>(state.range(0)));
  for (auto _ : state) benchmark::DoNotOptimize(compute_iteration_costs(s).iteration_time_with_checkpoint);
}
BENCHMARK(BM_IterationCosts)->Arg(16)->Arg(1024)->Unit(benchmark::kMillisecond);

void BM_GeminiPartition(benchmark::State& state) {
  const IterationStudy study = prepare_iteration_study(paper(static_cast<int>(state.range(0))));
  for (auto _ : state) benchmark::DoNotOptimize(make_plan(SchedulerKind::gemini, study.input).chunks.size());
}
BENCHMARK(BM_GeminiPartition)->Arg(16)->Unit(benchmark::kMicrosecond);

void BM_ComputeTimes(benchmark::State& state) {
  const Scenario s = paper(16);
  for (auto _ : state) benchmark::DoNotOptimize(ComputeTimes(s).iteration());
}
BENCHMARK(BM_ComputeTimes)->Unit(benchmark::kMicrosecond);

}  // namespace
