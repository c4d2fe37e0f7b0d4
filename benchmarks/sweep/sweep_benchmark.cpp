// Sweep throughput (issue "ckptsim sweep": 10,000 `run` points of a small scenario -- the paper's
// 16-machine testbed, 30 days, 20 replicas per point, iteration model on -- with 2 threads, at
// least 2,000 points per second). One benchmark iteration = the whole sweep, journal and final
// outputs included (benchmarks/scenarios/sweep-10000-points.json), into a fresh folder.
// Reported: items_per_second = points per second of wall time.
#include <benchmark/benchmark.h>

#include <filesystem>
#include <string>

#include "ckptsim/sweep/spec.hpp"
#include "ckptsim/sweep/sweep.hpp"

namespace {

void BM_Sweep10000RunPoints(benchmark::State& state) {
  namespace fs = std::filesystem;
  const auto spec =
      ckptsim::sweep::load_sweep_spec_file(std::string(CKPTSIM_SOURCE_ROOT) + "/benchmarks/scenarios/sweep-10000-points.json");
  const fs::path dir = fs::temp_directory_path() / "ckptsim-sweep-benchmark";
  std::int64_t points = 0;
  for (auto _ : state) {
    state.PauseTiming();
    fs::remove_all(dir);
    state.ResumeTiming();
    ckptsim::sweep::SweepOptions options;
    options.out_dir = dir.string();
    options.jobs = static_cast<int>(state.range(0));
    const auto outcome = ckptsim::sweep::run_sweep(spec, options);
    points += outcome.computed;
    benchmark::DoNotOptimize(outcome);
  }
  fs::remove_all(dir);
  state.SetItemsProcessed(points);
}
BENCHMARK(BM_Sweep10000RunPoints)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->UseRealTime()->Iterations(1)->Repetitions(3);

}  // namespace
