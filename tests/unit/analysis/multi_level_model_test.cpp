// The first-order multi-level model (analysis/multi_level_model.hpp) against hand calculation
// and against the run model.
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/analysis/multi_level_model.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using ckptsim::test::small_scenario;

namespace {

/// 16 machines, T = 60 s, levels every 5 / 15 / 60 iterations, stalls 0.75 / 1.5 / 121.5 s
/// (small_scenario: shard 0.75 GB at 1 GB/s for snapshot and NIC, 12 GB at 100 MB/s to storage).
/// Machine failures 4 per cluster-day, half hardware; racks of 2 machines (one replica group
/// each: every rack failure takes both holders) failing 1 per cluster-day, all hardware.
/// Classes: lambda_1 = 2/d (software), lambda_2 = 2/d (single machines), lambda_3 = 1/d (racks).
Scenario multi_level_case() {
  Scenario s = small_scenario(StrategyKind::multi_level);
  s.strategy.local_interval = minutes(5);
  s.strategy.partner_interval = minutes(15);
  s.strategy.persistent_interval = hours(1);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 4.0 / 86400.0 / s.cluster.machines;
  s.failures.hardware_fraction = 0.5;
  s.failures.domains[static_cast<std::size_t>(DomainKind::rack)] = DomainSpec{2, 1.0 / 86400.0 / 8, 1.0};
  return s;
}

}  // namespace

TEST_CASE("multi-level model: class rates, periods and the best intervals by hand") {
  const Scenario s = multi_level_case();
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  const MultiLevelPrediction m = predict_multi_level(s, c);
  REQUIRE(m.available);
  CHECK(m.rate[0] == doctest::Approx(2.0 / 86400));
  CHECK(m.rate[1] == doctest::Approx(2.0 / 86400));
  CHECK(m.rate[2] == doctest::Approx(1.0 / 86400));
  // One super-period of 60 iterations: 12 level-1 blocks, of which 4 are level >= 2 and 1 level 3.
  // Stalls: 8 x 0.75 + 3 x 1.5 + 121.5 = 132 s; wall 3600 + 132 = 3732 s.
  CHECK(m.checkpoint_overhead == doctest::Approx(132.0 / 3732.0));
  CHECK(m.period_s[0] == doctest::Approx(3732.0 / 12));
  CHECK(m.period_s[1] == doctest::Approx(3732.0 / 4));
  CHECK(m.period_s[2] == doctest::Approx(3732.0));
  // Level 3 has one capture per super-period: L = 3732, s = 121.5 -> 3732/2 + 121.5 = 1987.5 s.
  CHECK(m.rollback_s[2] == doctest::Approx(1987.5));
  // Best periods: sqrt(2 dS / lambda): level 1 sqrt(2 x 0.75 x 43200) = 254.6 s -> k1 = 4;
  // level 2 sqrt(2 x 0.75 x 43200) = 254.6 s -> one level-1 step (k2 = 4);
  // level 3 sqrt(2 x 120 x 86400) = 4553.7 s -> round(4553.7 / 240) = 19 steps -> k3 = 76.
  CHECK(m.best_period_s[0] == doctest::Approx(254.56).epsilon(1e-3));
  CHECK(m.best_period_s[2] == doctest::Approx(4553.7).epsilon(1e-3));
  CHECK(m.best_every[0] == 4);
  CHECK(m.best_every[1] == 4);
  CHECK(m.best_every[2] == 76);
}

TEST_CASE("multi-level model: with one replica every hardware failure needs storage") {
  // m = 1: no partner copies, so the 2 single-machine hardware failures per day join the rack
  // failures in class 3: lambda_2 = 0, lambda_3 = 2/d + 1/d.
  Scenario s = multi_level_case();
  s.strategy.replicas = 1;
  const MultiLevelPrediction m = predict_multi_level(s, compute_strategy_costs(s, nullptr));
  CHECK(m.rate[0] == doctest::Approx(2.0 / 86400));
  CHECK(m.rate[1] == 0.0);
  CHECK(m.rate[2] == doctest::Approx(3.0 / 86400));
}

