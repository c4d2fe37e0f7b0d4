// Scenario loader (scenario/loader.hpp): paper scenarios, presets and overrides, defaults,
// and every problem of a document reported at once.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/scenario_documents.hpp"
#include "../common/source_path.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

bool has_pointer(const std::vector<Problem>& problems, const std::string& pointer) {
  return test::has_problem_at(problems, pointer);
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("loader: the GPT-2 100B / 16 x p4d paper scenario") {
  const Scenario s = load_scenario_file(test::source_path("scenarios/paper/gpt2-100b-16xp4d.json"));
  CHECK(s.name == "gpt2-100b-16xp4d");
  CHECK(s.cluster.machines == 16);
  CHECK(s.cluster.gpus_per_machine == 8);                        // from the p4d preset
  CHECK(s.cluster.network_bandwidth == 5e10);                    // 400 Gbps
  CHECK(s.storage.bandwidth == 2.5e9);                           // 20 Gbps / 8
  CHECK(s.model.parameters == 100'282'982'400.0);                // see presets_test.cpp
  CHECK(s.strategy.kind == StrategyKind::gemini);
  CHECK(s.strategy.replicas == 2);
  CHECK(s.strategy.placement == PlacementScheme::group);
  CHECK(s.strategy.persistent_interval == hours(3));
  CHECK(s.strategy.gpu_buffer_bytes == 134217728.0);             // 128 MiB
  CHECK(s.strategy.sub_buffers == 4);
  CHECK(s.failures.rate == doctest::Approx(0.015 / 86400).epsilon(1e-12));
  CHECK(s.failures.detection == seconds(15));
  CHECK(s.failures.restart == seconds(253));
  CHECK(s.failures.replacement.distribution == ReplacementDistribution::uniform);
  CHECK(s.failures.replacement.low == minutes(4));
  CHECK(s.failures.replacement.high == minutes(7));
  CHECK(s.run.duration == days(7));
  CHECK(s.run.replicas == 200);
  // Shard = 100,282,982,400 x 12 B / 16 = 75,212,236,800 B; at 930 MB/s the snapshot takes
  // 80.87 s, the ~81 s the paper's HighFreq measurement implies.
  CHECK(s.checkpoint_bytes_per_machine() == 75'212'236'800.0);
  CHECK(s.checkpoint_bytes_per_machine() / s.training.serialization_bandwidth == doctest::Approx(81).epsilon(0.01));
}

TEST_CASE("loader: the GPT-2 40B / 16 x p3dn paper scenario") {
  const Scenario s = load_scenario_file(test::source_path("scenarios/paper/gpt2-40b-16xp3dn.json"));
  CHECK(s.cluster.instance == "p3dn.24xlarge");
  CHECK(s.cluster.network_bandwidth == 1.25e10);                 // 100 Gbps / 8
  CHECK(s.cluster.cpu_memory_bytes == 768.0 * 1024 * 1024 * 1024);
  CHECK(s.model.parameters == 40'531'205'120.0);
  CHECK(s.strategy.kind == StrategyKind::gemini);
}

TEST_CASE("loader: every example scenario loads") {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(test::source_path("scenarios/examples"))) {
    if (entry.path().extension() != ".json") continue;
    CAPTURE(entry.path().string());
    CHECK_NOTHROW(load_scenario_file(entry.path().string()));
    ++count;
  }
  CHECK(count >= 5);
}

TEST_CASE("loader: replica groups are asked of torchft and just-in-time only") {
  // 3 machines cannot be split into 2 replica groups of equal size. A remote-periodic job keeps
  // no replica groups, so it loads; torchft and just-in-time are told to divide the machines.
  json doc = test::minimal_scenario_document();
  doc["cluster"]["machines"] = 3;
  doc["strategy"] = {{"kind", "remote-periodic"}, {"interval", "3h"}};
  CHECK(test::scenario_problems(doc).empty());
  for (const char* kind : {"torchft", "just-in-time"}) {
    CAPTURE(kind);
    doc["strategy"] = {{"kind", kind}, {"replica_groups", 2}};
    if (std::string(kind) == "just-in-time") doc["strategy"]["interval"] = "3h";
    CHECK(has_pointer(test::scenario_problems(doc), "/strategy/replica_groups"));
  }
}

TEST_CASE("loader: explicit fields override preset fields") {
  json doc = test::minimal_scenario_document();
  doc["cluster"]["cpu_memory"] = "2TB";
  doc["model"]["layers"] = 62;
  const Scenario s = load_scenario_json(doc, "override.json", ".");
  CHECK(s.cluster.cpu_memory_bytes == 2e12);
  CHECK(s.cluster.network_bandwidth == 5e10);  // still the preset's
  CHECK(s.model.layers == 62);
  CHECK(s.model.hidden == 8192);
  // Parameters follow the edited architecture: 62 x 805,412,864 + 411,770,880 + 16,384.
  CHECK(s.model.parameters == 50'347'384'832.0);

  doc["model"]["parameters"] = 1e11;  // an explicit count wins over the architecture
  CHECK(load_scenario_json(doc, "override.json", ".").model.parameters == 1e11);
}

TEST_CASE("loader: a Llama preset keeps its published count unless the shape is edited") {
  json doc = test::minimal_scenario_document();
  doc["model"] = {{"preset", "llama2-70b"}};
  CHECK(load_scenario_json(doc, "x.json", ".").model.parameters == 68'976'648'192.0);
  doc["model"]["layers"] = 40;
  // The edited shape counted as the preset's architecture (GQA, SwiGLU, untied; presets.cpp):
  // 40 layers of 855,654,400 = 34,226,176,000; + embeddings in and out 2·32000·8192 =
  // 524,288,000 + final RMSNorm 8,192 -> 34,750,472,192 (not the GPT-style 29,794,156,544).
  CHECK(load_scenario_json(doc, "x.json", ".").model.parameters == 34'750'472'192.0);
}

TEST_CASE("loader: model.dropout comes from the preset unless written; cross_entropy defaults to Megatron's") {
  json doc = test::minimal_scenario_document();
  CHECK(load_scenario_json(doc, "x.json", ".").model.dropout == 0.1);  // gpt2-100b
  CHECK(load_scenario_json(doc, "x.json", ".").training.cross_entropy == CrossEntropyKind::megatron_fp32);
  doc["model"] = {{"preset", "llama2-70b"}};
  CHECK(load_scenario_json(doc, "x.json", ".").model.dropout == 0.0);
  doc["model"]["dropout"] = 0.05;  // an explicit value wins
  doc["training"]["cross_entropy"] = "fused";
  const Scenario s = load_scenario_json(doc, "x.json", ".");
  CHECK(s.model.dropout == 0.05);
  CHECK(s.training.cross_entropy == CrossEntropyKind::fused);
}

TEST_CASE("loader: training.gelu defaults to the fused kernel; unfused is read, another name refused") {
  json doc = test::minimal_scenario_document();
  CHECK(load_scenario_json(doc, "x.json", ".").training.gelu == GeluKind::fused);
  doc["training"]["gelu"] = "unfused";
  CHECK(load_scenario_json(doc, "x.json", ".").training.gelu == GeluKind::unfused);
  doc["training"]["gelu"] = "relu";
  CHECK_THROWS_WITH_AS(load_scenario_json(doc, "x.json", "."), doctest::Contains("/training/gelu"), InputError);
}

TEST_CASE("loader: a strategy of just its kind takes the paper's defaults") {
  json doc = test::minimal_scenario_document();
  doc["strategy"] = {{"kind", "remote-highfreq"}};
  const Scenario s = load_scenario_json(doc, "dir/highfreq.json", ".");
  CHECK(s.name == "highfreq");  // the file name without extension
  CHECK(s.strategy.kind == StrategyKind::remote_highfreq);
  CHECK(s.strategy.replicas == 2);
  CHECK(s.strategy.placement == PlacementScheme::group);
  CHECK(s.strategy.persistent_interval == hours(3));
  CHECK(s.strategy.gpu_buffer_bytes == 128.0 * 1024 * 1024);
  CHECK(s.strategy.sub_buffers == 4);
  CHECK(s.strategy.span_safety == 0.8);
}

TEST_CASE("loader: parameters of another kind are accepted and ignored") {
  json doc = test::minimal_scenario_document();
  // 3 replicas do not divide 16 machines under group placement, but remote-periodic keeps no
  // in-memory replicas, so the placement is never built.
  doc["strategy"] = {{"kind", "remote-periodic"}, {"replicas", 3}, {"interval", "2h"}};
  const Scenario s = load_scenario_json(doc, "x.json", ".");
  CHECK(s.strategy.interval == hours(2));
  doc["strategy"]["kind"] = "gemini";
  CHECK(has_pointer(test::scenario_problems(doc), "/strategy/placement"));
}

TEST_CASE("loader: alternative spellings") {
  json doc = test::minimal_scenario_document();
  doc["seed"] = 42;                                 // top-level seed
  doc["failures"]["replacement"] = "6min";          // a bare duration = fixed
  doc["strategy"]["persistent_interval"] = "never";
  doc["run"] = {{"iterations", 1000}};
  doc["failures"]["hardware_fraction"] = "25%";
  const Scenario s = load_scenario_json(doc, "x.json", ".");
  CHECK(s.run.seed == 42);
  CHECK(s.failures.replacement.distribution == ReplacementDistribution::fixed);
  CHECK(s.failures.replacement.fixed == minutes(6));
  CHECK_FALSE(s.strategy.persistent_interval.has_value());
  CHECK(s.run.iterations == 1000);
  CHECK_FALSE(s.run.duration.has_value());
  CHECK(s.failures.hardware_fraction == 0.25);
}

TEST_CASE("loader: a relative trace path resolves against the scenario's folder") {
  const Scenario s = load_scenario_file(test::source_path("scenarios/examples/p4d-gemini-trace.json"));
  const std::filesystem::path trace(s.failures.trace_file);
  CHECK(trace.is_absolute());
  CHECK(std::filesystem::equivalent(trace, test::source_path("traces/example-failures.csv")));
}

TEST_CASE("loader: every problem is reported at once") {
  json doc = test::minimal_scenario_document();
  doc["cluster"]["machines"] = "sixteen";       // wrong type
  doc["storage"]["bandwidth"] = "20Gbs";        // bad unit
  doc["strategy"]["replica"] = 2;               // unknown key
  const auto problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 3);
  CHECK(has_pointer(problems, "/cluster/machines"));
  CHECK(has_pointer(problems, "/storage/bandwidth"));
  CHECK(has_pointer(problems, "/strategy/replica"));
  for (const auto& p : problems) CHECK(p.file == "test.json");
}

TEST_CASE("loader: problems say what was expected and what was found") {
  json doc = test::minimal_scenario_document();
  doc["strategy"]["kind"] = "lazy";
  doc.erase("storage");
  doc["cluster"]["bogus"] = true;
  const auto problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 3);
  for (const auto& p : problems) {
    CAPTURE(format_problem(p));
    if (p.pointer == "/strategy/kind") {
      CHECK(p.found == "\"lazy\"");                                          // as written
      CHECK(p.expected.find("\"remote-highfreq\"") != std::string::npos);    // names that exist
    } else if (p.pointer == "/storage/bandwidth") {
      CHECK(p.found.rfind("nothing", 0) == 0);
    } else {
      CHECK(p.pointer == "/cluster/bogus");
      CHECK(p.expected.find("\"machines\"") != std::string::npos);           // keys allowed
    }
  }
}

namespace {
const Problem* problem_at(const std::vector<Problem>& problems, const std::string& pointer) {
  auto it = std::find_if(problems.begin(), problems.end(), [&](const Problem& p) { return p.pointer == pointer; });
  return it == problems.end() ? nullptr : &*it;
}
}  // namespace

TEST_CASE("loader: a misspelt key or name is answered with the closest one") {
  json doc = test::minimal_scenario_document();
  doc["training"]["micro_bach"] = 4;          // one letter dropped from micro_batch
  doc["strategy"]["kind"] = "gemni";          // one letter dropped from gemini
  doc["cluster"]["network"]["topology"] = "leaf-spin";
  doc["failures"]["process"] = "Exponential";  // case alone differs: the same name, different case
  const auto problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 4);
  CHECK(problem_at(problems, "/training/micro_bach")->found == "unknown key \"micro_bach\" (did you mean \"micro_batch\"?)");
  CHECK(problem_at(problems, "/strategy/kind")->found == "\"gemni\" (did you mean \"gemini\"?)");
  CHECK(problem_at(problems, "/cluster/network/topology")->found == "\"leaf-spin\" (did you mean \"leaf-spine\"?)");
  CHECK(problem_at(problems, "/failures/process")->found == "\"Exponential\" (did you mean \"exponential\"?)");
}

TEST_CASE("loader: two names equally close are both offered, a far one none") {
  json doc = test::minimal_scenario_document();
  // "gpt2-100" is one edit from "gpt2-10b" (substitute) and from "gpt2-100b" (insert).
  doc["model"]["preset"] = "gpt2-100";
  doc["strategy"]["kind"] = "checkpoint-everything";  // no name within a third of its length
  const auto problems = test::scenario_problems(doc);
  CHECK(problem_at(problems, "/model/preset")->found == "\"gpt2-100\" (did you mean \"gpt2-10b\" or \"gpt2-100b\"?)");
  CHECK(problem_at(problems, "/strategy/kind")->found == "\"checkpoint-everything\"");
}

TEST_CASE("loader: a missing required field says how to write it; a misspelling of it is the one message") {
  json doc = test::minimal_scenario_document();
  doc["storage"].erase("bandwidth");
  doc["training"].erase("serialization_bandwidth");
  doc["training"]["serialisation_bandwidth"] = "930MB/s";  // British spelling: one substitution
  const auto problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 2);
  CHECK(problem_at(problems, "/storage/bandwidth")->found ==
        "nothing (no default; write it as \"storage\": {\"bandwidth\": \"400Gbps\"})");
  // The misspelt key is reported with its hint; the field it fails to fill is not reported again.
  CHECK(problem_at(problems, "/training/serialisation_bandwidth")->found ==
        "unknown key \"serialisation_bandwidth\" (did you mean \"serialization_bandwidth\"?)");
  CHECK(problem_at(problems, "/training/serialization_bandwidth") == nullptr);
}

TEST_CASE("loader: a misspelt preset is reported alone, not with what its unset fields imply") {
  // Without the instance, gpu_peak_flops, network_bandwidth, ... stay 0, which would make the
  // clock checks refuse an infinite iteration: those are consequences, not the user's mistake.
  for (const auto& [bound_pointer, value] : std::vector<std::pair<std::string, std::string>>{
           {"/cluster/instance", "p4d.24xlrge"}, {"/model/preset", "gpt2-100c"}, {"/cluster/gpu", "h100-sxm"}}) {
    const std::string pointer = bound_pointer;  // a copy: clang 14 cannot capture a binding in CAPTURE
    CAPTURE(pointer);
    json doc = test::minimal_scenario_document();
    doc[json::json_pointer(pointer)] = value;
    const auto problems = test::scenario_problems(doc);
    REQUIRE(problems.size() == 1);
    CHECK(problems.front().pointer == pointer);
  }
}

TEST_CASE("loader: unknown keys with JSON-pointer characters are escaped") {
  json doc = test::minimal_scenario_document();
  doc["run"]["a/b~c"] = 1;
  const auto problems = test::scenario_problems(doc);
  CHECK(has_pointer(problems, "/run/a~1b~0c"));
}

TEST_CASE("loader: file-level problems") {
  CHECK_THROWS_AS(load_scenario_file(test::source_path("scenarios/invalid/no-such-file.json")), InputError);
  CHECK_THROWS_AS(load_scenario_file(test::source_path("scenarios/invalid")), InputError);  // a folder
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("scenario");

TEST_CASE("loader: CPU memory must hold two buffers of every shard a machine stores") {
  json doc = test::minimal_scenario_document();
  doc["cluster"]["machines"] = 4;
  doc["model"]["parameters"] = 1e9;
  // Shard = 1e9 x 12 B / 4 machines = 3e9 B; group placement with m = 2 stores 2 shards per
  // machine, each twice (complete + in progress): 2 x 2 x 3e9 = 12e9 B.
  doc["cluster"]["cpu_memory"] = "12GB";
  CHECK_NOTHROW(load_scenario_json(doc, "x.json", "."));
  doc["cluster"]["cpu_memory"] = "11.9GB";
  CHECK(has_pointer(test::scenario_problems(doc), "/cluster/cpu_memory"));
  // Baselines keep no in-memory replicas: the same memory is fine for them.
  doc["strategy"]["kind"] = "remote-periodic";
  CHECK_NOTHROW(load_scenario_json(doc, "x.json", "."));
}

TEST_CASE("loader: mixed placement fits any replica count up to the machine count") {
  json doc = test::minimal_scenario_document();
  doc["cluster"]["machines"] = 7;
  doc["strategy"] = {{"kind", "in-memory-blocking"}, {"replicas", 3}, {"placement", "mixed"}};
  const Scenario s = load_scenario_json(doc, "x.json", ".");
  CHECK(s.strategy.placement == PlacementScheme::mixed);
  doc["strategy"]["placement"] = "group";  // 3 does not divide 7
  CHECK(has_pointer(test::scenario_problems(doc), "/strategy/placement"));
}

TEST_SUITE_END();

TEST_SUITE_BEGIN("scenario");

TEST_CASE("loader: the design sketch (top-level seed, bare replacement time) loads as written") {
  const json sketch = json::parse(R"({
    "name": "gpt2-100b-16xp4d",
    "seed": 1,
    "cluster": { "instance": "p4d.24xlarge", "machines": 16, "standby_machines": 0,
                 "network": { "topology": "single-switch", "latency": "10us" } },
    "storage": { "bandwidth": "20Gbps" },
    "model":   { "preset": "gpt2-100b" },
    "training": { "parallelism": "zero3", "micro_batch": 8, "sequence_length": 512,
                  "checkpoint_bytes_per_parameter": 12, "serialization_bandwidth": "1GB/s" },
    "strategy": { "kind": "gemini", "replicas": 2, "placement": "group",
                  "every_iterations": 1, "gpu_buffer": "128MiB", "sub_buffers": 4,
                  "span_safety": 0.8, "persistent_interval": "3h" },
    "failures": { "process": "exponential", "rate": "1.5%/machine/day",
                  "hardware_fraction": 0.5, "detection": "15s",
                  "replacement": "5min", "restart": "253s" },
    "run": { "duration": "30d", "replicas": 200 }
  })");
  const Scenario s = load_scenario_json(sketch, "sketch.json", ".");
  CHECK(s.run.seed == 1);
  CHECK(s.run.duration == days(30));
  CHECK(s.failures.replacement.fixed == minutes(5));
  CHECK(s.training.serialization_bandwidth == 1e9);
}

TEST_SUITE_END();

TEST_CASE("loader: a duration written as seconds passes the same checks as a unit string") {
  // 5e9 s (158 years) is beyond 100 years whether written 5e9 or "57870.4d".
  for (const char* pointer : {"/strategy/persistent_interval", "/run/duration", "/failures/detection",
                              "/failures/restart", "/failures/replacement"}) {
    CAPTURE(pointer);
    json as_number = test::minimal_scenario_document();
    as_number[json::json_pointer(pointer)] = 5e9;
    json as_string = test::minimal_scenario_document();
    as_string[json::json_pointer(pointer)] = "57870.4d";
    const auto number_problems = test::scenario_problems(as_number);
    const auto string_problems = test::scenario_problems(as_string);
    REQUIRE(number_problems.size() == 1);
    REQUIRE(string_problems.size() == 1);
    CHECK(number_problems[0].pointer == pointer);
    CHECK(number_problems[0].expected == string_problems[0].expected);
    CHECK(number_problems[0].expected.find("at most 100 years") != std::string::npos);
  }
  // Exactly 100 years of seconds is a duration (the bound is inclusive).
  json edge = test::minimal_scenario_document();
  edge["failures"]["detection"] = 3'155'760'000.0;
  CHECK(test::scenario_problems(edge).empty());
  // A cause's own detection reads through the same path.
  json cause = test::minimal_scenario_document();
  cause["failures"]["causes"] = json::parse(R"([{"name": "gpu", "share": 1, "outcome": "hardware", "detection": 9e9}])");
  const auto problems = test::scenario_problems(cause);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].pointer == "/failures/causes/0/detection");
  CHECK(problems[0].expected.find("at most 100 years") != std::string::npos);
}

TEST_CASE("loader: an integer beyond its field's type states the field's maximum") {
  json doc = test::minimal_scenario_document();
  doc["strategy"]["every_iterations"] = 2147483648LL;  // 2^31, one beyond an int
  auto problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].expected.find("at most 2147483647") != std::string::npos);
  doc = test::minimal_scenario_document();
  doc["failures"]["causes"] = json::parse(R"([{"name": "gpu", "share": 1e300, "outcome": "hardware"}])");
  problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].expected.find("at most 1e+12") != std::string::npos);
}
