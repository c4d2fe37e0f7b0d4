// Output writers (output/run_report.hpp): the per-replica CSV's columns and cells, and the run
// report JSON's keys, on hand-made replica results.
#include <doctest/doctest.h>

#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;

namespace {

std::vector<std::string> split(const std::string& line, char sep) {
  std::vector<std::string> out;
  std::string cell;
  std::istringstream in(line);
  while (std::getline(in, cell, sep)) out.push_back(cell);
  if (!line.empty() && line.back() == sep) out.emplace_back();  // a trailing empty cell
  return out;
}

/// Replica 0: two failures (1 software, 1 hardware) wasting 300 s; 1000 s wall, 900 s training,
/// 40 s stall, 60 s detection. Replica 1: no failure, 1000 s of training.
std::vector<ReplicaResult> two_replicas() {
  ReplicaResult a;
  a.wall_time = seconds(1000);
  a.iterations = 15;
  a.software_failures = 1;
  a.hardware_failures = 1;
  a.recoveries = {1, 1, 0, 0};
  a.episodes = 2;
  a.wasted_time = seconds(300);
  a.breakdown.training = seconds(900);
  a.breakdown.checkpoint_stall = seconds(40);
  a.breakdown.detection = seconds(60);
  ReplicaResult b;
  b.wall_time = seconds(1000);
  b.iterations = 16;
  b.breakdown.training = seconds(1000);
  return {a, b};
}

const std::vector<std::string> kColumns{"replica",
                                        "ettr",
                                        "wall_time_s",
                                        "iterations",
                                        "unfinished",
                                        "failures.total",
                                        "failures.software",
                                        "failures.hardware",
                                        "recoveries.local",
                                        "recoveries.peer",
                                        "recoveries.storage",
                                        "recoveries.scratch",
                                        "wasted_time_per_failure_s",
                                        "time_breakdown_s.training",
                                        "time_breakdown_s.checkpoint_stall",
                                        "time_breakdown_s.lost_progress",
                                        "time_breakdown_s.detection",
                                        "time_breakdown_s.replacement_wait",
                                        "time_breakdown_s.retrieval",
                                        "time_breakdown_s.restart",
                                        "machines_replaced",
                                        "time_lost_by_tier_s.local",
                                        "time_lost_by_tier_s.peer",
                                        "time_lost_by_tier_s.storage",
                                        "time_lost_by_tier_s.scratch",
                                        // goodput as operators count it (run/goodput.hpp), after every earlier column
                                        "time_breakdown_s.degraded",
                                        "goodput",
                                        "badput.initialization",
                                        "badput.checkpoint_save",
                                        "badput.checkpoint_restore",
                                        "badput.wasted_progress",
                                        "badput.infrastructure_recovery",
                                        "badput.degraded_throughput",
                                        "ettr_meta",
                                        "mttr_s",
                                        "episodes"};

}  // namespace

TEST_CASE("replica CSV: the documented columns, one row per replica, NA for wasted time without failures") {
  std::ostringstream out;
  write_replica_csv(out, two_replicas());
  std::istringstream lines(out.str());
  std::string header;
  std::string row0;
  std::string row1;
  std::string extra;
  REQUIRE(std::getline(lines, header));
  REQUIRE(std::getline(lines, row0));
  REQUIRE(std::getline(lines, row1));
  CHECK_FALSE(std::getline(lines, extra));
  CHECK(split(header, ',') == kColumns);
  const auto a = split(row0, ',');
  const auto b = split(row1, ',');
  REQUIRE(a.size() == kColumns.size());
  REQUIRE(b.size() == kColumns.size());
  // Replica 0: ETTR 900 / 1000 = 0.9; 300 s wasted over 2 failures = 150 s each.
  CHECK(a[0] == "0");
  CHECK(a[1] == "0.9");
  CHECK(a[5] == "2");
  CHECK(a[12] == "150");
  CHECK(std::stod(a[13]) == doctest::Approx(900.0));
  CHECK(std::stod(a[16]) == doctest::Approx(60.0));  // SimTime seconds: 60 up to rounding
  // Replica 1: ETTR 1, no failure: wasted time per failure is an empty cell.
  // Goodput of replica 0: 900 / 1000; checkpoint save 40 / 1000; infrastructure recovery
  // (detection) 60 / 1000; MTTR = 60 s of downtime over 2 episodes = 30 s.
  CHECK(std::stod(a[26]) == doctest::Approx(0.9));
  CHECK(std::stod(a[28]) == doctest::Approx(0.04));
  CHECK(std::stod(a[31]) == doctest::Approx(0.06));
  CHECK(std::stod(a[34]) == doctest::Approx(30.0));
  CHECK(b[0] == "1");
  CHECK(b[1] == "1");
  CHECK(b[5] == "0");
  CHECK(b[12] == "");
  // Replica 1 had no recovery episode: MTTR is an empty cell too.
  CHECK(b[34] == "");
}

TEST_CASE("run report JSON: manifest, effective scenario, costs and nested summary keys") {
  const Scenario s = test::small_scenario(StrategyKind::remote_periodic);
  const StrategyCosts costs = compute_strategy_costs(s, nullptr);
  const RunSummary summary = summarize(two_replicas());
  const nlohmann::json doc = run_report_json(s, costs, summary, "ckptsim run test.json");
  CHECK(doc.size() == 4);
  const std::set<std::string> manifest_keys{"ckptsim_version", "git_revision", "seed", "scenario_hash", "command_line"};
  for (const auto& key : manifest_keys) CHECK(doc.at("manifest").contains(key));
  CHECK(doc["manifest"]["command_line"] == "ckptsim run test.json");
  CHECK(doc["scenario"]["strategy"]["kind"] == "remote-periodic");
  CHECK(doc["costs"]["strategy"] == "remote-periodic");
  CHECK(doc["costs"]["tier"] == "storage");
  const auto& sum = doc.at("summary");
  CHECK(sum["replicas"] == 2);
  for (const char* key : {"ettr", "wall_time_s", "iterations", "wasted_time_per_failure_s"}) {
    CAPTURE(key);
    CHECK(sum.at(key).size() == 3);
    CHECK(sum.at(key).contains("mean"));
    CHECK(sum.at(key).contains("std"));
    CHECK(sum.at(key).contains("ci95"));
  }
  // Dotted metric names nest: failures.hardware -> summary.failures.hardware.
  CHECK(sum.at("failures").at("hardware").at("mean") == doctest::Approx(0.5));
  CHECK(sum.at("recoveries").at("peer").at("mean") == doctest::Approx(0.5));
  CHECK(sum.at("time_breakdown_s").at("detection").at("mean") == doctest::Approx(30.0));
  // ETTR mean (0.9 + 1) / 2; wasted time per failure averages only the replica with failures.
  CHECK(sum.at("ettr").at("mean") == doctest::Approx(0.95));
  CHECK(sum.at("wasted_time_per_failure_s").at("mean") == doctest::Approx(150.0));
}
