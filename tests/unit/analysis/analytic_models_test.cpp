// Closed forms of analysis/analytic_models.hpp: hand-computed cases, and agreement with the run
// model's Monte Carlo estimates within their 95% confidence intervals.
#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "../common/test_scenarios.hpp"

namespace ckptsim {
namespace {

// The shared small scenario (tests/unit/common/test_scenarios.hpp): 16 machines, 1e9 parameters
// x 12 B = 12 GB checkpoint, 0.75 GB shard per machine: storage 100 MB/s -> C / B_s = 120 s;
// NIC 1 GB/s -> 0.75 s per shard; serialization 1 GB/s -> 0.75 s per shard; iteration 60 s.
// Retrievals: local 0.75 s, peer 1.5 s, storage 120.75 s.
Scenario base(StrategyKind strategy, double failures_per_machine_per_day, double days_long) {
  Scenario s = test::small_scenario(strategy);
  s.name = "analytic-" + std::string(name_of(strategy));
  s.failures.process = failures_per_machine_per_day > 0 ? FailureProcessKind::exponential : FailureProcessKind::none;
  s.failures.rate = failures_per_machine_per_day / 86400.0;
  s.run.duration = SimTime::from_seconds(days_long * 86400.0);
  s.run.seed = 11;
  return s;
}

struct Agreement {
  double closed = 0;
  double mean = 0;
  double ci95 = 0;
};

/// The closed form and a Monte Carlo summary of one scenario.
struct Evaluation {
  AnalyticPrediction closed;
  RunSummary simulated;
  [[nodiscard]] Agreement at(const std::string& metric) const {
    const Summary& m = simulated.at(metric);
    Agreement a{closed.metrics.at(metric), m.mean, m.ci95};
    MESSAGE(metric << ": closed " << a.closed << ", simulated " << a.mean << " +- " << a.ci95);
    return a;
  }
};

Evaluation evaluate(const Scenario& s, int replicas) {
  const StrategyCosts costs = compute_strategy_costs(s, nullptr);
  Evaluation e{predict_run(s, costs), {}};
  REQUIRE(e.closed.available);
  const RunModel model(s, costs);
  MonteCarloOptions options;
  options.replicas = replicas;
  options.jobs = 2;
  e.simulated = summarize(run_replicas(model, options));
  MESSAGE(s.name << ": asymptotic ETTR " << e.closed.ettr_asymptotic);
  return e;
}

Agreement compare(const Scenario& s, int replicas) { return evaluate(s, replicas).at("ettr"); }

}  // namespace

TEST_CASE("Eq. 1 wasted time per failure (GEMINI SOSP '23, Section 2)") {
  // t_ckpt = 10 s, checkpoint every 60 s (f = 1/60 Hz), retrieval 5 s: 10 + 60/2 + 5 = 45 s.
  CHECK(gemini_wasted_time(10.0, 1.0 / 60.0, 5.0) == doctest::Approx(45.0));
  // Once per iteration of 2 s with a 2 s checkpoint: 2 + 1 + 0 = 3 s.
  CHECK(gemini_wasted_time(2.0, 0.5, 0.0) == doctest::Approx(3.0));
  // Eq. 2: 1/f = 5 s is shorter than the 10 s checkpoint.
  CHECK_THROWS_AS((void)gemini_wasted_time(10.0, 0.2, 0.0), ModelError);
  CHECK_THROWS_AS((void)gemini_wasted_time(1.0, 0.0, 0.0), ModelError);
}

TEST_CASE("Young's and Daly's optimal checkpoint intervals") {
  // Young: sqrt(2 x 50 x 10000) = sqrt(1e6) = 1000 s.
  CHECK(young_interval(50.0, 10000.0) == doctest::Approx(1000.0));
  // M = 24 h = 86400 s, delta = 5 min = 300 s: sqrt(2 x 300 x 86400) = 7200 s (120 min).
  CHECK(young_interval(300.0, 86400.0) == doctest::Approx(7200.0));
  // Daly, same case: x = 300/172800 = 0.00173611; 7200 (1 + sqrt(x)/3 + x/9) - 300
  // = 7200 x 1.01408179 - 300 = 7001.39 s = 116.69 min (failure-data.md: "about 117 min").
  CHECK(daly_interval(300.0, 86400.0) == doctest::Approx(7001.389).epsilon(1e-6));
  CHECK(daly_interval(300.0, 86400.0) / 60.0 == doctest::Approx(116.69).epsilon(1e-4));
  // The restart time (10 min in that example) does not enter Daly's optimum; delta >= 2M gives M.
  CHECK(daly_interval(10.0, 4.0) == doctest::Approx(4.0));
  // delta = 0: checkpoints are free, both say "continuously".
  CHECK(young_interval(0.0, 100.0) == 0.0);
  CHECK(daly_interval(0.0, 100.0) == 0.0);
}

TEST_CASE("restart expectation and Erlang B") {
  // (e^{rate L} - 1)/rate with rate L = ln 2: 1 / (ln 2 / 100) = 144.27 s.
  CHECK(restart_expected_duration(std::log(2.0) / 100.0, 100.0) == doctest::Approx(100.0 / std::log(2.0)));
  CHECK(restart_expected_duration(0.0, 42.0) == 42.0);
  // B(1, a) = a / (1 + a); B(2, 1) = (1 x 0.5) / (2 + 0.5) = 0.2.
  CHECK(erlang_b(1, 0.25) == doctest::Approx(0.2));
  CHECK(erlang_b(2, 1.0) == doctest::Approx(0.2));
  CHECK(erlang_b(0, 3.0) == 1.0);
}

TEST_CASE("no failures: ETTR is the stall pattern alone, exactly") {
  Scenario s = base(StrategyKind::gemini, 0.0, 10.0 / 24.0);
  s.strategy.checkpoint_stall = seconds(6);
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  const AnalyticPrediction p = predict_run(s, c);
  // W = 36000 s; block 0 = 60 s, then blocks of 66 s: (36000 - 60) = 544 x 66 + 36, so the stall
  // is 544 x 6 + min(36, 6) = 3270 s and ETTR = (36000 - 3270) / 36000 = 0.9091667.
  CHECK(p.ettr == doctest::Approx(32730.0 / 36000.0));
  CHECK(p.metrics.at("time_breakdown_s.checkpoint_stall") == doctest::Approx(3270.0));
  CHECK(p.ettr_asymptotic == doctest::Approx(60.0 / 66.0));
}

TEST_CASE("closed form in the small-rate limit: ETTR -> kT/(kT+S) minus the failure cost") {
  // gemini with S = 6 s, one failure per cluster-year: Lambda = 1/31536000 per s. To first order
  // ETTR_inf = (kT/D_k) (1 - Lambda (Lbar + a_1 + D_k/2 - ...)); here simply check it is just
  // below 60/66 and that Eq. 1 reads t_ckpt + 1/(2f) + rho = 66 + 33 + mean retrieval.
  Scenario s = base(StrategyKind::gemini, 1.0 / 365.0 / 16.0, 30.0);
  s.strategy.checkpoint_stall = seconds(6);
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  const AnalyticPrediction p = predict_run(s, c);
  CHECK(p.ettr_asymptotic < 60.0 / 66.0);
  CHECK(p.ettr_asymptotic > 60.0 / 66.0 * (1.0 - 1e-4));
  // completion = T + S = 66 s, D_k = 66 s; retrieval local 0.75 s or peer 1.5 s with about half
  // of the episodes software-only: 66 + 33 + ~1.125 = ~100.1 s.
  CHECK(p.eq1_wasted_time_s == doctest::Approx(100.125).epsilon(1e-3));
  // MTBF 1 year, delta = 6 s: Young sqrt(2 x 6 x 31536000) = 19453.5 s.
  CHECK(p.young_interval_s == doctest::Approx(std::sqrt(2.0 * 6.0 * 31536000.0)).epsilon(1e-6));
}

// ---- The run model against the closed form, within the 95% confidence interval ----
// Each case: the closed-form ETTR (header, section 3) must lie within mean +- ci95 of the Monte
// Carlo estimate. Seeds are fixed, so the outcome is reproducible; an exact closed form would
// still fall outside a 95% interval for about 1 seed in 20. (With 200 replicas of seed 11, the
// 1%/machine/hour case drew 117.2 failures per replica against the exact Lambda W = 115.2,
// 2.8 sigma, and its ETTR fell 2.6 sigma low with it; 2000 replicas are used instead.)
// Secondary metrics are checked at 1.68 x ci95 (about a 99.9% interval) because several are
// compared at once.
constexpr double kWide = 3.2905 / 1.96;

TEST_CASE("run model agrees with the ETTR closed form: gemini, 1.5%/machine/day") {
  // Lambda = 16 x 0.015 / day = 0.24 / day. Lbar = 15 + 0.5 (0.75) + 0.5 (300 + 1.5) + 60
  // = 226.125 s; a_1 = 60 + 60.75 = 120.75 s (first-order stall from the idle-time estimate).
  Scenario s = base(StrategyKind::gemini, 0.015, 30.0);
  const Agreement a = compare(s, 1000);
  CHECK(std::abs(a.closed - a.mean) <= a.ci95);
}

TEST_CASE("run model agrees with the ETTR closed form: gemini, 1%/machine/hour") {
  // Lambda = 0.16 / h: about 115 failures per 30-day replica; Lambda Lbar = 0.01.
  Scenario s = base(StrategyKind::gemini, 0.24, 30.0);
  const Evaluation ev = evaluate(s, 2000);
  const Agreement e = ev.at("ettr");
  CHECK(std::abs(e.closed - e.mean) <= e.ci95);
  // Failures: Lambda W = 16 x 0.24 x 30 = 115.2 exactly; detection per failure
  // (1 - e^{-Lambda D})/Lambda = 14.9994 s; the other parts from section 3b.
  for (const char* metric : {"failures.total", "time_breakdown_s.detection", "time_breakdown_s.replacement_wait",
                             "time_breakdown_s.restart", "time_breakdown_s.retrieval", "time_breakdown_s.lost_progress",
                             "wasted_time_per_failure_s", "recoveries.local", "recoveries.peer"}) {
    CAPTURE(metric);
    const Agreement a = ev.at(metric);
    CHECK(std::abs(a.closed - a.mean) <= kWide * a.ci95);
  }
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(predict_run(s, c).metrics.at("failures.total") == doctest::Approx(115.2));
}

TEST_CASE("run model agrees with the ETTR closed form: remote-periodic every hour") {
  // k = 60 iterations, S = 120.75 s (storage write), every recovery reads 120.75 s from storage.
  // Lambda = 16 x 0.05 / day; the horizon term K (about the work not yet lost when the run ends)
  // matters here: it is ~0.3% of the ETTR for a 30-day run.
  Scenario s = base(StrategyKind::remote_periodic, 0.05, 30.0);
  const Agreement a = compare(s, 1000);
  CHECK(std::abs(a.closed - a.mean) <= a.ci95);
}

TEST_CASE("run model agrees with the ETTR closed form: remote-highfreq") {
  // S = 0.75 s snapshot, upload 120 s in the background, k = ceil(120/60) = 2, completion 120.75 s.
  Scenario s = base(StrategyKind::remote_highfreq, 0.1, 20.0);
  const Agreement a = compare(s, 1000);
  CHECK(std::abs(a.closed - a.mean) <= a.ci95);
}

TEST_CASE("run model agrees with the ETTR closed form: in-memory-blocking every 4 iterations") {
  // S = completion = 0.75 s (one copy over the 1 GB/s NIC); D_k = 240.75 s.
  Scenario s = base(StrategyKind::in_memory_blocking, 0.2, 20.0);
  s.strategy.every_iterations = 4;
  const Agreement a = compare(s, 1000);
  CHECK(std::abs(a.closed - a.mean) <= a.ci95);
}

TEST_CASE("run model agrees with the ETTR closed form: no checkpoints") {
  // Every failure goes back to scratch: E[R(W)] -> K = e^{-Lambda Lbar} / Lambda, the mean
  // age of the final segment. Lambda = 16 x 1 / day: K ~ 1.5 h of a 2-day run, ETTR ~ 0.03.
  Scenario s = base(StrategyKind::none, 1.0, 2.0);
  const Agreement a = compare(s, 2000);
  CHECK(std::abs(a.closed - a.mean) <= a.ci95);
}

TEST_CASE("run model agrees with the ETTR closed form: single replica falls back to storage") {
  // m = 1: every episode with a hardware failure recovers from the hourly persistent checkpoint.
  Scenario s = base(StrategyKind::gemini, 0.2, 20.0);
  s.strategy.replicas = 1;
  const Agreement a = compare(s, 1000);
  CHECK(std::abs(a.closed - a.mean) <= a.ci95);
}

TEST_CASE("run model agrees with the ETTR closed form: standby machines, uniform replacement, ring") {
  Scenario s = base(StrategyKind::gemini, 1.0, 10.0);
  s.cluster.standby_machines = 1;
  s.strategy.placement = PlacementScheme::ring;
  s.failures.replacement.distribution = ReplacementDistribution::uniform;
  s.failures.replacement.low = minutes(4);
  s.failures.replacement.high = minutes(7);
  const Evaluation ev = evaluate(s, 1000);
  const Agreement e = ev.at("ettr");
  CHECK(std::abs(e.closed - e.mean) <= e.ci95);
  // Erlang-B blocking is exact for the share of blocked failures but not for their clustering
  // inside episodes (an approximation of order Lambda (D + P)): checked at the wide interval.
  const Agreement r = ev.at("time_breakdown_s.replacement_wait");
  CHECK(std::abs(r.closed - r.mean) <= kWide * r.ci95);
}

}  // namespace ckptsim

