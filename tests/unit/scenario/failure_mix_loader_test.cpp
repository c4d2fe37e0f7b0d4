// Loading failure domains, lemon nodes and cause tables (parameters.cpp, cause_table.cpp).
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../common/scenario_documents.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"

using namespace ckptsim;
using nlohmann::json;

using ckptsim::test::has_problem_at;

namespace {

json with_failures(const json& failures) {
  json doc = json::parse(R"({
    "cluster": {"instance": "p4d.24xlarge", "machines": 16},
    "storage": {"bandwidth": "20Gbps"},
    "model": {"preset": "gpt2-100b"},
    "training": {"serialization_bandwidth": "930MB/s"},
    "strategy": {"kind": "gemini"},
    "run": {"duration": "7d"}
  })");
  doc["failures"] = failures;
  return doc;
}

}  // namespace

TEST_CASE("domains, lemons and a cause preset load into the scenario") {
  const Scenario s = load_scenario_json(with_failures(json::parse(R"({
      "process": "exponential", "rate": "1%/machine/day", "causes": "llama3-405b",
      "domains": {"rack": {"machines": 4, "rate": "1%/domain/day", "hardware_fraction": 0.5}},
      "lemons": {"model": "gamma", "gamma_shape": 0.5, "quarantine_failures": 3, "quarantine_window": "2d"}})")),
                                        "test.json", ".");
  CHECK(s.failures.causes.preset == "llama3-405b");
  CHECK(s.failures.causes.causes.size() == 18);
  CHECK(s.failures.domain(DomainKind::rack).machines == 4);
  CHECK(s.failures.domain(DomainKind::rack).rate == doctest::Approx(0.01 / 86400.0));
  CHECK(s.failures.domain(DomainKind::rack).hardware_fraction == 0.5);
  CHECK(s.failures.domain(DomainKind::leaf).machines == 0);
  CHECK(s.failures.lemons.model == LemonModel::gamma);
  CHECK(s.failures.lemons.gamma_shape == 0.5);
  CHECK(s.failures.lemons.quarantine_failures == 3);
  CHECK(s.failures.lemons.quarantine_window == days(2));
}

TEST_CASE("a written cause table loads, and the effective scenario writes it back the same") {
  const Scenario s = load_scenario_json(with_failures(json::parse(R"({
      "process": "exponential", "rate": "1%/machine/day",
      "causes": [{"name": "gpu", "share": 3, "outcome": "hardware", "detection": "30s"},
                 {"name": "bug", "share": 1, "outcome": "software", "restart": "10min"}]})")),
                                        "test.json", ".");
  REQUIRE(s.failures.causes.causes.size() == 2);
  CHECK(s.failures.causes.causes[0].hardware);
  CHECK(s.failures.causes.causes[0].detection == seconds(30));
  CHECK(!s.failures.causes.causes[0].restart);
  CHECK(!s.failures.causes.causes[1].hardware);
  CHECK(s.failures.causes.causes[1].restart == minutes(10));
  const Scenario again = load_scenario_json(effective_scenario_json(s), "again.json", ".");
  REQUIRE(again.failures.causes.causes.size() == 2);
  CHECK(again.failures.causes.causes[1].name == "bug");
  CHECK(again.failures.causes.causes[1].restart == minutes(10));
  CHECK(effective_scenario_json(again) == effective_scenario_json(s));
}

TEST_CASE("cause table problems name the row and key") {
  const auto problems = test::scenario_problems(with_failures(json::parse(R"({
      "process": "exponential", "rate": "1%/machine/day",
      "causes": [{"name": "gpu", "share": 0, "outcome": "hardware"},
                 {"name": "GPU!", "share": 1, "outcome": "maybe", "colour": "red"},
                 {"name": "gpu", "share": 1, "outcome": "software", "detection": "soon"}]})")));
  CHECK(has_problem_at(problems, "/failures/causes/0/share"));
  CHECK(has_problem_at(problems, "/failures/causes/1/name"));
  CHECK(has_problem_at(problems, "/failures/causes/1/outcome"));
  CHECK(has_problem_at(problems, "/failures/causes/1/colour"));
  CHECK(has_problem_at(problems, "/failures/causes/2/name"));  // used twice
  CHECK(has_problem_at(problems, "/failures/causes/2/detection"));
  CHECK(has_problem_at(test::scenario_problems(with_failures(json::parse(R"({"process": "none", "causes": "llama4"})"))),
                       "/failures/causes"));
  CHECK(has_problem_at(test::scenario_problems(with_failures(json::parse(R"({"process": "none", "causes": []})"))),
                       "/failures/causes"));
}

TEST_CASE("domain and lemon problems") {
  // A domain larger than the cluster, an unknown lemon model, a negative rate, an unknown key.
  const auto problems = test::scenario_problems(with_failures(json::parse(R"({
      "process": "none",
      "domains": {"rack": {"machines": 17}, "power": {"rate": "-1%/domain/day"}, "pdu": {}},
      "lemons": {"model": "sour", "multiple": 0.5}})")));
  CHECK(has_problem_at(problems, "/failures/domains/rack/machines"));
  CHECK(has_problem_at(problems, "/failures/domains/power/rate"));
  CHECK(has_problem_at(problems, "/failures/domains/pdu"));
  CHECK(has_problem_at(problems, "/failures/lemons/model"));
  CHECK(has_problem_at(problems, "/failures/lemons/multiple"));
}
