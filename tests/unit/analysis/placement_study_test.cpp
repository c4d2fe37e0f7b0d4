// The placement study (analysis/placement_study.hpp) and its writer (output/placement_report.hpp)
// as the Python module calls them: the request's checks name the field, and the results are the
// exact counts, checked against hand counts.
#include <doctest/doctest.h>

#include <string>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/placement_study.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/placement_report.hpp"

namespace ckptsim {
namespace {

PlacementRequest request(int machines, int replicas) {
  PlacementRequest rq;
  rq.machines = machines;
  rq.replicas = replicas;
  return rq;
}

/// The parameter a ModelError names, or "" when the request passes.
std::string rejected_field(const PlacementRequest& rq) {
  try {
    (void)checked_placement_request(rq);
  } catch (const ModelError& e) {
    return e.parameter();
  }
  return "";
}

TEST_CASE("placement study: the checks name the field that is wrong") {
  CHECK(rejected_field(request(0, 1)) == "machines");
  CHECK(rejected_field(request(8, 9)) == "replicas");
  CHECK(rejected_field(request(8, 0)) == "replicas");
  PlacementRequest k = request(8, 2);
  k.k_first = 3;
  k.k_last = 2;
  CHECK(rejected_field(k) == "failures");
  k.k_first = 0;
  k.k_last = 9;  // more failures than machines
  CHECK(rejected_field(k) == "failures");
  PlacementRequest s = request(8, 2);
  s.schemes = {"best"};
  CHECK(rejected_field(s) == "scheme");
  s.schemes = {"file"};  // without a placement file
  CHECK(rejected_field(s) == "scheme");
  PlacementRequest c = request(8, 2);
  c.cpu_memory = 1e9;  // without shard_bytes
  CHECK(rejected_field(c) == "cpu_memory");
  PlacementRequest w = request(8, 2);
  w.window_probability = 1.5;
  CHECK(rejected_field(w) == "window_probability");
  PlacementRequest n = request(8, 2);
  n.samples = 0;
  CHECK(rejected_field(n) == "samples");
}

TEST_CASE("placement study: defaults are every scheme and k = 0..N") {
  const PlacementRequest rq = checked_placement_request(request(8, 2));
  CHECK(rq.k_last == 8);
  // Every PlacementScheme, as `ckptsim placement` without --scheme.
  CHECK(rq.schemes.size() == EnumNames<PlacementScheme>::table.size());
}

TEST_CASE("placement study: group placement of N = 4, m = 2 against the hand count") {
  PlacementRequest rq = request(4, 2);
  rq.schemes = {"group"};
  rq = checked_placement_request(rq);
  const auto results = study_placements(rq);
  REQUIRE(results.size() == 1);
  REQUIRE(results[0].curve);
  // Groups {0,1} and {2,3}. k = 1: nothing lost. k = 2: lost only when the two failures are one
  // whole group, 2 of the C(4,2) = 6 sets, P = 4/6. k = 3: some group always loses both, P = 0.
  CHECK(results[0].curve->probability[1] == doctest::Approx(1.0));
  CHECK(results[0].curve->probability[2] == doctest::Approx(4.0 / 6.0));
  CHECK(results[0].curve->probability[3] == doctest::Approx(0.0));
  const nlohmann::json doc = placement_report_json(rq, results, "test");
  CHECK(doc["schemes"]["group"]["k"].size() == 5);  // k = 0..4
  CHECK(doc["schemes"]["group"]["probability"][2].get<double>() == doctest::Approx(4.0 / 6.0));
  CHECK(doc["manifest"]["command_line"] == "test");
}

TEST_CASE("placement study: too little CPU memory is an InputError naming --cpu-memory") {
  PlacementRequest rq = request(4, 2);
  rq.schemes = {"group"};
  rq.shard_bytes = 10e9;
  rq.cpu_memory = 1e9;  // group with m = 2 needs 2 buffers x 2 shards x 10 GB = 40 GB
  rq = checked_placement_request(rq);
  try {
    (void)study_placements(rq);
    FAIL("expected an InputError");
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    CHECK(e.problems()[0].pointer == "--cpu-memory");
  }
}

TEST_CASE("placement study: a scheme that cannot place the machines says why") {
  PlacementRequest rq = request(5, 2);  // groups of 2 do not divide 5 machines
  rq.schemes = {"group"};
  const auto results = study_placements(checked_placement_request(rq));
  REQUIRE(results.size() == 1);
  CHECK_FALSE(results[0].placement);
  CHECK_FALSE(results[0].not_applicable.empty());
}

}  // namespace
}  // namespace ckptsim