namespace ckptsim {

TEST_CASE("run model agrees with the ETTR closed form: a run.iterations target") {
  // 20000 iterations of 60 s (13.9 days of training) under remote-periodic (every hour) at 16 x
  // 0.3 failures / day: W solves E[training(W)] = n T, and the replicas' mean of n T / W_i
  // carries the second-order term Var(W)/W^2 (about 0.1% here).
  Scenario s = base(StrategyKind::remote_periodic, 0.3, 1.0);
  s.run.duration.reset();
  s.run.iterations = 20000;
  const Agreement a = compare(s, 1000);
  CHECK(std::abs(a.closed - a.mean) <= a.ci95);
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  // Training is exactly n T = 1.2e6 s in every replica.
  CHECK(predict_run(s, c).metrics.at("time_breakdown_s.training") == doctest::Approx(1.2e6));
}

}  // namespace ckptsim

namespace ckptsim {

TEST_CASE("the closed form's best checkpoint period is Daly's for a storage strategy") {
  // remote-periodic, S = C / B_s = 120 s per checkpoint (serialization 0.75 s is hidden behind
  // it), Lambda = 16 x 0.05 / day: M = 108000 s. Daly: sqrt(2 x 120 x 108000) = 5091.2 s,
  // x = 120 / 216000: 5091.2 (1 + 0.00786 + 0.00006) - 120 = 5011.5 s = 83.5 iterations of 60 s.
  // The closed form's ETTR (which also charges detection, replacement, retrieval and restart per
  // failure, independent of k to first order) peaks at the same k within an iteration or two.
  Scenario s = base(StrategyKind::remote_periodic, 0.05, 30.0);
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  const AnalyticPrediction p = predict_run(s, c);
  CHECK(p.daly_interval_s == doctest::Approx(5011.5).epsilon(1e-3));
  const EveryIterationsChoice best = best_every_iterations(s, c, 400);
  CHECK(std::abs(static_cast<double>(best.every_iterations) - p.daly_every_iterations) <= 2.0);
}

}  // namespace ckptsim
