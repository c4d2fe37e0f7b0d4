// Effective scenario JSON and hash (scenario/scenario_json.hpp): loading the effective JSON
// gives the same Scenario, field by field, for every bundled scenario and for awkward values.
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "../common/source_path.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/scenario_json.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// Every table field of `a` equals the same field of `b` (exactly: no tolerance).
void check_same_fields(Scenario a, Scenario b) {
  for (const Field& f : scenario_fields()) {
    CAPTURE(f.pointer);
    const FieldRef ra = f.bind(a);
    const FieldRef rb = f.bind(b);
    std::visit(
        [&](auto* pa) {
          auto* pb = std::get<std::remove_pointer_t<decltype(pa)>*>(rb);
          CHECK((*pa == *pb));
        },
        ra);
  }
  CHECK(a.source_file != "");  // loaded from somewhere
}

void check_round_trip(const Scenario& s) {
  const json effective = effective_scenario_json(s);
  const Scenario again = load_scenario_json(effective, "effective.json", "/nowhere");
  check_same_fields(s, again);
  CHECK(effective_scenario_json(again) == effective);
  CHECK(scenario_hash(again) == scenario_hash(s));
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("effective JSON: bundled scenarios round-trip") {
  namespace fs = std::filesystem;
  for (const char* folder : {"scenarios/paper", "scenarios/examples"}) {
    for (const auto& entry : fs::directory_iterator(test::source_path(folder))) {
      if (entry.path().extension() != ".json") continue;
      if (entry.path().filename() == "figures.json") continue;  // scripts/reproduce-paper's figure list
      CAPTURE(entry.path().string());
      check_round_trip(load_scenario_file(entry.path().string()));
    }
  }
}

TEST_CASE("effective JSON: awkward values round-trip exactly") {
  const json doc = json::parse(R"({
    "name": "awkward",
    "cluster": {"machines": 7, "gpus_per_machine": 3, "gpu_memory": 123456789, "cpu_memory": "1.7TiB",
                "network_bandwidth": "1234.5678Mbps", "gpu_cpu_bandwidth": "3.3GB/s", "nvlink_bandwidth": "7KiB/s",
                "gpu_peak_flops": "1.23456789TFLOPS", "gpu_memory_bandwidth": "1.555TB/s",
                "network": {"topology": "leaf-spine", "latency": "1.5us", "oversubscription": 2.5, "machines_per_leaf": 3,
                            "collective": "hierarchical"}},
    "storage": {"bandwidth": "0.7Gbps"},
    "model": {"layers": 3, "hidden": 96, "ffn": 333, "heads": 3, "vocabulary": 1000},
    "training": {"serialization_bandwidth": "1B/s", "compute_efficiency": 0.333, "iteration_time": 0.1234567891,
                 "activation_recomputation": false,
                 "zero3": {"prefetch_bucket_size": 0, "param_persistence_threshold": 12345.5, "max_live_parameters": 3e9,
                           "max_reuse_distance": 0, "reduce_bucket_size": 1.5e8, "trace": "invalid"},
                 "engine": "fsdp",
                 "fsdp": {"sharding_strategy": "hybrid-shard", "backward_prefetch": "none", "forward_prefetch": true,
                          "limit_all_gathers": false}},
    "strategy": {"kind": "in-memory-blocking", "replicas": 3, "placement": "mixed", "gpu_buffer": 1000,
                 "persistent_interval": "never", "checkpoint_stall": "90001ms"},
    "failures": {"process": "weibull", "shape": 0.71, "scale": "1234567s", "hardware_fraction": "33%",
                 "replacement": {"distribution": "lognormal", "median": "299s", "sigma": 0.1}},
    "run": {"iterations": 123456789, "seed": 9223372036854775807}
  })");
  const Scenario s = load_scenario_json(doc, "awkward.json", ".");
  check_round_trip(s);
  const json e = effective_scenario_json(s);
  CHECK(e["strategy"]["persistent_interval"] == "never");
  CHECK_FALSE(e["run"].contains("duration"));  // unset optional: left out
  CHECK_FALSE(e["cluster"].contains("instance"));
}

TEST_CASE("effective JSON: every field is explicit, in input units") {
  const Scenario s = load_scenario_file(test::source_path("scenarios/paper/gpt2-100b-16xp4d.json"));
  const json e = effective_scenario_json(s);
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias || f.presence == Presence::optional) continue;
    if (f.pointer == "/failures/trace") continue;  // no trace file under an exponential process
    CAPTURE(f.pointer);
    // The megatron fields are written only under training.parallelism "megatron".
    const bool applies = f.applies == nullptr || f.applies(s);
    CHECK(e.contains(json::json_pointer(std::string(f.pointer))) == applies);
  }
  CHECK(e["cluster"]["network_bandwidth"] == "50GB/s");          // 5e10 B/s
  CHECK(e["strategy"]["gpu_buffer"] == "128MiB");
  CHECK(e["strategy"]["persistent_interval"] == "3h");
  CHECK(e["failures"]["rate"] == "1.5%/machine/day");
  CHECK(e["cluster"]["instance"] == "p4d.24xlarge");
}

TEST_CASE("scenario hash: FNV-1a 64 test vectors") {
  // Published FNV-1a 64-bit vectors (Fowler/Noll/Vo test suite): "" -> the offset basis,
  // "a" -> af63dc4c8601ec8c, "foobar" -> 85944171f73967e8.
  CHECK(fnv1a_64("") == 0xcbf29ce484222325ULL);
  CHECK(fnv1a_64("a") == 0xaf63dc4c8601ec8cULL);
  CHECK(fnv1a_64("foobar") == 0x85944171f73967e8ULL);
}

TEST_CASE("scenario hash: 16 hex digits, stable, sensitive to any field") {
  const Scenario s = load_scenario_file(test::source_path("scenarios/paper/gpt2-100b-16xp4d.json"));
  const std::string h = scenario_hash(s);
  CHECK(h.size() == 16);
  CHECK(h.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(scenario_hash(s) == h);
  Scenario t = s;
  t.run.seed += 1;
  CHECK(scenario_hash(t) != h);
  t = s;
  t.source_file = "elsewhere.json";  // not part of the scenario's meaning
  CHECK(scenario_hash(t) == h);
}

TEST_SUITE_END();
