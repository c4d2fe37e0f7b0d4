// Failure rates per machine, per domain and per cluster (issue 38, item 3): the loader shares a
// rate per cluster out among the scenario's machines or failure domains
// (scenario/failure_rate_fields.hpp), checked against failure counts worked out by hand with
// the failure layer's expected event count (failure_process.hpp, expected_failure_events:
// rate x machines x t, plus each domain kind's rate x ⌈N / s⌉ x t).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/scenario_documents.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

constexpr double kSecondsPerDay = 86400.0;

/// The minimal document on `machines` machines with `failures` as its failure section.
json document_on(int machines, const json& failures) {
  json doc = test::minimal_scenario_document();
  doc["cluster"]["machines"] = machines;
  doc["failures"] = failures;
  return doc;
}

Scenario load_with_rates(const json& doc) { return load_scenario_json(doc, "test.json", "."); }

/// Failures expected over `days` days of the loaded scenario, by the failure layer's count.
double failures_expected_over(const Scenario& s, double days) {
  return expected_failure_events(s.failures, s.cluster.machines, SimTime::from_seconds(days * kSecondsPerDay));
}

}  // namespace

TEST_SUITE_BEGIN("failure");

TEST_CASE("cluster rates: /machine/ and /cluster/ by hand-worked failure counts") {
  // 128 machines at 2 per machine per day for 30 days: 2 x 128 x 30 = 7,680 failures.
  const Scenario per_machine = load_with_rates(document_on(128, {{"process", "exponential"}, {"rate", "2/machine/day"}}));
  CHECK(failures_expected_over(per_machine, 30) == doctest::Approx(7680.0));
  // 2 for the whole cluster per day for 30 days: 60 failures, 2 / 128 = 0.015625 per machine
  // per day (a power of two: exact in binary).
  const Scenario per_cluster = load_with_rates(document_on(128, {{"process", "exponential"}, {"rate", "2/cluster/day"}}));
  CHECK(per_cluster.failures.rate == 0.015625 / kSecondsPerDay);
  CHECK(failures_expected_over(per_cluster, 30) == doctest::Approx(60.0));
  // "/job/" is the same: 60.
  CHECK(failures_expected_over(load_with_rates(document_on(128, {{"process", "exponential"}, {"rate", "2/job/day"}})), 30) ==
        doctest::Approx(60.0));
  // 3 per cluster-day on 100 machines: 0.03 per machine-day, 30 failures in 10 days.
  const Scenario hundred = load_with_rates(document_on(100, {{"process", "exponential"}, {"rate", "3/cluster/day"}}));
  CHECK(hundred.failures.rate * kSecondsPerDay == doctest::Approx(0.03));
  CHECK(failures_expected_over(hundred, 10) == doctest::Approx(30.0));
  // Silent corruptions, 7 per cluster-week on 128 machines: 14 in 14 days (no other process).
  const Scenario sdc = load_with_rates(document_on(128, {{"process", "none"}, {"silent_corruption", {{"rate", "7/cluster/week"}}}}));
  CHECK(failures_expected_over(sdc, 14) == doctest::Approx(14.0));
  // Stragglers evicted after 10 min, 1 per cluster-hour on 64 machines: 24 a day.
  const Scenario slow = load_with_rates(document_on(
      64, {{"process", "none"}, {"stragglers", {{"rate", "1/cluster/h"}, {"speed", 0.5}, {"eviction", "10min"}}}}));
  CHECK(slow.failures.stragglers.rate * 64 * 3600.0 == doctest::Approx(1.0));
  CHECK(failures_expected_over(slow, 1) == doctest::Approx(24.0));
}

