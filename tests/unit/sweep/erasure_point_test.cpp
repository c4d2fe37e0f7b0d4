// Sweep points of erasure-coded scenarios: placement points give the coding groups' exact
// survival, and the iteration-cost cache tells the parities apart (sweep/evaluate.hpp).
#include <doctest/doctest.h>

#include <string>

#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/spec.hpp"
#include "paper_base.hpp"

using namespace ckptsim;
using namespace ckptsim::sweep;
using nlohmann::json;

using ckptsim::test::small_paper_base;

TEST_CASE("placement sweep points of erasure-coded scenarios count the coding groups") {
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()}, {"command", "placement"},
       {"axes", {{{"pointer", "/strategy"},
                  {"values", {{{"kind", "erasure-coded"}, {"group_size", 4}, {"parity", 1}},
                              {{"kind", "erasure-coded"}, {"group_size", 8}, {"parity", 2}}}}}}}},
      "spec.json", ".");
  CostCache cache;
  const auto a = evaluate_point(spec, 0, cache);
  REQUIRE(a.status == PointStatus::ok);
  const auto& p = a.result.at("placement");
  // 16 machines in 4 groups of 4, p = 1: two losses survive iff in different groups,
  // 1 - 4 C(4,2) / C(16,2) = 1 - 24/120; memory g/(g-p) = 4/3 shards.
  CHECK(p.at("probability").at(1).get<double>() == 1.0);
  CHECK(p.at("probability").at(2).get<double>() == doctest::Approx(1.0 - 24.0 / 120.0).epsilon(1e-14));
  CHECK(p.at("shards_per_machine").get<double>() == doctest::Approx(4.0 / 3.0));
  CHECK(p.at("exact") == true);
  // 2 groups of 8, p = 2: three losses are fatal iff all in one group, 2 C(8,3) / C(16,3) = 112/560.
  const auto b = evaluate_point(spec, 1, cache);
  REQUIRE(b.status == PointStatus::ok);
  CHECK(b.result.at("placement").at("probability").at(3).get<double>() ==
        doctest::Approx(1.0 - 112.0 / 560.0).epsilon(1e-14));
}

TEST_CASE("run sweep points of erasure-coded scenarios with different parities use different iteration costs") {
  // The iteration model plans p copies: parity 1 and 2 must not share a cached computation.
  const auto spec = load_sweep_spec_json(
      {{"base", small_paper_base()},
       {"axes", {{{"pointer", "/strategy"},
                  {"values", {{{"kind", "erasure-coded"}, {"group_size", 8}, {"parity", 1}},
                              {{"kind", "erasure-coded"}, {"group_size", 8}, {"parity", 2}}}}}}}},
      "spec.json", ".");
  CostCache cache;
  REQUIRE(evaluate_point(spec, 0, cache).status == PointStatus::ok);
  REQUIRE(evaluate_point(spec, 1, cache).status == PointStatus::ok);
  CHECK(cache.misses() == 2);
}
