// libFuzzer harness: several time fields of one scenario at the edges of their ranges at once
// (the class of issue 21's "sums that leave the clock": each value passes its own check, their
// sum does not). The input's bytes choose a strategy, a failure process, a run length and, for
// each duration of the parameter table (every row of unit duration, taken from the table), nothing
// or one value from its edges (zero, one nanosecond, typical, days, the 100-year maximum as a
// string and as a JSON number of seconds, just beyond it), with the mechanisms whose times are
// read only while they are on switched on or off (restart tiers, hangs, stragglers,
// misdiagnosis, silent corruption, live migration, elastic restart), and the iteration time
// derived by the model of a 2-layer transformer or given; then
// the scenario goes through what `ckptsim run -r 1` and `ckptsim analyze -r 1` do:
// the loader, the run's checks (run/run_checks.hpp: clock ranges, the worst-case horizon, the
// work limits), one replica, and the closed forms.
//
// Refusals must be the typed errors of core/error.hpp. Whatever is accepted must give a sane
// answer, else the harness traps: the replica's wall time, iterations, failures, recoveries and
// every part of the time breakdown >= 0, the parts adding up to the wall time exactly, ETTR in
// [0, 1]; a closed form, when available, finite with its ETTR in [0, 1]. Scenarios whose
// replica would draw more than kFuzzFailureEvents (2e4) failures are skipped after their checks, so
// the fuzzing time goes to new combinations rather than long replicas.
#include <fuzzer/FuzzedDataProvider.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"

namespace {

using nlohmann::json;

constexpr double kFuzzFailureEvents = 2e4;

void require(bool invariant) {
  if (!invariant) __builtin_trap();
}

/// Durations at the edges: strings with units, and bare numbers of seconds (one parse path must
/// treat both alike).
const std::vector<json>& duration_edges() {
  static const std::vector<json> edges{"0s",       "1ns",       "1s",          "15s",     "1h",     "30d",
                                       "36000d",   "36524d",    "36525d",      "36526d",  0,        1e-9,
                                       60,         3155760000., 3155760001.,   9e9,       9.3e9,    -1,
                                       "100000d",  "never",     "1e-300s",     1e300};
  return edges;
}

/// Strategies with their own time fields.
const std::vector<json>& strategies() {
  static const std::vector<json> kinds{"gemini", "in-memory-blocking", "remote-periodic", "remote-highfreq",
                                       "erasure-coded", "multi-level", "none"};
  return kinds;
}

json pick(FuzzedDataProvider& in, const std::vector<json>& values) {
  return values[in.ConsumeIntegralInRange<std::size_t>(0, values.size() - 1)];
}

/// Sets `pointer` in `doc` to an edge duration, or leaves it out (the default), as the input says.
void maybe_set(FuzzedDataProvider& in, json& doc, const std::string& pointer) {
  if (!in.ConsumeBool()) return;
  doc[json::json_pointer(pointer)] = pick(in, duration_edges());
}

json base_scenario() {
  return json::parse(R"({
    "name": "time-edges",
    "cluster": {"instance": "p4d.24xlarge", "machines": 16},
    "storage": {"bandwidth": "20Gbps"},
    "model": {"preset": "gpt2-100b"},
    "training": {"serialization_bandwidth": "930MB/s", "iteration_time": "60s"},
    "strategy": {"kind": "gemini"},
    "failures": {"process": "exponential", "rate": "1.5%/machine/day"},
    "run": {"replicas": 1, "seed": 1}
  })");
}

