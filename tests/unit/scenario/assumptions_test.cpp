// Where each parameter in effect came from (scenario/assumptions.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/assumptions.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "../common/scenario_documents.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

const Assumption& find(const std::vector<Assumption>& all, const char* pointer) {
  const auto it = std::find_if(all.begin(), all.end(), [&](const Assumption& a) { return a.pointer == pointer; });
  REQUIRE(it != all.end());
  return *it;
}

/// A scenario file holding `doc`, removed at the end of the test (the origins are read from it).
struct ScenarioFile {
  std::filesystem::path path = std::filesystem::temp_directory_path() / "ckptsim-assumptions-test.json";
  explicit ScenarioFile(const json& doc) {
    std::ofstream out(path);
    out << doc.dump();
  }
  ~ScenarioFile() { std::filesystem::remove(path); }
  [[nodiscard]] Scenario load() const { return load_scenario_file(path.string()); }
};

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("written_pointers: the table pointers a document holds, with the seed's other spelling") {
  json doc = test::minimal_scenario_document();
  doc["seed"] = 7;
  const auto written = written_pointers(doc);
  // The minimal document writes 9 table fields (cluster.instance, cluster.machines,
  // storage.bandwidth, model.preset, training.serialization_bandwidth, strategy.kind,
  // failures.process, failures.rate, run.duration) and the top-level seed (= /run/seed).
  CHECK(written.size() == 10);
  for (const char* p : {"/cluster/instance", "/cluster/machines", "/storage/bandwidth", "/model/preset",
                        "/training/serialization_bandwidth", "/strategy/kind", "/failures/process", "/failures/rate",
                        "/run/duration", "/run/seed"})
    CHECK(std::find(written.begin(), written.end(), p) != written.end());
  CHECK(written_pointers(json::array()).empty());
}

TEST_CASE("scenario_assumptions: file, table default, instance and model preset origins") {
  json doc = test::minimal_scenario_document();
  doc["training"]["micro_batch"] = 4;
  const ScenarioFile file(doc);
  const auto all = scenario_assumptions(file.load());
  // Written in the file.
  CHECK(find(all, "/training/micro_batch").origin == ValueOrigin::file);
  CHECK(find(all, "/training/micro_batch").value == "4");
  CHECK(find(all, "/training/micro_batch").source == "scenario file");
  // Not written: the parameter table's default, 512 tokens (`ckptsim list parameters`).
  CHECK(find(all, "/training/sequence_length").origin == ValueOrigin::defaulted);
  CHECK(find(all, "/training/sequence_length").value == "512");
  // p4d's measured point-to-point factor, 0.552 (libfabric issue 5694; presets.cpp), overrides
  // the table's 1.0: the instance is named as its origin.
  CHECK(find(all, "/cluster/network/p2p_efficiency").origin == ValueOrigin::preset);
  CHECK(find(all, "/cluster/network/p2p_efficiency").value == "0.552");
  CHECK(find(all, "/cluster/network/p2p_efficiency").source == "instance \"p4d.24xlarge\"");
  // CPU memory comes with the instance (1152 GiB per p4d).
  CHECK(find(all, "/cluster/cpu_memory").source == "instance \"p4d.24xlarge\"");
  // p4d has GPUDirect RDMA (NCCL's "GDRDMA" lines; presets.cpp): the preset's true, although it
  // equals the table's fallback, is the instance's, not a default.
  CHECK(find(all, "/cluster/gpudirect_rdma").value == "true");
  CHECK(find(all, "/cluster/gpudirect_rdma").origin == ValueOrigin::preset);
  CHECK(find(all, "/cluster/gpudirect_rdma").source == "instance \"p4d.24xlarge\"");
  // The layer count comes with the model preset.
  CHECK(find(all, "/model/layers").source == "model preset \"gpt2-100b\"");
}

TEST_CASE("scenario_assumptions: every model field the model preset fills is credited to it (issue 38)") {
  // llama2-70b on p4d: the preset fills dropout 0, 8 key/value heads, a gated FFN and untied
  // embeddings (presets.cpp), values that differ from the table's defaults. They are the model
  // preset's, not the instance's (an instance fills cluster fields only); so are the values
  // equal to the defaults (causal, one expert) and the published parameter count.
  json doc = test::minimal_scenario_document();
  doc["model"] = {{"preset", "llama2-70b"}};
  {
    const ScenarioFile file(doc);
    const auto all = scenario_assumptions(file.load());
    for (const char* p : {"/model/dropout", "/model/kv_heads", "/model/gated_ffn", "/model/tied_embeddings",
                          "/model/causal", "/model/experts", "/model/experts_per_token", "/model/parameters"}) {
      CHECK_MESSAGE(find(all, p).origin == ValueOrigin::preset, p);
      CHECK_MESSAGE(find(all, p).source == "model preset \"llama2-70b\"", p);
    }
    CHECK(find(all, "/model/kv_heads").value == "8");
  }
  // An edited architecture is counted anew: the count is computed, no longer the preset's.
  doc["model"]["vocabulary"] = 128256;
  {
    const ScenarioFile file(doc);
    CHECK(find(scenario_assumptions(file.load()), "/model/parameters").origin == ValueOrigin::computed);
  }
  // GPT-2 100B has no grouped-query attention: with the heads written, one key/value head per
  // written head (the table's rule), not the preset's.
  doc["model"] = {{"preset", "gpt2-100b"}, {"heads", 32}};
  {
    const ScenarioFile file(doc);
    const auto all = scenario_assumptions(file.load());
    CHECK(find(all, "/model/kv_heads").value == "32");
    CHECK(find(all, "/model/kv_heads").origin == ValueOrigin::defaulted);
    CHECK(find(all, "/model/dropout").source == "model preset \"gpt2-100b\"");
  }
}

