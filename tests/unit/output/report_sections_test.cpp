// The report sections (output/report_sections.hpp): each strategy names the sections its costs
// call for, and the reports and the analyze JSON carry exactly those.
#include <doctest/doctest.h>

#include <algorithm>
#include <sstream>
#include <string>
#include <vector>
#include <nlohmann/json.hpp>

#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/report_sections.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/scenario/units.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using namespace ckptsim::test;

namespace {

/// small_scenario (T = 60 s) with coding groups of 4 with 1 parity and levels every 2 and 10 min.
Scenario sections_scenario(StrategyKind kind) {
  Scenario s = small_scenario(kind);
  s.strategy.group_size = 4;
  s.strategy.parity = 1;
  s.strategy.encode_bandwidth = 1e9;
  s.strategy.local_interval = minutes(2);
  s.strategy.partner_interval = minutes(10);
  s.run.replicas = 0;  // closed forms only
  return s;
}

bool names(const std::vector<ReportSection>& sections, ReportSection s) {
  return std::find(sections.begin(), sections.end(), s) != sections.end();
}

}  // namespace

TEST_CASE("report sections: every strategy names the sections its costs call for") {
  for (const auto& entry : strategy_registry().entries()) {
    CAPTURE(entry.name);
    const Scenario s = sections_scenario(entry.factory->kind());
    const StrategyCosts c = compute_strategy_costs(s, nullptr);
    const auto sections = entry.factory->report_sections();
    // Three nested levels (a partner period) have their own table instead of one period's Eq. 1.
    const bool levels = c.partner_every_iterations > 0;
    CHECK(names(sections, ReportSection::checkpoint_levels) == levels);
    CHECK(names(sections, ReportSection::young_daly) == (takes_checkpoints(c.tier) && !levels));
    // The code's summary exactly where there is a code; holder loss for replicas in CPU memory.
    CHECK(names(sections, ReportSection::erasure_code) == c.erasure_coded());
    CHECK(names(sections, ReportSection::holder_loss) == (c.tier == CheckpointTier::memory && !c.erasure_coded()));
    // Each section once.
    for (const ReportSection r : sections) CHECK(std::count(sections.begin(), sections.end(), r) == 1);
  }
}

TEST_CASE("report sections: the analyze JSON carries the members of the strategy's sections only") {
  for (const auto& entry : strategy_registry().entries()) {
    CAPTURE(entry.name);
    const Scenario s = sections_scenario(entry.factory->kind());
    const StrategyCosts c = compute_strategy_costs(s, nullptr);
    const AnalyzeReport report = make_analyze_report(s, c, RunChecks{1, false});
    const nlohmann::json doc = analyze_report_json(s, c, report);
    const auto sections = entry.factory->report_sections();
    CHECK(doc["closed_form"].contains("multi_level") == names(sections, ReportSection::checkpoint_levels));
    CHECK(doc.contains("erasure_code") == names(sections, ReportSection::erasure_code));
    if (entry.factory->kind() == StrategyKind::multi_level) {
      // Levels every 2 min and 10 min of 60 s iterations: every 2 and 10 iterations; no storage
      // level (persistent_interval unset): every 0.
      const auto& levels = doc["closed_form"]["multi_level"]["levels"];
      REQUIRE(levels.size() == 3);
      CHECK(levels[0]["level"] == "local");
      CHECK(levels[0]["every_iterations"] == 2);
      CHECK(levels[1]["level"] == "partner");
      CHECK(levels[1]["every_iterations"] == 10);
      CHECK(levels[2]["level"] == "storage");
    }
    if (entry.factory->kind() == StrategyKind::erasure_coded) {
      CHECK(doc["erasure_code"]["group_size"] == 4);
      CHECK(doc["erasure_code"]["parity"] == 1);
    }
  }
}

TEST_CASE("report sections: the run report's level line and analyze's memory line") {
  StrategyCosts c;
  c.stall = seconds(2);
  c.partner_stall = seconds(5);
  c.persistent_stall = seconds(65);
  std::ostringstream levels;
  report_section(ReportSection::checkpoint_levels).print_run_costs(levels, c);
  // The three cumulative stalls in the order local, partner, storage.
  CHECK(levels.str() == "levels     stall: local " + format_duration(seconds(2)) + ", partner " +
                            format_duration(seconds(5)) + ", storage " + format_duration(seconds(65)) + "\n");
  // Sections without a run-report part print nothing there.
  std::ostringstream none;
  report_section(ReportSection::young_daly).print_run_costs(none, c);
  report_section(ReportSection::holder_loss).print_run_costs(none, c);
  CHECK(none.str().empty());

  AnalyticPrediction p;
  p.memory_loss_per_hardware_failure = 0.25;
  c.parity = 2;
  std::ostringstream holders, code;
  report_section(ReportSection::holder_loss).print_memory(holders, c, p);
  report_section(ReportSection::erasure_code).print_memory(code, c, p);
  CHECK(holders.str() == "memory     P(a hardware failure leaves some checkpoint without holders) = 0.25\n");
  CHECK(code.str() == "memory     P(a hardware failure leaves its coding group with more than p = 2 members replaced) = 0.25\n");
}

TEST_CASE("analyze: the standby line and closed_form.standby_sizing") {
  // small_scenario at 1 % failures per machine-hour, half hardware, detection 15 s + a fixed
  // 5 min replacement: w = 315 s, p = 1 - exp(-0.005 / 3600 x 315) = 4.374e-4; Binomial(16, p):
  // P(0) = 0.993024 covers 99 % of windows with no standby, P(<= 1) = 0.999977 covers 99.9 %
  // with one (analysis/standby_sizing.hpp). The cluster has 2 standbys.
  Scenario s = sections_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.01 / 3600;
  s.cluster.standby_machines = 2;
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  const AnalyzeReport report = make_analyze_report(s, c, RunChecks{});
  std::ostringstream out;
  print_analyze_report(out, s, c, report);
  CHECK(out.str().find("standbys   p = 0.0004374 that a machine is replaced within a window of " +
                       format_duration(seconds(315)) +
                       " (detection + mean replacement): 99% of windows need 0 standby machine(s), 99.9% need 1 "
                       "(the cluster has 2)\n") != std::string::npos);
  const nlohmann::json doc = analyze_report_json(s, c, report);
  const nlohmann::json& sizing = doc.at("closed_form").at("standby_sizing");
  CHECK(sizing.at("window_s").get<double>() == doctest::Approx(315.0));
  CHECK(sizing.at("pools").at(0).at("standby_machines") == 0);
  CHECK(sizing.at("pools").at(1).at("percentile").get<double>() == doctest::Approx(0.999));
  CHECK(sizing.at("pools").at(1).at("standby_machines") == 1);
  CHECK(sizing.at("standby_machines") == 2);
}
