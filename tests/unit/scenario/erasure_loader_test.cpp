// Loading the erasure-coded strategy: its fields and the cross-field checks (checks.cpp).
#include <doctest/doctest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "../common/scenario_documents.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// 16 machines, GPT-2 100B: 1e11 parameters x 12 B / 16 = shard c = 75 GB.
json erasure_doc(const json& strategy, const std::string& cpu_memory = "2TB") {
  json doc = json::parse(R"({
    "cluster": {"instance": "p4d.24xlarge", "machines": 16},
    "storage": {"bandwidth": "20Gbps"},
    "model": {"preset": "gpt2-100b", "parameters": 1e11},
    "training": {"serialization_bandwidth": "1GB/s", "iteration_time": "60s"},
    "failures": {"process": "none"},
    "run": {"duration": "1d"}
  })");
  doc["strategy"] = strategy;
  doc["cluster"]["cpu_memory"] = cpu_memory;
  return doc;
}

}  // namespace

TEST_CASE("erasure-coded fields load, with defaults g = 8, p = 1, 10 GB/s") {
  const Scenario s = load_scenario_json(erasure_doc({{"kind", "erasure-coded"}}), "ec.json", ".");
  CHECK(s.strategy.kind == StrategyKind::erasure_coded);
  CHECK(s.strategy.group_size == 8);
  CHECK(s.strategy.parity == 1);
  CHECK(s.strategy.encode_bandwidth == 10e9);
  const Scenario t = load_scenario_json(
      erasure_doc({{"kind", "erasure-coded"}, {"group_size", 4}, {"parity", 2}, {"placement", "group-spread"},
                   {"encode_bandwidth", "5GB/s"}}),
      "ec.json", ".");
  CHECK(t.strategy.group_size == 4);
  CHECK(t.strategy.parity == 2);
  CHECK(t.strategy.placement == PlacementScheme::group_spread);
  CHECK(t.strategy.encode_bandwidth == 5e9);
}

TEST_CASE("erasure-coded parameters out of range are input errors at their pointer") {
  CHECK(test::has_problem_at(test::scenario_problems(erasure_doc({{"kind", "erasure-coded"}, {"parity", 0}})), "/strategy/parity"));
  CHECK(test::has_problem_at(test::scenario_problems(erasure_doc({{"kind", "erasure-coded"}, {"group_size", 4}, {"parity", 4}})),
                       "/strategy/group_size"));
  CHECK(test::has_problem_at(test::scenario_problems(erasure_doc({{"kind", "erasure-coded"}, {"group_size", 32}})), "/strategy/group_size"));
  CHECK(test::has_problem_at(test::scenario_problems(erasure_doc({{"kind", "erasure-coded"}, {"group_size", 6}})), "/strategy/group_size"));
  CHECK(test::has_problem_at(test::scenario_problems(erasure_doc({{"kind", "erasure-coded"}, {"placement", "ring"}})), "/strategy/placement"));
  // The same values are ignored under another strategy (switching kind alone stays valid).
  CHECK(test::scenario_problems(erasure_doc({{"kind", "gemini"}, {"parity", 0}, {"group_size", 6}})).empty());
}

TEST_CASE("erasure-coded CPU memory check: 2 c g / (g - p)") {
  // g = 8, p = 2, c = 75 GB: 2 x 75 x 8/6 = 200 GB per machine fits in 201 GB, not in 199 GB,
  // where GEMINI with 3 replicas needs 2 x 3 x 75 = 450 GB.
  const json ec{{"kind", "erasure-coded"}, {"group_size", 8}, {"parity", 2}};
  CHECK(test::scenario_problems(erasure_doc(ec, "201GB")).empty());
  CHECK(test::has_problem_at(test::scenario_problems(erasure_doc(ec, "199GB")), "/cluster/cpu_memory"));
  CHECK(test::has_problem_at(test::scenario_problems(erasure_doc({{"kind", "gemini"}, {"replicas", 3}, {"placement", "mixed"}}, "449GB")),
                       "/cluster/cpu_memory"));
  CHECK(test::scenario_problems(erasure_doc({{"kind", "gemini"}, {"replicas", 3}, {"placement", "mixed"}}, "451GB")).empty());
}
