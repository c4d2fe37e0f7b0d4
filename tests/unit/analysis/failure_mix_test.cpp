// The failure model as the closed forms see it (analysis/failure_mix.hpp), and the closed forms
// (analysis/analytic_models.hpp) with failure domains, lemon nodes and cause tables: hand counts,
// an independent renewal Monte Carlo for the Weibull renewal function, and the run model's Monte
// Carlo for the ETTR (issue 22's reproducers, on the shared small scenario).
#include <cmath>
#include <fstream>
#include <random>
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/analysis/optimizer.hpp"
#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "../common/test_scenarios.hpp"

namespace ckptsim {
namespace {

constexpr double kDay = 86400.0;

/// 16 machines (tests/unit/common/test_scenarios.hpp), gemini, `days` long, no machine failures.
Scenario quiet(double days) {
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::none;
  s.run.duration = SimTime::from_seconds(days * kDay);
  s.run.seed = 5;
  return s;
}

struct Compared {
  AnalyticPrediction closed;
  RunSummary simulated;
};

Compared compare_mix(const Scenario& s, int replicas) {
  const StrategyCosts costs = compute_strategy_costs(s, nullptr);
  Compared out{predict_run(s, costs), {}};
  REQUIRE(out.closed.available);
  const RunModel model(s, costs);
  MonteCarloOptions o;
  o.replicas = replicas;
  o.jobs = 2;
  out.simulated = summarize(run_replicas(model, o));
  return out;
}

void check_within(const Compared& c, const std::string& metric, double widen) {
  const Summary& m = c.simulated.at(metric);
  const double closed = c.closed.metrics.at(metric);
  MESSAGE(metric << ": closed " << closed << ", simulated " << m.mean << " +- " << m.ci95);
  CHECK(std::abs(closed - m.mean) <= widen * m.ci95);
}

/// Independent oracle: mean number of renewals by `horizon` of `processes` renewal processes of
/// Weibull(shape, scale) lifetimes started new at 0, sampled by inversion x = scale (-ln U)^{1/k}.
double renewal_monte_carlo(double shape, double scale, double horizon, int processes, double& standard_error) {
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  double sum = 0;
  double sum2 = 0;
  for (int i = 0; i < processes; ++i) {
    double t = 0;
    int n = 0;
    for (;;) {
      t += scale * std::pow(-std::log1p(-u(rng)), 1.0 / shape);
      if (t > horizon) break;
      ++n;
    }
    sum += n;
    sum2 += static_cast<double>(n) * n;
  }
  const double mean = sum / processes;
  standard_error = std::sqrt((sum2 / processes - mean * mean) / processes);
  return mean;
}

}  // namespace

TEST_CASE("Weibull renewal function: exact for shape 1, and the renewal Monte Carlo for shape 0.7") {
  // Shape 1 is the exponential: M(t) = t / scale exactly (Poisson process).
  CHECK(weibull_renewal_count(1.0, 5 * kDay, 7 * kDay) == doctest::Approx(1.4).epsilon(1e-4));
  // Issue 22: 16 machines, shape 0.7, scale 5 d, 7 d. The renewal Monte Carlo of 2,000,000
  // processes (standard error ~0.001 per machine) is the oracle; the old solver (j = 1 term of
  // the Stieltjes sum taken as 0) gave 24.14 / 16 = 1.509 per machine, 0.6% low.
  double se = 0;
  const double oracle = renewal_monte_carlo(0.7, 5 * kDay, 7 * kDay, 2'000'000, se);
  const double m = weibull_renewal_count(0.7, 5 * kDay, 7 * kDay);
  MESSAGE("M(7 d) = " << m << ", renewal Monte Carlo " << oracle << " +- " << se);
  CHECK(std::abs(m - oracle) <= 4.0 * se);
  // And it is more than the first renewal alone: M >= F(W) = 1 - exp(-(7/5)^0.7).
  CHECK(m > -std::expm1(-std::pow(1.4, 0.7)));
}

TEST_CASE("standby blocking: Erlang B for single machines, the truncated-Poisson tail for batches") {
  // B(2, 1) = (1/2!) / (1 + 1 + 1/2) = 0.2.
  CHECK(standby_blocking(2, 1.0, 1) == doctest::Approx(erlang_b(2, 1.0)));
  CHECK(standby_blocking(2, 1.0, 1) == doctest::Approx(0.2));
  // A batch of 2 with 2 servers is blocked unless all are free: 1 - pi_0 = 1 - 1/2.5 = 0.6.
  CHECK(standby_blocking(2, 1.0, 2) == doctest::Approx(0.6));
  CHECK(standby_blocking(1, 1.0, 2) == 1.0);
  CHECK(standby_blocking(4, 0.0, 2) == 0.0);
}

TEST_CASE("domains losing memory: share of domains whose failure leaves a machine without holders") {
  // Group placement m = 2 on 8 machines: groups {0,1}, {2,3}, ...; racks of 2 hold whole groups.
  const Placement group = make_placement(PlacementScheme::group, 8, 2, 1);
  CHECK(domains_losing_memory(group, 2, 0) == 1.0);
  // Racks of 1: no rack holds both copies.
  CHECK(domains_losing_memory(group, 1, 0) == 0.0);
  // group-spread: groups {g, g + 4}: racks of 2 never hold both members.
  const Placement spread = make_placement(PlacementScheme::group_spread, 8, 2, 1);
  CHECK(domains_losing_memory(spread, 2, 0) == 0.0);
  // Racks of 4 on 8 machines: racks {0..3} and {4..7}; groups {0,1}, {2,3} sit in rack 0 and
  // {4,5}, {6,7} in rack 1: both racks lose.
  CHECK(domains_losing_memory(group, 4, 0) == 1.0);
  // Erasure-coded groups of 4 with p = 1 (groups {0..3}, {4..7}): a rack of 2 takes 2 > 1 members.
  const Placement coded = erasure_groups(PlacementScheme::group, 8, ErasureCode{4, 1});
  CHECK(domains_losing_memory(coded, 2, 1) == 1.0);
  CHECK(domains_losing_memory(coded, 1, 1) == 0.0);
}

TEST_CASE("failure mix: domains, lemons and cause tables in the class rates") {
  // Racks of 2 on 16 machines at r per rack: 8 racks, Lambda = 8 r, all hardware (default 1).
  Scenario racks = quiet(7);
  racks.failures.domains[0] = DomainSpec{2, 0.02 / kDay, 1.0};
  const FailureMix a = failure_mix(racks);
  REQUIRE(a.available);
  CHECK(a.total_rate == doctest::Approx(8 * 0.02 / kDay));
  CHECK(a.hardware_share == doctest::Approx(1.0));
  CHECK(a.machine_rate == 0.0);
  // Lemons: 25% x 10 on 16 machines: round(4) lemons, sum x = 16 + 4 x 9 = 52.
  Scenario lemons = quiet(7);
  lemons.failures.process = FailureProcessKind::exponential;
  lemons.failures.rate = 0.01 / kDay;
  lemons.failures.lemons.model = LemonModel::fraction;
  lemons.failures.lemons.fraction = 0.25;
  lemons.failures.lemons.multiple = 10;
  const FailureMix b = failure_mix(lemons);
  CHECK(b.machine_rate == doctest::Approx(52 * 0.01 / kDay));
  CHECK(b.omitted.empty());
  // Replaced within w by its machine failures (h = 0.5): 1/4 lemons at 10 x the base rate.
  const double w = 3600;
  const double a1 = 0.5 * 0.01 / kDay * w;
  CHECK(b.replaced_within(w) == doctest::Approx(0.25 * -std::expm1(-10 * a1) + 0.75 * -std::expm1(-a1)));
  // With the quarantine, the closed forms leave a term out and say so.
  lemons.failures.lemons.quarantine_failures = 3;
  CHECK(failure_mix(lemons).omitted.size() == 1);
  // Cause table: all hardware although hardware_fraction is 0: the table decides.
  Scenario causes = lemons;
  causes.failures.lemons = LemonSpec{};
  causes.failures.hardware_fraction = 0.0;
  causes.failures.causes.causes = {FailureCauseSpec{"gpu", 3, true, std::nullopt, std::nullopt},
                                   FailureCauseSpec{"psu", 1, true, seconds(30), std::nullopt}};
  const FailureMix c = failure_mix(causes);
  CHECK(c.hardware_share == 1.0);
  CHECK(c.machine_hardware_rate == doctest::Approx(16 * 0.01 / kDay));
  // Rate-weighted detection: 3/4 x 15 s + 1/4 x 30 s = 18.75 s.
  CHECK(c.mean_detection_s == doctest::Approx(0.75 * causes.failures.detection.seconds() + 0.25 * 30.0));
}

TEST_CASE("closed form with racks only: failures and ETTR against the run model") {
  // Issue 22: failure process none, racks of 2 at 2% per rack-day, 30 days: the old closed form
  // said ETTR 1 and 0 failures. Failures = 8 racks x 0.02 x 30 = 4.8 exactly, all hardware; a rack
  // holds a whole gemini group {2i, 2i+1}, so every rack failure loses the in-memory copies.
  Scenario s = quiet(30);
  s.failures.domains[0] = DomainSpec{2, 0.02 / kDay, 1.0};
  const Compared c = compare_mix(s, 2000);
  CHECK(c.closed.metrics.at("failures.total") == doctest::Approx(4.8));
  CHECK(c.closed.metrics.at("failures.hardware") == doctest::Approx(4.8));
  CHECK(c.closed.memory_loss_per_episode > 0.9);
  CHECK(c.closed.ettr < 0.999);
  check_within(c, "failures.total", 1.0);
  check_within(c, "ettr", 1.5);
  check_within(c, "recoveries.storage", 2.0);
}

TEST_CASE("closed form with lemon nodes: the failure count and ETTR against the run model") {
  // Issue 22: lemons 25% x 10 (the old closed form expected 16 lambda W, 3.25 x too few).
  // 1% per machine-day, 30 days: 52 x 0.01 x 30 = 15.6 failures.
  Scenario s = quiet(30);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.01 / kDay;
  s.failures.lemons.model = LemonModel::fraction;
  s.failures.lemons.fraction = 0.25;
  s.failures.lemons.multiple = 10;
  const Compared c = compare_mix(s, 2000);
  CHECK(c.closed.metrics.at("failures.total") == doctest::Approx(15.6));
  check_within(c, "failures.total", 1.0);
  check_within(c, "ettr", 1.5);
}

TEST_CASE("closed form with a cause table: its hardware share and per-cause times") {
  // Issue 22: an all-hardware table with hardware_fraction 0 (the old closed form: 0 hardware
  // failures). 2% per machine-day, 30 days: 16 x 0.02 x 30 = 9.6 failures, all hardware; one
  // cause detects in 60 s instead of 15 s.
  Scenario s = quiet(30);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.02 / kDay;
  s.failures.hardware_fraction = 0.0;
  s.failures.causes.causes = {FailureCauseSpec{"gpu", 3, true, std::nullopt, std::nullopt},
                              FailureCauseSpec{"psu", 1, true, seconds(60), std::nullopt}};
  const Compared c = compare_mix(s, 2000);
  CHECK(c.closed.metrics.at("failures.hardware") == doctest::Approx(9.6));
  CHECK(c.closed.metrics.at("failures.software") == doctest::Approx(0.0));
  check_within(c, "failures.hardware", 1.0);
  check_within(c, "ettr", 1.5);
  // Detection per failure: (3/4)(1 - e^{-Lambda 15})/Lambda + (1/4)(1 - e^{-Lambda 60})/Lambda,
  // about 26.25 s for Lambda W ~ 10 over 30 days.
  check_within(c, "time_breakdown_s.detection", 2.0);
}

TEST_CASE("failure mix under restart tiers: each class restarts at its tier's latency") {
  // T = 60 s, R = 60 s, half hardware; in-job 100 s, a new job 200 s more. Software: in-process
  // 2.5 + 60 = 62.5 s; hardware: in-job 100 s with a free standby, 300 s without; the mean
  // restart with a free standby is (62.5 + 100) / 2 = 81.25 s.
  Scenario s = quiet(30);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.01 / kDay;
  s.failures.restart_tiers.enabled = true;
  s.failures.restart_tiers.in_job_latency = seconds(100);
  s.failures.restart_tiers.new_job_overhead = seconds(200);
  FailureMix mix = failure_mix(s);
  apply_restart_tiers(mix, s, 60.0);
  REQUIRE(mix.classes.size() == 2);
  CHECK(mix.classes[0].restart_s == doctest::Approx(62.5));
  CHECK(mix.classes[0].restart_no_standby_s() == doctest::Approx(62.5));
  CHECK(mix.classes[1].restart_s == doctest::Approx(100.0));
  CHECK(mix.classes[1].restart_no_standby_s() == doctest::Approx(300.0));
  CHECK(mix.mean_restart_s == doctest::Approx(81.25));
  // Off, nothing changes.
  s.failures.restart_tiers.enabled = false;
  FailureMix flat = failure_mix(s);
  apply_restart_tiers(flat, s, 60.0);
  CHECK(flat.classes[1].restart_s == doctest::Approx(60.0));
  CHECK_FALSE(flat.classes[1].restart_without_standby_s.has_value());
}

TEST_CASE("closed form under restart tiers: ETTR against the run model, new jobs when the standby is taken") {
  // 5% per machine-day over 16 machines (0.8 failures a day), half hardware, one standby that
  // returns after a 5 min replacement; in-job 10 min, a new job 1 h more: the tiers matter.
  Scenario s = quiet(30);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.05 / kDay;
  s.cluster.standby_machines = 1;
  s.failures.restart_tiers.enabled = true;
  s.failures.restart_tiers.in_job_latency = minutes(10);
  s.failures.restart_tiers.new_job_overhead = hours(1);
  const Compared c = compare_mix(s, 1000);
  check_within(c, "ettr", 1.5);
  // Without the standby every hardware failure is a new job: a lower ETTR, closed and simulated.
  s.cluster.standby_machines = 0;
  const Compared none = compare_mix(s, 1000);
  check_within(none, "ettr", 1.5);
  CHECK(none.closed.ettr < c.closed.ettr);
}

TEST_CASE("closed form under restart tiers: a new job's overhead is restart time, where the run model counts it") {
  // Issue 38, item 5: the closed form's breakdown put the new-job overhead into replacement_wait;
  // the run model counts it in the restart (run_model.cpp: the episode's restart, retrieved ->
  // restarted, is the tier's latency, failure/restart_tiers.hpp). 16 machines at 1.5 % per
  // machine-day for 30 days: Lambda W = 7.2 failures, 3.6 hardware. No standby, so every hardware
  // failure restarts in a new job: in-job (the cause's R = 60 s) + 30 min = 1860 s, after its
  // 5 min replacement; a crash restarts in-process, 2.5 s + T = 62.5 s. Per failure the job is
  // down at most 15 + 300 + 1.5 + 1860 s, so Lambda L < 0.007 and episodes barely overlap:
  //   restart          3.6 x 62.5 + 3.6 x 1860 = 6921 s
  //   replacement wait 3.6 x 300               = 1080 s
  // (before the fix: restart 7.2 x the mean 61.25 s = 441 s, replacement wait 3.6 x 2100 s).
  Scenario s = quiet(30);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.015 / kDay;
  s.failures.restart_tiers.enabled = true;
  s.failures.restart_tiers.new_job_overhead = minutes(30);
  s.run.seed = 11;
  const Compared c = compare_mix(s, 2000);
  CHECK(c.closed.metrics.at("time_breakdown_s.restart") == doctest::Approx(6921.0).epsilon(0.01));
  CHECK(c.closed.metrics.at("time_breakdown_s.replacement_wait") == doctest::Approx(1080.0).epsilon(0.01));
  // And the closed form's categories against the run model's (2000 replicas, a 95 % interval).
  check_within(c, "time_breakdown_s.restart", 1.0);
  check_within(c, "time_breakdown_s.replacement_wait", 1.0);
  check_within(c, "time_breakdown_s.retrieval", 1.0);
}

TEST_CASE("optimize ranks by Monte Carlo when the closed form leaves a term out") {
  // Lemons with a quarantine: the closed form cannot include it, says so, and optimize ranks by
  // the run model's replicas (the scenario's run.replicas when --replicas is not given).
  nlohmann::json doc;
  {
    std::ifstream in(std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper/gpt2-40b-16xp3dn.json");
    REQUIRE(in);
    doc = nlohmann::json::parse(in);
  }
  doc["failures"]["lemons"] = {{"model", "fraction"}, {"fraction", 0.25}, {"multiple", 10}, {"quarantine_failures", 2}};
  doc["run"] = {{"duration", "3d"}, {"replicas", 20}};
  OptimizeOptions o;
  const OptimizeResult r = optimize(doc, "<test>", std::string(CKPTSIM_SOURCE_ROOT) + "/scenarios/paper", {VaryAxis{"/cluster/standby_machines", {0, 2}}}, o);
  REQUIRE(r.best.has_value());
  CHECK(r.closed_form_omits.size() == 1);
  CHECK(r.ranking.find("Monte Carlo mean (20 replicas)") != std::string::npos);
  CHECK(r.ranking.find("lemon quarantine") != std::string::npos);
  for (const auto& c : r.candidates) {
    CHECK(c.simulated.has_value());
    CHECK(!c.closed.omitted_terms.empty());
  }
}

}  // namespace ckptsim
