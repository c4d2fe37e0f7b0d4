// The run model under failure domains and cause tables (run_model.hpp).
#include <doctest/doctest.h>

#include <numeric>

#include "ckptsim/core/error.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;
using ckptsim::test::small_scenario;

namespace {

std::vector<ReplicaResult> simulate_all(const Scenario& s) {
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  MonteCarloOptions o;
  o.replicas = s.run.replicas;
  return run_replicas(model, o);
}

std::size_t cause_index(const ReplicaResult& r, const std::string& name) {
  for (std::size_t i = 0; i < r.causes->size(); ++i)
    if ((*r.causes)[i].name == name) return i;
  FAIL("no cause " << name);
  return 0;
}

}  // namespace

TEST_CASE("group placement loses the checkpoint of every group inside a failed rack") {
  // 16 machines, groups {0,1} {2,3} ... (m = 2), racks of 4 machines: a rack holds two whole
  // groups, so a hardware rack failure empties both holders of 4 shards and memory recovery is
  // impossible: every recovery comes from storage (or scratch), none from peers; 4 machines are
  // replaced per rack failure.
  Scenario s = small_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::none;
  s.failures.domains[0] = DomainSpec{4, 1.0 / (20.0 * 3600.0), 1.0};
  s.run.duration = days(20);
  s.run.replicas = 10;
  std::int64_t failures = 0;
  for (const auto& r : simulate_all(s)) {
    CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::peer)] == 0);
    CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::local)] == 0);
    CHECK(r.machines_replaced == 4 * r.hardware_failures);
    CHECK(r.software_failures == 0);
    failures += r.failures();
  }
  CHECK(failures > 50);  // 4 racks x 1/20 h x 480 h x 10 replicas ~ 960
}

TEST_CASE("time lost by cause and by tier both add up to rolled-back work plus downtime") {
  // Two bookkeepings of the same episodes: per replica, the sums must agree to the nanosecond,
  // and the failure counts by cause must add up to the failures.
  Scenario s = small_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (16.0 * 3.0 * 3600.0);  // cluster MTBF 3 h
  s.failures.causes.causes = {FailureCauseSpec{"gpu", 3, true, seconds(30), std::nullopt},
                              FailureCauseSpec{"bug", 1, false, std::nullopt, seconds(600)}};
  s.failures.domains[0] = DomainSpec{4, 1.0 / (4.0 * 24.0 * 3600.0), 1.0};
  s.run.duration = days(10);
  for (const auto& r : simulate_all(s)) {
    const SimTime by_tier = std::accumulate(r.lost_by_tier.begin(), r.lost_by_tier.end(), SimTime::zero());
    const SimTime by_cause = std::accumulate(r.lost_by_cause.begin(), r.lost_by_cause.end(), SimTime::zero());
    CHECK(by_tier == by_cause);
    CHECK(std::accumulate(r.failures_by_cause.begin(), r.failures_by_cause.end(), std::int64_t{0}) == r.failures());
    REQUIRE(r.causes->size() == 3);  // gpu, bug, rack
  }
}

TEST_CASE("each cause's detection and restart times; phases count to the failure that started them") {
  // Strategy none, a trace: cause a (detection 10 s, restart 20 s) on machine 0 at 1000 s,
  // cause b (detection 50 s, restart 70 s) on machine 3 at 5000 s, both software.
  //   a: rolled back 1000 s (all work) + downtime 30 s = 1030 s; training resumes at 1030 s.
  //   b: rolled back 5000 - 1030 = 3970 s + downtime 120 s = 4090 s.
  // Then an interrupted episode: a at 9000 s, b at 9005 s (during a's detection):
  //   a's phase [9000, 9005) = 5 s plus the rolled-back 9000 - 5120 = 3880 s;
  //   b's phase: detection 50 s, restart max(20, 70) = 70 s -> 120 s.
  Scenario s = small_scenario(StrategyKind::none);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = ckptsim::test::write_trace_file("ckptsim-cause-trace.csv",
                                      "time,machine,type,cause\n1000,0,software,a\n5000,3,software,b\n"
                                      "9000,1,software,a\n9005,2,software,b\n");
  s.failures.causes.causes = {FailureCauseSpec{"a", 1, false, seconds(10), seconds(20)},
                              FailureCauseSpec{"b", 1, false, seconds(50), seconds(70)}};
  s.run.replicas = 1;
  const ReplicaResult r = simulate_all(s).front();
  CHECK(r.lost_by_cause[cause_index(r, "a")] == seconds(1030 + 5 + 3880));
  CHECK(r.lost_by_cause[cause_index(r, "b")] == seconds(4090 + 120));
  CHECK(r.breakdown.detection == seconds(10 + 50 + 5 + 50));
  CHECK(r.breakdown.restart == seconds(20 + 70 + 70));
  CHECK(r.lost_by_tier[static_cast<std::size_t>(RecoveryTier::scratch)] == seconds(1030 + 4090 + 3885 + 120));
  CHECK(r.failures_by_cause[cause_index(r, "a")] == 2);
}

TEST_CASE("a trace cause the cause table does not name is refused") {
  Scenario s = small_scenario(StrategyKind::none);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = ckptsim::test::write_trace_file("ckptsim-cause-trace-bad.csv", "time,machine,type,cause\n10,0,software,zzz\n");
  s.failures.causes.causes = {FailureCauseSpec{"a", 1, false, std::nullopt, std::nullopt}};
  CHECK_THROWS_AS(RunModel(s, compute_strategy_costs(s, nullptr)), ModelError);
}

TEST_CASE("a failure rate asking for more events than the stated limit is refused before running, unless forced") {
  // 16 machines x 1/s x 10 h = 576,000 events: fine; 1e4/s: 5.76e9, above the 1e7 limit.
  Scenario s = small_scenario(StrategyKind::none);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1e4;
  const RunChecks checks;
  CHECK_THROWS_AS(checked_run_model(s, compute_strategy_costs(s, nullptr), 1, checks), LimitError);
  // Domains count too: 4 power domains of 4 machines at 1e4/s each, 1.44e9 events over 10 h.
  s.failures.rate = 0;
  s.failures.domains[2] = DomainSpec{4, 1e4, 1.0};
  CHECK_THROWS_AS(checked_run_model(s, compute_strategy_costs(s, nullptr), 1, checks), LimitError);
  // --force builds the model anyway (the limit is on work, not on correctness).
  CHECK_NOTHROW((void)checked_run_model(s, compute_strategy_costs(s, nullptr), 1, RunChecks{1, true}));
}