TEST_CASE("cluster rates: a domain's rate per domain or per cluster, by hand-worked counts") {
  // 100 machines in racks of 16: ⌈100 / 16⌉ = 7 racks (the last holds 4). 7 rack failures per
  // cluster-day are 1 per rack per day: 70 in 10 days, as "1/domain/day" gives.
  const json racks_cluster = {{"process", "none"}, {"domains", {{"rack", {{"machines", 16}, {"rate", "7/cluster/day"}}}}}};
  const json racks_domain = {{"process", "none"}, {"domains", {{"rack", {{"machines", 16}, {"rate", "1/domain/day"}}}}}};
  const Scenario a = load_with_rates(document_on(100, racks_cluster));
  const Scenario b = load_with_rates(document_on(100, racks_domain));
  CHECK(a.failures.domains[0].rate * kSecondsPerDay == doctest::Approx(1.0));
  CHECK(failures_expected_over(a, 10) == doctest::Approx(70.0));
  CHECK(failures_expected_over(b, 10) == doctest::Approx(70.0));
  // Leaves of 32 on the same 100 machines: 4 leaves; 2 per cluster-day = 0.5 per leaf-day:
  // 20 leaf failures in 10 days.
  const Scenario leaves = load_with_rates(document_on(
      100, {{"process", "none"}, {"domains", {{"leaf", {{"machines", 32}, {"rate", "2/cluster/day"}}}}}}));
  CHECK(leaves.failures.domains[1].rate * kSecondsPerDay == doctest::Approx(0.5));
  CHECK(failures_expected_over(leaves, 10) == doctest::Approx(20.0));
}

TEST_CASE("cluster rates: the effective scenario states the rate per machine, and reads back the same") {
  // "2/cluster/day" on 128 machines is 1.5625% per machine per day: the effective scenario says
  // so, and is the effective scenario of the file that wrote the per-machine rate (same hash).
  const Scenario cluster = load_with_rates(document_on(128, {{"process", "exponential"}, {"rate", "2/cluster/day"}}));
  const Scenario machine = load_with_rates(document_on(128, {{"process", "exponential"}, {"rate", "1.5625%/machine/day"}}));
  const json effective = effective_scenario_json(cluster);
  CHECK(effective["failures"]["rate"] == "1.5625%/machine/day");
  CHECK(scenario_hash(cluster) == scenario_hash(machine));
  // On 100 machines 3/cluster/day has no short exact text; whatever is written reads back to
  // the same double (and says per machine).
  const Scenario hundred = load_with_rates(document_on(100, {{"process", "exponential"}, {"rate", "3/cluster/day"}}));
  const json written = effective_scenario_json(hundred);
  CHECK(written["failures"]["rate"].get<std::string>().find("/machine/") != std::string::npos);
  CHECK(load_scenario_json(written, "effective.json", ".").failures.rate == hundred.failures.rate);
  // A rack's rate is written per domain: 7/cluster/day over 7 racks, 1 per rack per day.
  const Scenario racks = load_with_rates(document_on(
      100, {{"process", "none"}, {"domains", {{"rack", {{"machines", 16}, {"rate", "7/cluster/day"}}}}}}));
  CHECK(effective_scenario_json(racks)["failures"]["domains"]["rack"]["rate"] == "1/domain/day");
}

TEST_CASE("cluster rates: a bare rate is refused with both spellings; forms that make no sense too") {
  // The case: "2/day" on 128 machines (ETTR 0.18 as 2 per machine, 0.99 as 2 per cluster).
  const auto bare = test::scenario_problems(document_on(128, {{"process", "exponential"}, {"rate", "2/day"}}));
  REQUIRE(bare.size() == 1);
  CHECK(bare[0].pointer == "/failures/rate");
  CHECK(bare[0].found == "\"2/day\"");
  CHECK(bare[0].expected.find("\"1.5%/machine/day\" or \"2/cluster/day\"") != std::string::npos);
  // Zero needs no subject.
  CHECK(test::scenario_problems(document_on(128, {{"process", "exponential"}, {"rate", "0/day"}})).empty());
  // A rack's rate per machine, and a rate per cluster for racks of size 0 (none to share it).
  const auto per_machine = test::scenario_problems(document_on(
      128, {{"process", "none"}, {"domains", {{"rack", {{"machines", 16}, {"rate", "1%/machine/day"}}}}}}));
  CHECK(test::has_problem_at(per_machine, "/failures/domains/rack/rate"));
  const auto no_racks = test::scenario_problems(
      document_on(128, {{"process", "none"}, {"domains", {{"rack", {{"rate", "2/cluster/day"}}}}}}));
  REQUIRE(no_racks.size() == 1);
  CHECK(no_racks[0].pointer == "/failures/domains/rack/rate");
  CHECK(no_racks[0].expected.find("/failures/domains/rack/machines") != std::string::npos);
}

TEST_SUITE_END();