TEST_CASE("multi-level model: best periods that violate the nesting are pooled") {
  // 90% of the 4 machine failures per day hardware: lambda_1 = 0.4/d, lambda_2 = 3.6/d (+ racks
  // at level 3). Alone, P_1* = sqrt(2 x 0.75 / (0.4/86400)) = 569.2 s > P_2* = sqrt(2 x 0.75 /
  // (3.6/86400)) = 189.7 s, which cannot nest; pooled: sqrt(2 x 1.5 / (4/86400)) = 254.56 s for
  // both levels.
  Scenario s = multi_level_case();
  s.failures.hardware_fraction = 0.9;
  const MultiLevelPrediction m = predict_multi_level(s, compute_strategy_costs(s, nullptr));
  CHECK(m.best_period_s[0] == doctest::Approx(254.56).epsilon(1e-3));
  CHECK(m.best_period_s[1] == doctest::Approx(254.56).epsilon(1e-3));
  CHECK(m.best_every[0] == 4);
  CHECK(m.best_every[1] == 4);
}

TEST_CASE("multi-level model: best intervals stay whole and finite at the edges") {
  // An iteration time of zero (the shape the sweep writes for an analyze point) leaves every best
  // period a number of iterations of 0/0; each level is then placed every iteration of the one
  // below: 1, 1, 1 (CI's sweep fuzzer found the cast of NaN to an integer here).
  Scenario s = multi_level_case();
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  c.iteration_time = SimTime::zero();
  const MultiLevelPrediction at_zero = predict_multi_level(s, c);
  CHECK(at_zero.best_every[0] == 1);
  CHECK(at_zero.best_every[1] == 1);
  CHECK(at_zero.best_every[2] == 1);
  // A 1 ns iteration in a 100-year run whose failures are all but absent (1e-15 per machine-second,
  // racks likewise): every best period is capped at the run's 3.15e9 s, i.e. 3.15e18 iterations
  // per level. The intervals' product is held at 1e15 iterations: level 1 = 1e15, and levels 2
  // and 3 one step of the level below (1e15 each). Unbounded, three levels would multiply to
  // beyond int64's 9.2e18.
  s.run.duration = days(36'500);
  s.failures.rate = 1e-15;
  s.failures.domains[static_cast<std::size_t>(DomainKind::rack)] = DomainSpec{2, 1e-15, 1.0};
  c = compute_strategy_costs(s, nullptr);
  c.iteration_time = SimTime::from_ns(1);
  const MultiLevelPrediction tiny = predict_multi_level(s, c);
  CHECK(tiny.best_every[0] == 1'000'000'000'000'000);
  CHECK(tiny.best_every[1] == 1'000'000'000'000'000);
  CHECK(tiny.best_every[2] == 1'000'000'000'000'000);
}

TEST_CASE("multi-level model: wasted time per failure agrees with the run model") {
  Scenario s = multi_level_case();
  s.run.duration = days(400);
  s.run.replicas = 60;
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  const MultiLevelPrediction m = predict_multi_level(s, c);
  const RunModel model(s, c);
  MonteCarloOptions o;
  o.replicas = s.run.replicas;
  o.jobs = 2;
  const RunSummary r = summarize(run_replicas(model, o));
  const auto& w = r.at("wasted_time_per_failure_s");
  // Tolerance: the 95% interval plus the first-order terms the model drops, of relative order
  // sum_i (lambda_i / Lambda) lambda_i P_i (a second failure of the same class within one period,
  // restarts resetting the checkpoint phase): (2 x 311 x 2 + 2 x 933 x 2 + 1 x 3732) / (5 x 86400)
  // = 2.0%.
  double order = 0;
  const double total = m.rate[0] + m.rate[1] + m.rate[2];
  for (std::size_t i = 0; i < 3; ++i) order += m.rate[i] / total * m.rate[i] * m.period_s[i];
  CAPTURE(w.mean);
  CAPTURE(w.ci95);
  CAPTURE(m.wasted_time_per_failure_s);
  CHECK(order < 0.03);
  CHECK(std::fabs(w.mean - m.wasted_time_per_failure_s) <= w.ci95 + order * m.wasted_time_per_failure_s);
  CHECK(w.ci95 < 0.02 * w.mean);  // a sharp comparison
  // Recoveries by tier follow the classes (episodes of several failures aside, order Lambda L).
  const double episodes = r.at("recoveries.local").mean + r.at("recoveries.peer").mean + r.at("recoveries.storage").mean;
  CHECK(r.at("recoveries.local").mean / episodes == doctest::Approx(0.4).epsilon(0.05));
  CHECK(r.at("recoveries.storage").mean / episodes == doctest::Approx(0.2).epsilon(0.08));
}
