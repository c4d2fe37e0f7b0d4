// Evaluating points: invalid points are recorded, the iteration-cost cache is keyed by what the
// iteration model reads.
#include <doctest/doctest.h>

#include <string>

#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/points.hpp"
#include "paper_base.hpp"

using namespace ckptsim;
using namespace ckptsim::sweep;
using nlohmann::json;
using ckptsim::test::small_paper_base;

namespace {

const std::string kPaperScenario = std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper/gpt2-100b-16xp4d.json";

}  // namespace

TEST_CASE("evaluate: an invalid point is recorded with its error, the others run") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"axes", {{{"pointer", "/cluster/machines"}, {"values", {16, 0}}}}}}, "spec.json", ".");
  CostCache cache;
  const auto good = evaluate_point(spec, 0, cache);
  const auto bad = evaluate_point(spec, 1, cache);
  CHECK(good.status == PointStatus::ok);
  const double ettr = good.result.at("summary").at("ettr").at("mean").get<double>();
  CHECK(ettr > 0.0);
  CHECK(ettr <= 1.0);
  CHECK(bad.status == PointStatus::invalid);
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
  for (std::int64_t i = 0; i < 6; ++i) CHECK(evaluate_point(spec, i, cache).status == PointStatus::ok);
  // The failure rate is not read by the iteration model; the strategy kind is, through its
  // checkpoint layout only (gemini: replicas the scheduler plans; remote-periodic: none), so one
  // computation per kind and four hits.
  CHECK(cache.misses() == 2);
  CHECK(cache.hits() == 4);
}

TEST_CASE("evaluate: strategies of one checkpoint layout share the iteration costs") {
  // gemini and in-memory-blocking both keep m replicas that the traffic scheduler plans: the
  // iteration model reads the same thing of either kind.
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()},
       {"axes", {{{"pointer", "/strategy/kind"}, {"values", {"gemini", "in-memory-blocking"}}}}}},
      "spec.json", ".");
  CostCache cache;
  for (std::int64_t i = 0; i < 2; ++i) CHECK(evaluate_point(spec, i, cache).status == PointStatus::ok);
  CHECK(cache.misses() == 1);
  CHECK(cache.hits() == 1);
}

TEST_CASE("evaluate: the cost key changes with what the iteration model reads, not with the rest") {
  const Scenario base = load_scenario_file(kPaperScenario);
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
  // The fields that shape the compute and the activation memory (kernels.hpp,
  // caching_allocator.hpp) are read by the iteration model.
  s = base;
  s.model.dropout = 0;
  CHECK(iteration_cost_key(s) != key);
  s = base;
  s.training.cross_entropy = CrossEntropyKind::fused;
  CHECK(iteration_cost_key(s) != key);
  s = base;
  s.training.attention = AttentionKind::flash;
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
    REQUIRE(p.status == PointStatus::ok);
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

TEST_CASE("evaluate: analyze points share the iteration cache and compare closed forms with their replicas") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"command", "analyze"},
       {"axes", {{{"pointer", "/failures/rate"}, {"values", {"1%/machine/day", "3%/machine/day"}}}}}},
      "spec.json", ".");
  CostCache cache;
  const auto low = evaluate_point(spec, 0, cache);
  const auto high = evaluate_point(spec, 1, cache);
  REQUIRE(low.status == PointStatus::ok);
  REQUIRE(high.status == PointStatus::ok);
  // Only the failure rate differs: one iteration-model computation, then a hit.
  CHECK(cache.misses() == 1);
  CHECK(cache.hits() == 1);
  // Four replicas each (small_paper_base), and the closed-form failure rate is the scenario's:
  // 16 machines x 1%/day = 0.16/day = 0.16/86400 per second; three times that at 3%.
  CHECK(low.result.at("replicas") == 4);
  const double rate_low = low.result.at("closed_form").at("failure_rate_per_s").get<double>();
  CHECK(rate_low == doctest::Approx(0.16 / 86400.0).epsilon(1e-9));
  CHECK(high.result.at("closed_form").at("failure_rate_per_s").get<double>() == doctest::Approx(3 * rate_low).epsilon(1e-9));
  // More failures cannot raise the closed-form ETTR.
  CHECK(high.result.at("metrics").at("ettr").at("closed").get<double>() <
        low.result.at("metrics").at("ettr").at("closed").get<double>());
  CHECK(low.result.at("metrics").at("ettr").at("simulated").contains("ci95"));
}