TEST_CASE("key_assumptions: the key pointers in their order, whatever the file wrote") {
  const ScenarioFile file(test::minimal_scenario_document());
  const auto key = key_assumptions(file.load());
  std::vector<std::string> pointers;
  for (const auto& a : key) pointers.push_back(a.pointer);
  std::vector<std::string> expected;
  for (auto p : key_assumption_pointers()) expected.emplace_back(p);
  // compute_efficiency is unset (the kernel model times compute), so it is left out. Half the
  // failures are hardware (the table's default fraction), so the replacement delay follows: the
  // default, a fixed time.
  expected.erase(std::remove(expected.begin(), expected.end(), "/training/compute_efficiency"), expected.end());
  expected.emplace_back("/failures/replacement/distribution");
  expected.emplace_back("/failures/replacement/value");
  CHECK(pointers == expected);
}

TEST_CASE("key_assumptions: the replacement delay, with its distribution's parameters, always; marked where no machine is replaced") {
  // Issue 38, item 7: the delay decides the replacement waits and whether standbys pay off.
  const auto shown = [](const json& doc) {
    const ScenarioFile file(doc);
    std::vector<std::string> out;
    for (const auto& a : key_assumptions(file.load()))
      if (a.pointer.rfind("/failures/replacement", 0) == 0) out.push_back(a.pointer + " = " + a.value + " (" + a.source + ")");
    return out;
  };
  json doc = test::minimal_scenario_document();
  // Uniform, written in the file: its bounds, not the fixed value nor the lognormal's parameters.
  doc["failures"]["replacement"] = {{"distribution", "uniform"}, {"low", "4min"}, {"high", "7min"}};
  CHECK(shown(doc) == std::vector<std::string>{"/failures/replacement/distribution = uniform (scenario file)",
                                               "/failures/replacement/low = 4min (scenario file)",
                                               "/failures/replacement/high = 7min (scenario file)"});
  // Lognormal with the table's default shape, 0.25.
  doc["failures"]["replacement"] = {{"distribution", "lognormal"}, {"median", "2h"}};
  CHECK(shown(doc) == std::vector<std::string>{"/failures/replacement/distribution = lognormal (scenario file)",
                                               "/failures/replacement/median = 2h (scenario file)",
                                               "/failures/replacement/sigma = 0.25 (default)"});
  // A bare duration is a fixed time the file wrote (the loader's rule), not a default.
  doc["failures"]["replacement"] = "9min";
  CHECK(shown(doc) == std::vector<std::string>{"/failures/replacement/distribution = fixed (scenario file)",
                                               "/failures/replacement/value = 9min (scenario file)"});
  // No failure replaces a machine (every failure software, or none at all): the delay is still
  // shown (issue 42: `assumed` always includes it), and its source says that nothing here waits
  // for it.
  doc["failures"]["hardware_fraction"] = 0;
  CHECK(shown(doc) == std::vector<std::string>{
                          "/failures/replacement/distribution = fixed (scenario file; no failure here replaces a machine)",
                          "/failures/replacement/value = 9min (scenario file; no failure here replaces a machine)"});
  json none = test::minimal_scenario_document();
  none["failures"] = {{"process", "none"}};
  // The table's defaults: a fixed 5 min (docs/parameters.md).
  CHECK(shown(none) == std::vector<std::string>{
                           "/failures/replacement/distribution = fixed (default; no failure here replaces a machine)",
                           "/failures/replacement/value = 5min (default; no failure here replaces a machine)"});
  // ... unless a rack failure does (its hardware share defaults to 1), or a cause of the table.
  doc["failures"]["domains"] = {{"rack", {{"machines", 4}, {"rate", "1%/domain/day"}}}};
  CHECK(shown(doc) == std::vector<std::string>{"/failures/replacement/distribution = fixed (scenario file)",
                                               "/failures/replacement/value = 9min (scenario file)"});
  json causes = test::minimal_scenario_document();
  causes["failures"]["causes"] = json::array({{{"name", "gpu"}, {"share", 1}, {"outcome", "hardware"}}});
  CHECK(shown(causes) == std::vector<std::string>{"/failures/replacement/distribution = fixed (default)",
                                                  "/failures/replacement/value = 5min (default)"});
  causes["failures"]["causes"][0]["outcome"] = "software";
  CHECK(shown(causes) == std::vector<std::string>{
                             "/failures/replacement/distribution = fixed (default; no failure here replaces a machine)",
                             "/failures/replacement/value = 5min (default; no failure here replaces a machine)"});
}

TEST_CASE("written_pointers: a bare replacement duration writes the fixed distribution and its value") {
  json doc = test::minimal_scenario_document();
  doc["failures"]["replacement"] = "9min";
  const auto written = written_pointers(doc);
  CHECK(std::find(written.begin(), written.end(), "/failures/replacement/distribution") != written.end());
  CHECK(std::find(written.begin(), written.end(), "/failures/replacement/value") != written.end());
  CHECK(std::find(written.begin(), written.end(), "/failures/replacement/low") == written.end());
}

TEST_CASE("scenario_assumptions: a scenario built in code has nothing written") {
  Scenario s = load_scenario_json(test::minimal_scenario_document(), "", ".");
  s.source_file.clear();
  for (const auto& a : scenario_assumptions(s)) CHECK(a.origin != ValueOrigin::file);
}

TEST_SUITE_END();
