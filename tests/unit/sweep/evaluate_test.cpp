// Evaluating points: invalid points are recorded, the iteration-cost cache is keyed by what the
// iteration model reads.
#include <doctest/doctest.h>

#include <string>

#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/points.hpp"

using namespace ckptsim;
using namespace ckptsim::sweep;
using nlohmann::json;

namespace {

const std::string kPaper = std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper/gpt2-100b-16xp4d.json";

/// The paper's testbed, one day, 4 replicas: quick enough for a unit test.
json small_paper_base() {
  json base = read_json_file(kPaper, "scenario");
  base["run"]["duration"] = "1d";
  base["run"]["replicas"] = 4;
  return base;
}

}  // namespace

TEST_CASE("evaluate: an invalid point is recorded with its error, the others run") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"axes", {{{"pointer", "/cluster/machines"}, {"values", {16, 0}}}}}}, "spec.json", ".");
  CostCache cache;
  const auto good = evaluate_point(spec, 0, cache);
  const auto bad = evaluate_point(spec, 1, cache);
  CHECK(good.status == "ok");
  CHECK(good.result.at("summary").at("ettr").at("mean").get<double>() > 0.9);
  CHECK(bad.status == "invalid");
  CHECK(bad.error.find("/cluster/machines") != std::string::npos);
  CHECK(bad.result.is_null());
}

TEST_CASE("evaluate: the point seed replaces the scenario's seed; results repeat") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"seed", 11}, {"axes", {{{"pointer", "/failures/rate"}, {"values", {"5%/machine/day", "5%/machine/day"}}}}}},
      "spec.json", ".");
  CostCache cache;
  const auto a = evaluate_point(spec, 0, cache);
  const auto b = evaluate_point(spec, 1, cache);
  CHECK(a.result.at("scenario").at("run").at("seed") == point_seed(11, 0));
  // The recorded hash is the one `ckptsim run` would put in its manifest for that scenario.
  CHECK(a.result.at("scenario_hash") == scenario_hash(load_scenario_json(a.result.at("scenario"), "point", ".")));
  // Same scenario, other seeds: the failure draws differ (at 5%/machine/day, 16 machines, 4 replicas
  // of a day, equal wall-time breakdowns by chance would need identical failure times).
  CHECK(a.result.at("summary") != b.result.at("summary"));
  CHECK(record_to_json(evaluate_point(spec, 0, cache)) == record_to_json(a));
}

TEST_CASE("evaluate: points that differ only where the iteration model does not read share its costs") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()},
       {"axes", {{{"pointer", "/failures/rate"}, {"values", {"1%/machine/day", "2%/machine/day", "4%/machine/day"}}},
                 {{"pointer", "/strategy/kind"}, {"values", {"gemini", "remote-periodic"}}}}}},
      "spec.json", ".");
  CostCache cache;
  for (std::int64_t i = 0; i < 6; ++i) CHECK(evaluate_point(spec, i, cache).status == "ok");
  // Failure rate and strategy kind are not read by the iteration model: one computation, five hits.
  CHECK(cache.misses() == 1);
  CHECK(cache.hits() == 5);
}

TEST_CASE("evaluate: the cost key changes with what the iteration model reads, not with the rest") {
  const Scenario base = load_scenario_file(kPaper);
  const std::string key = iteration_cost_key(base);
  Scenario s = base;
  s.failures.rate *= 2;
  s.run.replicas = 7;
  s.run.seed = 99;  // group placement draws nothing from the seed
  CHECK(iteration_cost_key(s) == key);
  s = base;
  s.cluster.machines = 32;
  CHECK(iteration_cost_key(s) != key);
  s = base;
  s.strategy.gpu_buffer_bytes *= 2;
  CHECK(iteration_cost_key(s) != key);
  s = base;
  s.strategy.placement = PlacementScheme::random;
  const std::string random_key = iteration_cost_key(s);
  s.run.seed = 99;  // a random placement does depend on the seed
  CHECK(iteration_cost_key(s) != random_key);
}

TEST_CASE("evaluate: iteration points give the iteration model's costs, computed once per distinct key") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"command", "iteration"},
       {"axes", {{{"pointer", "/cluster/machines"}, {"values", {16, 32}}}, {{"pointer", "/failures/rate"}, {"values", {"1%/machine/day", "3%/machine/day"}}}}}},
      "spec.json", ".");
  CostCache cache;
  std::vector<PointRecord> points;
  for (std::int64_t i = 0; i < 4; ++i) points.push_back(evaluate_point(spec, i, cache));
  for (const auto& p : points) {
    REQUIRE(p.status == "ok");
    // An iteration carrying a checkpoint is never faster than one without.
    CHECK(p.result.at("costs").at("iteration_time_with_checkpoint_s").get<double>() >=
          p.result.at("costs").at("iteration_time_s").get<double>());
  }
  // Points 0 and 1 (16 machines) differ only in the failure rate: the same costs, one computation.
  CHECK(points[0].result.at("costs") == points[1].result.at("costs"));
  CHECK(cache.misses() == 2);
  CHECK(cache.hits() == 2);
  CHECK(default_metrics(PointCommand::iteration).front().pointer == "/costs/iteration_time_s");
}
