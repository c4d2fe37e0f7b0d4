// Reading JSON input through the guarded parser (core/input_file.hpp): every scenario, profile,
// trace and spec goes through parse_json_document. The document is an array of n small objects,
// {"zz": [{"a": 0}, {"a": 1}, ...]}, the shape of a trace's events: the reader must take time
// linear in n (issue 38: nlohmann/json's callback parser scanned the parent array after every
// object, 17-28 s for 200,000 objects).
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "ckptsim/core/input_file.hpp"

namespace {

std::string array_of_objects(long n) {
  std::string text = R"({"zz": [)";
  for (long k = 0; k < n; ++k) text += fmt::format("{}{{\"a\": {}}}", k > 0 ? ", " : "", k);
  return text + "]}";
}

void BM_ParseJsonArrayOfObjects(benchmark::State& state) {
  const std::string text = array_of_objects(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(ckptsim::parse_json_document(text, "bench.json"));
  state.SetItemsProcessed(state.iterations() * state.range(0));
  state.SetBytesProcessed(state.iterations() * static_cast<long>(text.size()));
}
BENCHMARK(BM_ParseJsonArrayOfObjects)->Arg(20000)->Arg(200000)->Unit(benchmark::kMillisecond);

}  // namespace
