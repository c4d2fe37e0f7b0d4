// Sweep spec loading: accepted forms, and every problem named by its pointer inside the spec.
#include <doctest/doctest.h>

#include <algorithm>
#include <optional>
#include <utility>
#include <string>

#include "ckptsim/core/error.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/point_shape.hpp"
#include "ckptsim/sweep/spec.hpp"
#include "ckptsim/sweep/sweep.hpp"

using namespace ckptsim;
using namespace ckptsim::sweep;
using nlohmann::json;

namespace {

json minimal_base() { return json{{"name", "b"}}; }

/// The pointers of the problems a spec raises (empty when it loads).
std::vector<std::string> problem_pointers(const json& doc) {
  try {
    (void)load_sweep_spec_json(doc, "spec.json", ".");
  } catch (const InputError& e) {
    std::vector<std::string> out;
    for (const auto& p : e.problems()) {
      CHECK(p.file == "spec.json");
      out.push_back(p.pointer);
    }
    return out;
  }
  return {};
}

/// The pointer of the one problem parse_json_text finds in `text` ("none" when it parses).
std::string only_problem_pointer(const std::string& text) {
  try {
    (void)parse_json_text(text, "spec.json", "sweep spec");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    return e.problems()[0].pointer;
  }
  return "none";
}

bool has(const std::vector<std::string>& v, const std::string& s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

TEST_CASE("sweep spec: the issue's example loads; grid count is the product of the axis lengths") {
  const auto spec = load_sweep_spec_file(std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/sweeps/paper-strategies.json");
  // 2 strategies x 4 machine counts x 1 replica count = 8 points.
  CHECK(point_count(spec) == 8);
  CHECK(spec.seed == 7);
  CHECK(spec.axes.size() == 3);
  CHECK(spec.axes[1].name == "cluster.machines");
  CHECK(spec.base.at("model").at("preset") == "gpt2-100b");  // the base document as written
  CHECK(spec.hash.size() == 16);
}

TEST_CASE("sweep spec: ranges expand linearly and logarithmically, with units and integers") {
  const json doc = {{"base", minimal_base()},
                    {"axes", {{{"pointer", "/a"}, {"range", {{"from", 1}, {"to", 100}, {"steps", 3}, {"scale", "log"}}}},
                              {{"pointer", "/b"}, {"range", {{"from", 0}, {"to", 1}, {"steps", 5}, {"unit", "%/machine/day"}}}},
                              {{"pointer", "/c"}, {"range", {{"from", 16}, {"to", 4096}, {"steps", 9}, {"scale", "log"}, {"integer", true}}}}}}};
  const auto spec = load_sweep_spec_json(doc, "spec.json", ".");
  // log: 1, 10, 100 (geometric); 12 significant digits remove the rounding noise of exp(log).
  CHECK(spec.axes[0].values == std::vector<json>{1.0, 10.0, 100.0});
  // linear 0..1 in 5 steps: 0, 0.25, 0.5, 0.75, 1 with the unit appended.
  CHECK(spec.axes[1].values[1] == "0.25%/machine/day");
  CHECK(spec.axes[1].values[4] == "1%/machine/day");
  // 16 * 2^k for k = 0..8 is 16 ... 4096, as JSON integers.
  CHECK(spec.axes[2].values[3] == 128);
  CHECK(spec.axes[2].values[8] == 4096);
  CHECK(point_count(spec) == 3 * 5 * 9);
}

TEST_CASE("sweep spec: zip and random counts") {
  json zip = {{"base", minimal_base()}, {"mode", "zip"},
              {"axes", {{{"pointer", "/a"}, {"values", {1, 2, 3}}}, {{"pointer", "/b"}, {"values", {4, 5, 6}}}}}};
  CHECK(point_count(load_sweep_spec_json(zip, "spec.json", ".")) == 3);
  json random = {{"base", minimal_base()}, {"mode", "random"}, {"count", 40},
                 {"axes", {{{"pointer", "/a"}, {"distribution", {{"kind", "log-uniform"}, {"low", 1}, {"high", 8}}}}}}};
  CHECK(point_count(load_sweep_spec_json(random, "spec.json", ".")) == 40);
}

TEST_CASE("sweep spec: each mistake is named by its pointer, all at once") {
  const json doc = {{"base", minimal_base()},
                    {"colour", "red"},
                    {"mode", "diagonal"},
                    {"seed", -1},
                    {"axes", {{{"pointer", "cluster/machines"}, {"values", {1}}},
                              {{"pointer", "/x"}},
                              {{"pointer", "/y"}, {"distribution", {{"low", 1}, {"high", 2}}}},
                              {{"pointer", "/z"}, {"range", {{"from", 0}, {"to", 1}, {"steps", 0}}}}}},
                    {"metrics", {"summary/ettr"}}};
  const auto pointers = problem_pointers(doc);
  CHECK(has(pointers, "/colour"));
  CHECK(has(pointers, "/mode"));
  CHECK(has(pointers, "/seed"));
  CHECK(has(pointers, "/axes/0/pointer"));         // not starting with '/'
  CHECK(has(pointers, "/axes/1"));                 // neither values, range nor distribution
  CHECK(has(pointers, "/axes/3/range/steps"));     // zero values
  CHECK(has(pointers, "/metrics/0"));
}

TEST_CASE("sweep spec: zip lengths, duplicate pointers, missing base and random count") {
  const json zip = {{"base", minimal_base()}, {"mode", "zip"},
                    {"axes", {{{"pointer", "/a"}, {"values", {1, 2}}}, {{"pointer", "/a"}, {"values", {1, 2, 3}}}}}};
  const auto z = problem_pointers(zip);
  CHECK(has(z, "/axes/1"));          // 3 values where /axes/0 has 2
  CHECK(has(z, "/axes/1/pointer"));  // the same pointer twice
  CHECK(has(problem_pointers(json{{"axes", json::array()}}), "/base"));
  CHECK(has(problem_pointers(json{{"base", minimal_base()}, {"mode", "random"}, {"axes", json::array()}}), "/count"));
  CHECK(has(problem_pointers(json{{"base", "no-such-file.json"}, {"axes", json::array()}}), "/base"));
}

TEST_CASE("sweep spec: the hash changes with the spec and only with it") {
  json doc = {{"base", minimal_base()}, {"axes", {{{"pointer", "/a"}, {"values", {1, 2}}}}}};
  const auto h1 = load_sweep_spec_json(doc, "spec.json", ".").hash;
  CHECK(load_sweep_spec_json(doc, "other-name.json", ".").hash == h1);  // the file name is not content
  doc["axes"][0]["values"] = {1, 3};
  CHECK(load_sweep_spec_json(doc, "spec.json", ".").hash != h1);
  doc["axes"][0]["values"] = {1, 2};
  doc["base"]["name"] = "c";
  CHECK(load_sweep_spec_json(doc, "spec.json", ".").hash != h1);
}

TEST_CASE("sweep spec files: nesting beyond 64 levels, keys written twice and trailing bytes are problems") {
  // 70 nested arrays: deeper than the 64 levels a spec may nest.
  const std::string deep = "{\"base\": " + std::string(70, '[') + std::string(70, ']') + "}";
  CHECK_THROWS_AS(parse_json_text(deep, "deep.json", "sweep spec"), InputError);
  CHECK(only_problem_pointer("{\"seed\": 1, \"axes\": [], \"seed\": 2}") == "/seed");
  CHECK_THROWS_AS(parse_json_text("{\"seed\": 1} {", "trailing.json", "sweep spec"), InputError);
  // 60 levels are fine.
  CHECK_NOTHROW(parse_json_text("{\"a\": " + std::string(60, '[') + std::string(60, ']') + "}", "ok.json", "sweep spec"));
}

TEST_CASE("sweep spec files: a number beyond a double is a problem at its pointer (fuzz finding)") {
  // scripts/fuzz sweep found that 4e337955312 escaped the spec reader as nlohmann's out_of_range
  // (an uncaught exception, a crash of the command). It is an InputError naming /seed.
  CHECK(only_problem_pointer("{\"seed\": 4e337955312}") == "/seed");
}

TEST_CASE("sweep spec: the four point commands parse; anything else is named at /command") {
  for (const char* name : {"run", "iteration", "analyze", "placement"}) {
    const auto spec = load_sweep_spec_json({{"base", minimal_base()}, {"command", name}, {"axes", json::array()}}, "spec.json", ".");
    CHECK(std::string(command_name(spec.command)) == name);
    // Each command has its own default metrics, all of them pointers into its result.
    CHECK(!spec.metrics.empty());
    CHECK(spec.metrics.front().pointer.front() == '/');
  }
  CHECK(default_metrics(PointCommand::placement).front().pointer == "/placement/probability/1");
  CHECK(default_metrics(PointCommand::analyze).front().pointer == "/metrics/ettr/closed");
  CHECK(has(problem_pointers({{"base", minimal_base()}, {"command", "optimize"}, {"axes", json::array()}}), "/command"));
}

TEST_CASE("sweep spec: every points.csv column once (axes, metrics, their ci95 columns, index, status, error)") {
  const auto axis = [](const char* name) {
    return json{{"pointer", "/failures/hardware_fraction"}, {"name", name}, {"values", {0.5}}};
  };
  // "ettr" is a default metric of run points; index, status and error are the fixed columns.
  for (const char* name : {"ettr", "status", "index", "error", "ettr_ci95"}) {
    CAPTURE(name);
    CHECK(problem_pointers({{"base", minimal_base()}, {"axes", {axis(name)}}}) == std::vector<std::string>{"/axes/0/name"});
  }
  CHECK(problem_pointers({{"base", minimal_base()}, {"axes", {axis("fraction")}}}).empty());
  // A duration axis brings its numeric column NAME_s (results.hpp): a metric of that name clashes.
  const json interval{{"pointer", "/strategy/interval"}, {"name", "interval"}, {"values", {"1h"}}};
  CHECK(problem_pointers({{"base", minimal_base()}, {"axes", {interval}}, {"metrics", {{{"name", "interval_s"}, {"pointer", "/summary/ettr"}}}}}) ==
        std::vector<std::string>{"/axes/0/name"});
  CHECK(problem_pointers({{"base", minimal_base()}, {"axes", {interval}}}).empty());
  // A metric repeated, or named as another's ci95 column.
  CHECK(problem_pointers({{"base", minimal_base()}, {"axes", json::array()}, {"metrics", {"/summary/ettr", "/summary/ettr"}}}) ==
        std::vector<std::string>{"/metrics/1"});
  CHECK(problem_pointers({{"base", minimal_base()},
                          {"axes", json::array()},
                          {"metrics", {"/summary/ettr", {{"name", "ettr_ci95"}, {"pointer", "/summary/iterations"}}}}}) ==
        std::vector<std::string>{"/metrics/1"});
}

TEST_CASE("sweep spec: a metric pointer must be able to resolve in its command's result") {
  const auto metrics = [](const char* command, const char* pointer) {
    return problem_pointers({{"base", minimal_base()}, {"command", command}, {"axes", json::array()}, {"metrics", {pointer}}});
  };
  // Fixed parts, optional parts of other variants (multi-level costs), any cause name.
  for (const char* ok : {"/summary/ettr", "/summary/ettr/ci95", "/costs/partner_stall_s", "/costs/erasure_code/parity",
                         "/summary/failures_by_cause/gpu", "/summary/time_lost_by_cause_s/gpu/mean",
                         "/scenario/cluster/machines", "/scenario/failures/causes/0/share", "/scenario_hash"})
    CHECK(metrics("run", ok).empty());
  for (const char* bad : {"/summary/etr", "/summary/ettr/median", "/costs/nothing", "/scenario/cluster/machinez", "/placement"})
    CHECK(metrics("run", bad) == std::vector<std::string>{"/metrics/0"});
  // Placement arrays hold k = 0..16.
  CHECK(metrics("placement", "/placement/probability/16").empty());
  CHECK(metrics("placement", "/placement/ci95_low/3").empty());
  CHECK(metrics("placement", "/placement/probability/17") == std::vector<std::string>{"/metrics/0"});
  CHECK(metrics("analyze", "/metrics/ettr/simulated/ci95").empty());
  CHECK(metrics("analyze", "/closed_form/intervals/daly_s").empty());
  CHECK(metrics("analyze", "/metrics/etr/closed") == std::vector<std::string>{"/metrics/0"});
  CHECK(metrics("iteration", "/costs/min_every_iterations").empty());
  CHECK(metrics("iteration", "/summary/ettr") == std::vector<std::string>{"/metrics/0"});
  // Every default metric of every command passes its own check.
  for (const char* command : {"run", "iteration", "analyze", "placement"})
    CHECK(problem_pointers({{"base", minimal_base()}, {"command", command}, {"axes", json::array()}}).empty());
}

TEST_CASE("sweep spec: a range of one step must not drop its end; a later axis must not replace an earlier one") {
  const auto range = [](double from, double to) {
    return json{{"base", minimal_base()}, {"axes", {{{"pointer", "/run/replicas"}, {"range", {{"from", from}, {"to", to}, {"steps", 1}}}}}}};
  };
  CHECK(problem_pointers(range(1, 10)) == std::vector<std::string>{"/axes/0/range/steps"});
  CHECK(problem_pointers(range(4, 4)).empty());  // one value, written once
  const json nested{{"base", minimal_base()},
                    {"axes", {{{"pointer", "/strategy/replicas"}, {"values", {2}}},
                              {{"pointer", "/strategy"}, {"values", {{{"kind", "gemini"}}}}}}}};
  CHECK(problem_pointers(nested) == std::vector<std::string>{"/axes/1/pointer"});
  const json enclosing_first{{"base", minimal_base()},
                             {"axes", {{{"pointer", "/strategy"}, {"values", {{{"kind", "gemini"}}}}},
                                       {{"pointer", "/strategy/replicas"}, {"values", {2}}}}}};
  CHECK(problem_pointers(enclosing_first).empty());
}

TEST_CASE("metric pointers: every strategy's own costs members resolve for run and analyze points") {
  // The costs JSON gains erasure_code.{group_size, parity, encode_s} for erasure-coded and
  // partner_every_iterations, partner_stall_s, persistent_stall_s for multi-level (each
  // strategy's add_costs_json, docs/models.md "Outputs"): a sweep may name them whatever the
  // strategy of its base, and a member no strategy writes is refused.
  for (const PointCommand command : {PointCommand::run, PointCommand::analyze}) {
    CAPTURE(static_cast<int>(command));
    for (const char* pointer : {"/costs/erasure_code/parity", "/costs/erasure_code/encode_s", "/costs/partner_stall_s",
                                "/costs/persistent_stall_s", "/costs/partner_every_iterations", "/costs/checkpoint_stall_s"}) {
      CAPTURE(pointer);
      CHECK(metric_pointer_possible(command, pointer));
    }
    CHECK_FALSE(metric_pointer_possible(command, "/costs/erasure_code/stripes"));
  }
}

TEST_CASE("sweep shards: I/N with 0 <= I < N and digits only, as --shard and ckptsim.sweep(shard=) take it") {
  CHECK(parse_shard("0/1") == std::optional<std::pair<int, int>>({0, 1}));
  CHECK(parse_shard("7/8") == std::optional<std::pair<int, int>>({7, 8}));
  CHECK_FALSE(parse_shard("8/8"));   // I = N: no such shard
  CHECK_FALSE(parse_shard("0/0"));   // no shards
  CHECK_FALSE(parse_shard("-1/4"));  // a negative index
  CHECK_FALSE(parse_shard("1/2x"));  // trailing text
  CHECK_FALSE(parse_shard("1 2"));   // no slash
  CHECK_FALSE(parse_shard("1/99999999999"));  // N beyond an int
}