json fuzzed_scenario(FuzzedDataProvider& in) {
  json doc = base_scenario();
  doc["strategy"]["kind"] = pick(in, strategies());
  static const std::vector<json> processes{"exponential", "weibull", "none"};
  doc["failures"]["process"] = pick(in, processes);
  static const std::vector<json> rates{"0%/machine/day", "1.5%/machine/day", "10%/machine/day", "100%/machine/day",
                                       "1e4%/machine/day"};
  doc["failures"]["rate"] = pick(in, rates);
  if (in.ConsumeBool()) {
    static const std::vector<json> iterations{1, 2, 1000, 36000, 100000000, 2147483647, 9223372036854775807LL};
    doc["run"]["iterations"] = pick(in, iterations);
  } else {
    doc["run"]["duration"] = pick(in, duration_edges());
  }
  // Every duration of the parameter table (its rows, not a list written here: a duration added
  // later is fuzzed too), but the run's length and the replacement time, set below.
  for (const ckptsim::Field& f : ckptsim::scenario_fields()) {
    if (f.presence == ckptsim::Presence::alias || f.pointer == "/run/duration" ||
        f.pointer.substr(0, 22) == "/failures/replacement/" ||
        (f.unit != ckptsim::Unit::duration && f.unit != ckptsim::Unit::duration_or_never))
      continue;
    maybe_set(in, doc, std::string(f.pointer));
  }
  if (in.ConsumeBool()) doc["strategy"]["adaptive_interval"] = true;
  // The mechanisms whose times are read only while they are on (parameters/*.cpp, read_when).
  if (in.ConsumeBool()) doc["failures"]["restart_tiers"]["enabled"] = true;
  if (in.ConsumeBool()) doc["failures"]["hangs"]["fraction"] = 0.5;
  if (in.ConsumeBool()) doc["failures"]["stragglers"]["rate"] = "10%/machine/day";
  if (in.ConsumeBool()) doc["failures"]["misdiagnosis"]["fraction"] = 0.5;
  if (in.ConsumeBool()) doc["failures"]["silent_corruption"]["rate"] = "1%/machine/day";
  if (in.ConsumeBool()) {
    doc["cluster"]["standby_machines"] = 2;
    doc["failures"]["migration"]["fraction"] = 0.5;
  }
  if (in.ConsumeBool()) doc["failures"]["elastic"]["min_machines"] = 8;
  if (in.ConsumeBool()) {
    static const std::vector<json> every{1, 2, 1000, 1000000, 2147483647};
    doc["strategy"]["every_iterations"] = pick(in, every);
  }
  switch (in.ConsumeIntegralInRange<int>(0, 3)) {
    case 1: doc["failures"]["replacement"] = pick(in, duration_edges()); break;
    case 2:
      doc["failures"]["replacement"] = {{"distribution", "uniform"}, {"low", pick(in, duration_edges())},
                                        {"high", pick(in, duration_edges())}};
      break;
    case 3: {
      static const std::vector<json> sigmas{0.25, 2, 10, 30};
      doc["failures"]["replacement"] = {{"distribution", "lognormal"}, {"median", pick(in, duration_edges())},
                                        {"sigma", pick(in, sigmas)}};
      break;
    }
    default: break;
  }
  if (in.ConsumeBool()) {  // a cause table whose rows bring their own detection and restart
    json row{{"name", "edge"}, {"share", 1}, {"outcome", in.ConsumeBool() ? "hardware" : "software"}};
    if (in.ConsumeBool()) row["detection"] = pick(in, duration_edges());
    if (in.ConsumeBool()) row["restart"] = pick(in, duration_edges());
    doc["failures"]["causes"] = json::array({row, {{"name", "plain"}, {"share", 1}, {"outcome", "software"}}});
  }
  if (in.ConsumeBool()) {
    static const std::vector<json> bandwidths{"1Kbps", "1Mbps", "20Gbps", "1TB/s"};
    doc["storage"]["bandwidth"] = pick(in, bandwidths);
  }
  if (in.ConsumeBool()) {
    // The iteration time derived by the iteration model (a 2-layer model it runs in
    // milliseconds), with the kernel model's launch overhead at an edge: every kernel adds it,
    // so it reaches the run's length and the checkpoint period through the iteration time.
    doc["training"].erase("iteration_time");
    doc["model"] = {{"layers", 2}, {"hidden", 256}, {"ffn", 1024}, {"heads", 4}, {"vocabulary", 1000}};
    maybe_set(in, doc, "/cluster/gpu_kernel_launch");
  }
  return doc;
}

void check_replica(const ckptsim::ReplicaResult& r) {
  using ckptsim::SimTime;
  const auto& b = r.breakdown;
  require(r.wall_time >= SimTime::zero() && r.iterations >= 0);
  require(r.software_failures >= 0 && r.hardware_failures >= 0 && r.machines_replaced >= 0);
  for (const auto n : r.recoveries) require(n >= 0);
  for (const SimTime t : {b.training, b.checkpoint_stall, b.lost_progress, b.detection, b.replacement_wait, b.retrieval,
                          b.restart, r.wasted_time})
    require(t >= SimTime::zero());
  for (const SimTime t : r.lost_by_tier) require(t >= SimTime::zero());
  for (const SimTime t : r.lost_by_cause) require(t >= SimTime::zero());
  require(b.total() == r.wall_time);  // the documented accounting identity, exact in ns
  const double ettr = r.ettr();
  require(std::isfinite(ettr) && ettr >= 0.0 && ettr <= 1.0);
}

void check_closed_form(const ckptsim::AnalyticPrediction& p) {
  if (!p.available) return;
  require(std::isfinite(p.ettr) && p.ettr >= -1e-9 && p.ettr <= 1.0 + 1e-9);
  for (const auto& [name, value] : p.metrics) require(std::isfinite(value));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzedDataProvider in(data, size);
  const json doc = fuzzed_scenario(in);
  // CKPTSIM_FUZZ_SHOW=1 prints the scenario an input builds (to reproduce a finding by hand).
  if (std::getenv("CKPTSIM_FUZZ_SHOW") != nullptr) std::fprintf(stderr, "%s\n", doc.dump().c_str());
  try {
    const ckptsim::Scenario scenario = ckptsim::load_scenario_json(doc, "time-edges.json", ".");
    const ckptsim::RunChecks checks;
    const ckptsim::StrategyCosts costs = ckptsim::checked_strategy_costs(scenario, checks);
    const ckptsim::RunModel model = ckptsim::checked_run_model(scenario, costs, 1, checks);
    check_closed_form(ckptsim::predict_run(scenario, costs));
    const ckptsim::SimTime end = ckptsim::run_end_bound(scenario, ckptsim::failure_free_length(scenario, costs));
    if (ckptsim::expected_failure_events(scenario.failures, scenario.cluster.machines, end) > kFuzzFailureEvents) return 0;
    check_replica(model.simulate(0));
  } catch (const ckptsim::InputError&) {
  } catch (const ckptsim::LimitError&) {
  } catch (const ckptsim::ModelError&) {
  }
  return 0;
}
