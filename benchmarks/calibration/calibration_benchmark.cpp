// The calibration layer's costs: the weighted least-squares rate fit as the sample count grows
// (a timeline of many iterations holds thousands of operations), reading a measured timeline of
// a replay, and importing a PyTorch profiler trace (gzip inflate, JSON parse, step assignment).
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "ckptsim/calibration/gzip_input.hpp"
#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/rate_fit.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"
#include "ckptsim/core/input_file.hpp"

namespace {

using namespace ckptsim;

// n samples of t = 0.5 ms + x / 100 MB/s at sizes 64 KiB .. 4 MiB with a +-2% ripple.
void BM_FitRate(benchmark::State& state) {
  std::vector<RateSample> s;
  for (int i = 0; i < state.range(0); ++i) {
    const double x = 65536.0 * (1 << (i % 7));
    s.push_back({x, (0.5e-3 + x / 1e8) * (1 + 0.02 * ((i % 5) - 2) / 2.0), 1, "bench"});
  }
  for (auto _ : state) benchmark::DoNotOptimize(fit_rate(s, {RateModel::alpha_beta, std::nullopt, "bench", "B/s"}));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FitRate)->Arg(16)->Arg(1024)->Arg(65536)->Unit(benchmark::kMicrosecond);

void BM_ReadMeasuredTimeline(benchmark::State& state) {
  const std::string path = CKPTSIM_SOURCE_ROOT "/fuzz/seeds/timeline/measured.json";
  const nlohmann::json doc = read_json_file(path, "a measured timeline");
  for (auto _ : state) benchmark::DoNotOptimize(parse_measured_timeline(doc, path));
}
BENCHMARK(BM_ReadMeasuredTimeline)->Unit(benchmark::kMicrosecond);

void BM_ImportTorchProfilerTrace(benchmark::State& state) {
  const std::string path = CKPTSIM_SOURCE_ROOT "/tests/fixtures/torch-profiler/hta-nccl-data-rank-0.json.gz";
  for (auto _ : state) {
    const nlohmann::json doc = parse_json_strict(read_maybe_gzip_file(path, "a trace", std::size_t{1} << 28), path);
    benchmark::DoNotOptimize(parse_torch_profiler(doc, path, 0, {}));
  }
}
BENCHMARK(BM_ImportTorchProfilerTrace)->Unit(benchmark::kMillisecond);

}  // namespace

namespace {

// The part of the import that is reading: inflating and parsing the JSON (with the duplicate-key
// and depth guards every input gets), without the trace's interpretation.
void BM_ReadTorchProfilerJson(benchmark::State& state) {
  const std::string path = CKPTSIM_SOURCE_ROOT "/tests/fixtures/torch-profiler/hta-nccl-data-rank-0.json.gz";
  for (auto _ : state) benchmark::DoNotOptimize(ckptsim::parse_json_strict(ckptsim::read_maybe_gzip_file(path, "a trace", std::size_t{1} << 28), path));
}
BENCHMARK(BM_ReadTorchProfilerJson)->Unit(benchmark::kMillisecond);

}  // namespace
