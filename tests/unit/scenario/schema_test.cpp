// The scenario JSON Schema (scenario/schema.hpp) and the "$schema" key the loader accepts.
// The schema's agreement with every bundled and invalid scenario is checked by a JSON Schema
// validator in tests/integration/schema_test.py; here, its structure and its patterns.
#include <doctest/doctest.h>

#include <algorithm>
#include <regex>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/scenario_documents.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/scenario/schema.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// The schema of the property at an RFC 6901 pointer of the scenario ("/strategy/kind"),
/// through the object branch where a value may also be written otherwise (/failures/replacement).
const nlohmann::ordered_json& property(const nlohmann::ordered_json& schema, const std::string& pointer) {
  const nlohmann::ordered_json* node = &schema;
  std::size_t pos = 1;
  while (pos <= pointer.size()) {
    const std::size_t next = std::min(pointer.find('/', pos), pointer.size());
    if (!node->contains("properties") && node->contains("anyOf"))
      for (const auto& branch : (*node)["anyOf"])
        if (branch.contains("properties")) node = &branch;
    node = &node->at("properties").at(pointer.substr(pos, next - pos));
    pos = next + 1;
  }
  return *node;
}

/// Whether `text` matches the string pattern of a property (JSON Schema patterns are
/// ECMA-262 regular expressions, std::regex's default grammar), in any branch of an anyOf.
bool matches(const nlohmann::ordered_json& property_schema, const std::string& text) {
  if (property_schema.contains("pattern"))
    return std::regex_search(text, std::regex(property_schema["pattern"].get<std::string>()));
  if (property_schema.contains("anyOf"))
    for (const auto& branch : property_schema["anyOf"])
      if (branch.contains("pattern") && matches(branch, text)) return true;
  return false;
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("loader: a top-level \"$schema\" string is accepted and ignored") {
  json doc = test::minimal_scenario_document();
  doc["$schema"] = "../../docs/scenario.schema.json";
  const Scenario with = load_scenario_json(doc, "test.json", ".");
  const Scenario without = load_scenario_json(test::minimal_scenario_document(), "test.json", ".");
  // The key changes nothing: the effective scenarios hash alike.
  CHECK(scenario_hash(with) == scenario_hash(without));
}

TEST_CASE("loader: \"$schema\" must be a string, and only at the top level") {
  json doc = test::minimal_scenario_document();
  doc["$schema"] = 5;
  auto problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].pointer == "/$schema");

  doc = test::minimal_scenario_document();
  doc["strategy"]["$schema"] = "x";
  problems = test::scenario_problems(doc);
  REQUIRE(problems.size() == 1);
  CHECK(problems[0].pointer == "/strategy/$schema");
}

TEST_CASE("schema: an $id that names it wherever it is installed") {
  const auto schema = scenario_schema();
  // A URN (RFC 8141: "urn:" NID ":" NSS) is an absolute URI without a fragment, as draft
  // 2020-12 requires of $id, and names no location that could move.
  CHECK(schema.at("$id") == "urn:ckptsim:scenario");
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
}

TEST_CASE("rebase_relative_paths: a copy in another folder names the same schema and trace") {
  json doc = test::minimal_scenario_document();
  doc["$schema"] = "../../docs/scenario.schema.json";
  doc["failures"]["trace"] = "traces/x.csv";
  // From /repo/scenarios/paper to /repo: /repo/scenarios/paper/../../docs is /repo/docs, which
  // from /repo is docs/; the trace, relative to the scenario, is under scenarios/paper/.
  rebase_relative_paths(doc, "/repo/scenarios/paper", "/repo");
  CHECK(doc["$schema"] == "docs/scenario.schema.json");
  CHECK(doc["failures"]["trace"] == "scenarios/paper/traces/x.csv");
  // Into a sibling folder: up one, then down.
  rebase_relative_paths(doc, "/repo", "/repo/out");
  CHECK(doc["$schema"] == "../docs/scenario.schema.json");
  // URLs, URNs and absolute paths are left as written.
  for (const char* kept : {"https://example.org/s.json", "urn:ckptsim:scenario", "/usr/share/ckptsim/scenario.schema.json"}) {
    doc["$schema"] = kept;
    rebase_relative_paths(doc, "/repo", "/elsewhere");
    CHECK(doc["$schema"] == kept);
  }
}