TEST_CASE("evaluate: placement points follow the scenario's placement; a scheme that cannot place is invalid") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"command", "placement"},
       {"axes", {{{"pointer", "/strategy"},
                  {"values", {{{"kind", "gemini"}, {"replicas", 4}, {"placement", "group"}},
                              {{"kind", "gemini"}, {"replicas", 3}, {"placement", "group"}}}}}}}},
      "spec.json", ".");
  CostCache cache;
  const auto four = evaluate_point(spec, 0, cache);
  REQUIRE(four.status == PointStatus::ok);
  const auto& p = four.result.at("placement");
  // 16 machines in 4 groups of 4: losing a checkpoint needs a whole group, so P_k = 1 for k < 4
  // and P_4 = 1 - 4 / C(16, 4) = 1 - 4/1820.
  CHECK(p.at("k").size() == 17);
  CHECK(p.at("probability").at(3).get<double>() == 1.0);
  CHECK(p.at("probability").at(4).get<double>() == doctest::Approx(1.0 - 4.0 / 1820.0).epsilon(1e-12));
  CHECK(p.at("exact") == true);
  CHECK(p.at("shards_per_machine") == 4);
  // Groups of 3 do not divide 16 machines: the point is invalid, the sweep goes on.
  const auto three = evaluate_point(spec, 1, cache);
  CHECK(three.status == PointStatus::invalid);
  CHECK(!three.error.empty());
  // Placement points never run the iteration model.
  CHECK(cache.misses() == 0);
}

TEST_CASE("evaluate: a point beyond its command's work limits is invalid with the command's reason, never run") {
  // run: 2^31 - 1 replicas need ~800 GiB of results (the run command refuses them too).
  auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"axes", {{{"pointer", "/run/replicas"}, {"values", {2147483647}}}}}}, "spec.json", ".");
  CostCache cache;
  auto r = evaluate_point(spec, 0, cache);
  CHECK(r.status == PointStatus::invalid);
  CHECK(r.error.find("memory for the replica results") != std::string::npos);
  CHECK(r.error.find("a sweep never forces a point") != std::string::npos);
  // run, iteration, analyze: 10,000 machines x 8 GPUs x 124 layers x 3 = 2.98e7 flows > 2e7,
  // refused before the iteration model runs (as the commands refuse them).
  CostCache untouched;
  for (const char* command : {"run", "iteration", "analyze"}) {
    CAPTURE(command);
    spec = load_sweep_spec_json({{"base", small_paper_base()},
                                 {"command", command},
                                 {"axes", {{{"pointer", "/cluster/machines"}, {"values", {10000}}}}}},
                                "spec.json", ".");
    r = evaluate_point(spec, 0, untouched);
    CHECK(r.status == PointStatus::invalid);
    CHECK(r.error.find("training flows") != std::string::npos);
  }
  CHECK(untouched.misses() == 0);
  // placement: a random placement of 100,000 machines convolves N^2 (N/64 + 1) = 1.56e13 limb
  // operations, above 2e11, as `ckptsim placement --scheme random` refuses it.
  json base = small_paper_base();
  base["strategy"]["placement"] = "random";
  spec = load_sweep_spec_json(
      {{"base", base}, {"command", "placement"}, {"axes", {{{"pointer", "/cluster/machines"}, {"values", {100000}}}}}},
      "spec.json", ".");
  r = evaluate_point(spec, 0, cache);
  CHECK(r.status == PointStatus::invalid);
  CHECK(r.error.find("limb operations") != std::string::npos);
}

TEST_CASE("evaluate: a point's run beyond the clock's horizon is invalid, naming the terms") {
  json base = small_paper_base();
  base["run"]["duration"] = "36525d";
  base["failures"]["restart"] = "36000d";
  const auto spec = load_sweep_spec_json(
      {{"base", base}, {"axes", {{{"pointer", "/failures/detection"}, {"values", {"15s", "36000d"}}}}}}, "spec.json", ".");
  CostCache cache;
  // 100 + 98.6 years plus seconds fits the 292-year clock; adding a 98.6-year detection does not.
  const auto fits = evaluate_point(spec, 0, cache);
  const auto beyond = evaluate_point(spec, 1, cache);
  CHECK(beyond.status == PointStatus::invalid);
  CHECK(beyond.error.find("worst-case horizon") != std::string::npos);
  CHECK(beyond.error.find("/failures/detection 36000 d") != std::string::npos);
  CHECK(fits.status == PointStatus::ok);
}
