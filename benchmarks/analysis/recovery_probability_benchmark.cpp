// Exact recovery probabilities at scale (target: N = 4096, m = 3, every k, under 1 s
// for the whole `ckptsim placement` process). Report medians:
//   ckptsim_benchmarks --benchmark_filter=Recovery --benchmark_repetitions=5
//                      --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/placement.hpp"

namespace ckptsim {
namespace {

// Ring closed form: about N^2/3 big-integer add-and-subtract steps for m = 3.
void BM_RecoveryRingCounts(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  const int m = static_cast<int>(state.range(1));
  for (auto _ : state) benchmark::DoNotOptimize(ring_recovery_counts(n, m));
}
BENCHMARK(BM_RecoveryRingCounts)->Args({1024, 3})->Args({4096, 2})->Args({4096, 3})->Args({4096, 8})
    ->Unit(benchmark::kMillisecond);

void BM_RecoveryGroupCounts(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(group_recovery_counts(n, 3));
}
BENCHMARK(BM_RecoveryGroupCounts)->Arg(4095)->Unit(benchmark::kMillisecond);

void BM_RecoveryMixedCounts(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(mixed_recovery_counts(n, 3));
}
BENCHMARK(BM_RecoveryMixedCounts)->Arg(4096)->Unit(benchmark::kMillisecond);

// What `ckptsim placement --machines 4096 --replicas 3 --scheme ring,mixed` computes: exact
// counts and the probability curves (P, 1 - P, log10 P, union bound, expected losses).
void BM_RecoveryCurvesRingMixed4096(benchmark::State& state) {
  const Placement ring = ring_placement(4096, 3);
  const Placement mixed = mixed_placement(4096, 3);
  for (auto _ : state) {
    benchmark::DoNotOptimize(recovery_curve(*exact_recovery_counts(ring), ring));
    benchmark::DoNotOptimize(recovery_curve(*exact_recovery_counts(mixed), mixed));
  }
}
BENCHMARK(BM_RecoveryCurvesRingMixed4096)->Unit(benchmark::kMillisecond);

// Monte Carlo for a random placement (no exact method at this size): per 1000 samples.
void BM_RecoveryMonteCarloRandom4096(benchmark::State& state) {
  const Placement random = random_placement(4096, 3, 1);
  for (auto _ : state) benchmark::DoNotOptimize(monte_carlo_recovery(random, 1000, 1));
}
BENCHMARK(BM_RecoveryMonteCarloRandom4096)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace ckptsim
