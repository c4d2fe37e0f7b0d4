// libFuzzer harness: sweep points whose axes take values beyond the work limits (issue 21's
// "limits that sweeps bypass"). The input's bytes choose a point command (run, analyze,
// iteration, placement), a base (an explicit iteration time, or a small model the iteration
// model runs in milliseconds) and, for each axis below, one to three values from a list that
// mixes cheap values with values far beyond the work and memory limits (2^31 - 1 replicas,
// 10^8 to 2 x 10^9 machines, a million GPUs per machine or layers, 1 byte GPU buffers, failure
// rates of 10^9 % per machine-day, lengths of 100 years); values in the expensive-but-allowed
// band between are left out, so every point is either quick or refused. The first 12 points go through
// evaluate_point, as the executors run it.
//
// A point must come back as a record (evaluate_point never throws), "ok" or "invalid" with its
// reason, never "error" (an internal error), and quickly (libFuzzer's -timeout and -rss_limit
// catch a point that bypassed a limit). An "ok" run or analyze point must have a finite ETTR
// mean in [0, 1] and non-negative time breakdown means.
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/points.hpp"
#include "ckptsim/sweep/spec.hpp"

namespace {

using nlohmann::json;

void require(bool invariant) {
  if (!invariant) __builtin_trap();
}

struct AxisChoice {
  const char* pointer;
  std::vector<json> values;
};

/// Cheap values and values beyond the limits of docs/limits.md, never the expensive band between
/// (sub_buffers is never 1, which with a 1-byte buffer is in that band).
const std::vector<AxisChoice>& axis_choices() {
  static const std::vector<AxisChoice> axes{
      {"/run/replicas", {1, 2, 3, 2147483647, 1000000000, 0, -1}},
      // (10^5 and 10^6 machines are allowed and take seconds to minutes: with an explicit
      // iteration time for run and analyze points, and for iteration points of the 2-layer base,
      // 4.8e6 flows under the 2e7 limit (a 30-s timeout under load): the band left out; 10^8 are
      // beyond the per-machine memory limit. 8 and 16 machines are left out too: they shrink the
      // shard so that a 1-byte GPU buffer's chunks (5.5 million at 16 machines, 1.4 GB of plan)
      // fit under the 4 GiB chunk-memory limit, an allowed and slow point (CI's fuzzer, 5 December
      // 2026: 137 s under the sanitizers for an iteration point of 16 machines, 2 replicas, "1B";
      // fuzz/seeds/sweep_limits/timeout-16-machines-1B-buffer). At 2 and 4 machines the same
      // buffer is refused.)
      {"/cluster/machines", {2, 4, 100000000, 2147483647, 2e9}},
      {"/cluster/gpus_per_machine", {1, 8, 1000000, 2147483647}},
      {"/model/layers", {2, 4, 1000000, 2147483647}},
      {"/strategy/replicas", {1, 2, 3, 2147483647}},
      {"/strategy/gpu_buffer", {"128MiB", "1B", 1, "1e21B"}},
      // (1-byte buffers in 1 sub-buffer plan 5.5 million chunks of the base's shard: allowed and
      // slow, the band left out; in 4 or more they are beyond the chunk-memory limit.)
      {"/strategy/sub_buffers", {4, 64, 2147483647}},
      {"/failures/rate", {"1.5%/machine/day", "1e9%/machine/day", "1e300%/machine/day"}},
      {"/run/duration", {"1d", "36525d", 3155760000., 9e9}},
      {"/strategy/kind", {"gemini", "erasure-coded", "multi-level", "remote-periodic", "none"}},
      {"/strategy/placement", {"group", "ring", "random", "mixed"}},
      {"/failures/domains/rack/machines", {1, 2, 1000000}},
      {"/failures/domains/rack/rate", {"1%/domain/day", "1e9%/domain/day"}},
  };
  return axes;
}

json base(FuzzedDataProvider& in) {
  json b = json::parse(R"({
    "name": "sweep-limits",
    "cluster": {"instance": "p4d.24xlarge", "machines": 4},
    "storage": {"bandwidth": "20Gbps"},
    "model": {"layers": 2, "hidden": 256, "ffn": 1024, "heads": 4, "vocabulary": 1000},
    "training": {"serialization_bandwidth": "930MB/s", "micro_batch": 1, "sequence_length": 64},
    "strategy": {"kind": "gemini"},
    "failures": {"process": "exponential", "rate": "1.5%/machine/day"},
    "run": {"duration": "1d", "replicas": 2}
  })");
  if (in.ConsumeBool()) b["training"]["iteration_time"] = "60s";  // no iteration model
  return b;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  static const std::vector<const char*> commands{"run", "analyze", "iteration", "placement"};
  json spec_doc{{"command", commands[in.ConsumeIntegralInRange<std::size_t>(0, commands.size() - 1)]},
                {"base", base(in)},
                {"axes", json::array()}};
  const auto& choices = axis_choices();
  const int axes = in.ConsumeIntegralInRange<int>(1, 3);
  std::vector<std::size_t> used;
  for (int a = 0; a < axes; ++a) {
    const std::size_t c = in.ConsumeIntegralInRange<std::size_t>(0, choices.size() - 1);
    if (std::find(used.begin(), used.end(), c) != used.end()) continue;
    used.push_back(c);
    json values = json::array();
    const int n = in.ConsumeIntegralInRange<int>(1, 3);
    for (int v = 0; v < n; ++v)
      values.push_back(choices[c].values[in.ConsumeIntegralInRange<std::size_t>(0, choices[c].values.size() - 1)]);
    spec_doc["axes"].push_back({{"pointer", choices[c].pointer}, {"values", values}});
  }
  ckptsim::sweep::SweepSpec spec;
  try {
    spec = ckptsim::sweep::load_sweep_spec_json(spec_doc, "sweep-limits.json", ".");
  } catch (const ckptsim::InputError&) {
    return 0;  // e.g. a value list that repeats an axis name: the spec's own problem
  } catch (const ckptsim::LimitError&) {
    return 0;
  }
  // CKPTSIM_FUZZ_SHOW=1 prints the spec an input builds (to reproduce a finding by hand).
  if (std::getenv("CKPTSIM_FUZZ_SHOW") != nullptr) std::fprintf(stderr, "%s\n", spec_doc.dump().c_str());
  ckptsim::sweep::CostCache cache;
  const std::int64_t points = std::min<std::int64_t>(ckptsim::sweep::point_count(spec), 12);
  for (std::int64_t i = 0; i < points; ++i) {
    const ckptsim::sweep::PointRecord r = ckptsim::sweep::evaluate_point(spec, i, cache);
    require(r.status == ckptsim::sweep::PointStatus::ok || r.status == ckptsim::sweep::PointStatus::invalid);
    require(r.status == ckptsim::sweep::PointStatus::ok || !r.error.empty());
    if (r.status != ckptsim::sweep::PointStatus::ok) continue;
    if (r.result.contains("summary")) {  // run
      const json& s = r.result.at("summary");
      const double ettr = s.at("ettr").at("mean").get<double>();
      require(std::isfinite(ettr) && ettr >= 0.0 && ettr <= 1.0);
      for (const auto& [part, value] : s.at("time_breakdown_s").items()) require(value.at("mean").get<double>() >= 0.0);
    }
    if (r.result.contains("metrics") && r.result.at("metrics").contains("ettr")) {  // analyze
      const json& e = r.result.at("metrics").at("ettr");
      if (e.contains("closed")) require(e.at("closed").get<double>() >= 0.0 && e.at("closed").get<double>() <= 1.0 + 1e-9);
      if (e.contains("simulated")) {
        const double mean = e.at("simulated").at("mean").get<double>();
        require(std::isfinite(mean) && mean >= 0.0 && mean <= 1.0);
      }
    }
  }
  return 0;
}