TEST_CASE("loader: a scenario without \"name\" is named after its file") {
  // The bundled scenarios write no name, so a copy takes the copy's file name.
  CHECK(load_scenario_json(test::minimal_scenario_document(), "/tmp/my-cluster.json", ".").name == "my-cluster");
  json doc = test::minimal_scenario_document();
  doc["name"] = "written";
  CHECK(load_scenario_json(doc, "/tmp/my-cluster.json", ".").name == "written");
}

TEST_CASE("schema: every field of the parameter table is a property at its pointer") {
  const auto schema = scenario_schema();
  CHECK(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  for (const Field& f : scenario_fields()) {
    CAPTURE(f.pointer);
    CHECK_NOTHROW((void)property(schema, std::string(f.pointer)));
  }
  // Objects admit only their keys.
  CHECK(schema["additionalProperties"] == false);
  CHECK(property(schema, "/strategy")["additionalProperties"] == false);
}

TEST_CASE("schema: names, defaults, ranges and required fields") {
  const auto schema = scenario_schema();
  // The four placements of GEMINI §4 and the random one.
  CHECK(property(schema, "/strategy/placement")["enum"] == nlohmann::ordered_json({"group", "ring", "mixed", "random", "group-spread", "clique"}));
  // Defaults in input form: the paper's 3-hour persistent interval, 128 MiB buffer, 2 replicas.
  CHECK(property(schema, "/strategy/persistent_interval")["default"] == "3h");
  CHECK(property(schema, "/strategy/gpu_buffer")["default"] == "128MiB");
  CHECK(property(schema, "/strategy/replicas")["default"] == 2);
  CHECK(property(schema, "/strategy/replicas")["minimum"] == 1);
  // A required field makes its object required too.
  CHECK(property(schema, "/strategy")["required"] == nlohmann::ordered_json({"kind"}));
  const auto& top_required = schema["required"];
  CHECK(std::find(top_required.begin(), top_required.end(), "strategy") != top_required.end());
  CHECK(std::find(top_required.begin(), top_required.end(), "run") == top_required.end());
}

TEST_CASE("schema: unit patterns accept what the unit parsers accept") {
  const auto schema = scenario_schema();
  const auto& bandwidth = property(schema, "/storage/bandwidth");
  CHECK(matches(bandwidth, "20Gbps"));
  CHECK(matches(bandwidth, "25 GB/s"));
  CHECK(matches(bandwidth, "0.5TB/s"));
  CHECK_FALSE(matches(bandwidth, "20Gbs"));     // scenarios/invalid/bad-unit.json
  CHECK_FALSE(matches(bandwidth, "0Gbps"));     // a bandwidth is positive
  CHECK_FALSE(matches(bandwidth, "-100Gbps"));
  const auto& rate = property(schema, "/failures/rate");
  CHECK(matches(rate, "1.5%/machine/day"));
  CHECK(matches(rate, "0.02/machine/h"));
  CHECK(matches(rate, "2/cluster/day"));
  CHECK(matches(rate, "2/job/week"));
  CHECK(matches(rate, "0/day"));                // zero needs no subject (units.cpp)
  CHECK(matches(rate, "0.0 %/day"));
  CHECK_FALSE(matches(rate, "1.5%/day"));       // a rate that names no subject (issue 38)
  CHECK_FALSE(matches(rate, "1.5%/domain/day"));
  CHECK_FALSE(matches(rate, "1.5%/machine/fortnight"));
  // A failure domain's rate: per domain or per cluster, never per machine.
  const auto& rack = property(schema, "/failures/domains/rack/rate");
  CHECK(matches(rack, "0.06%/domain/day"));
  CHECK(matches(rack, "2/cluster/day"));
  CHECK(matches(rack, "0/day"));
  CHECK_FALSE(matches(rack, "0.06%/machine/day"));
  CHECK_FALSE(matches(rack, "0.06%/day"));
  const auto& interval = property(schema, "/strategy/persistent_interval");
  CHECK(matches(interval, "3h"));
  CHECK(matches(interval, "2.5d"));
  CHECK_FALSE(matches(interval, "0s"));         // checked positive
  CHECK_FALSE(matches(interval, "3 hours"));
  const auto& fraction = property(schema, "/failures/hardware_fraction");
  CHECK(matches(fraction, "50%"));
  CHECK_FALSE(matches(fraction, "half"));
}

TEST_SUITE_END();
