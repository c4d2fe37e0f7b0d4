// Failure domains, cause tables and lemon nodes (failure_process.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <map>
#include <vector>

#include <boost/math/distributions/chi_squared.hpp>

#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/scenario/cause_presets.hpp"

using namespace ckptsim;

namespace {

std::vector<FailureEvent> draw_all(const FailureSpec& spec, int machines, SimTime until, std::uint64_t replica = 0) {
  auto source = make_failure_source(FailureSourceContext{spec, machines, 11, replica, nullptr});
  std::vector<FailureEvent> out;
  while (auto e = source->next()) {
    if (e->time >= until) break;
    out.push_back(*e);
  }
  return out;
}

/// Critical value of a chi-square test with `df` degrees of freedom at false-alarm rate alpha.
double chi_square_critical(int df, double alpha) {
  return boost::math::quantile(boost::math::complement(boost::math::chi_squared(df), alpha));
}

}  // namespace

TEST_CASE("a rack failure takes every machine of the rack down at the same instant") {
  // 10 machines in racks of 4: racks [0,4), [4,8) and the short last rack [8,10).
  FailureSpec spec;
  spec.process = FailureProcessKind::none;
  spec.domains[0] = DomainSpec{4, 1.0 / 3600.0, 1.0};
  const auto events = draw_all(spec, 10, days(30));
  REQUIRE(events.size() > 100);  // 3 racks x 1/h x 720 h ~ 2160 expected
  std::map<int, int> by_first;
  for (const auto& e : events) {
    CHECK(e.machine % 4 == 0);
    CHECK(e.machines == (e.machine == 8 ? 2 : 4));
    CHECK(e.type == FailureType::hardware);
    CHECK(e.cause == domain_cause_base(spec));
    ++by_first[e.machine];
  }
  CHECK(by_first.size() == 3);
  CHECK(failure_causes(spec).back().name == "rack");
}

TEST_CASE("domain failures merge in time order with machine failures; counts follow the rates") {
  // Machine failures at 1/h over 8 machines (8/h), leaf failures at 1/h per leaf of 4 (2/h):
  // over 1000 h, Poisson counts with means 8000 and 2000. Bounds at 4.4 sd (false-alarm
  // rate ~1e-5 each).
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 1.0 / 3600.0;
  spec.hardware_fraction = 0.0;
  spec.domains[1] = DomainSpec{4, 1.0 / 3600.0, 0.0};
  const auto events = draw_all(spec, 8, hours(1000));
  int machine_events = 0;
  int leaf_events = 0;
  for (std::size_t i = 1; i < events.size(); ++i) CHECK(events[i - 1].time <= events[i].time);
  for (const auto& e : events) (e.machines == 4 ? leaf_events : machine_events)++;
  CHECK(std::abs(machine_events - 8000) < 4.4 * std::sqrt(8000.0));
  CHECK(std::abs(leaf_events - 2000) < 4.4 * std::sqrt(2000.0));
  // expected_failure_events states the same means.
  CHECK(expected_failure_events(spec, 8, hours(1000)) == doctest::Approx(10000.0));
}

TEST_CASE("cause table: the Llama 3 preset's outcomes follow Table 5's categories") {
  // Table 5 (arXiv 2407.21783): GPU causes 148 + 72 + 19 + 17 + 6 + 6 = 268, Host 7 + 3 + 3 + 2 +
  // 2 + 2 + 2 = 21, Unplanned Maintenance 32: 321 of 419 hardware (76.6%, the report's "about
  // 78%"). Network switch/cable keeps CPU memory, as the leaf-switch domain does (its default
  // hardware_fraction is 0): software outcome.
  const CausePreset* llama = find_cause_preset("llama3-405b");
  REQUIRE(llama != nullptr);
  double hardware = 0;
  double all = 0;
  for (const auto& c : llama->causes) {
    all += c.share;
    if (c.hardware) hardware += c.share;
    if (c.name == "network-switch-cable") CHECK_FALSE(c.hardware);
  }
  CHECK(all == 419.0);
  CHECK(hardware == 321.0);
  CHECK(FailureSpec{}.domain(DomainKind::leaf).hardware_fraction == 0.0);
}

TEST_CASE("cause table: failures reproduce the Llama 3 cause shares (chi-square, false-alarm rate 1e-3)") {
  // Under a correct sampler the Pearson statistic over the 18 causes follows chi-square with
  // 17 degrees of freedom; it exceeds the critical value with probability 1e-3.
  const CausePreset* llama = find_cause_preset("llama3-405b");
  REQUIRE(llama != nullptr);
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 1.0 / 3600.0;
  spec.causes.causes = llama->causes;
  const auto events = draw_all(spec, 100, hours(200));  // ~20,000 failures
  std::vector<double> counts(llama->causes.size(), 0.0);
  double total_share = 0;
  for (const auto& c : llama->causes) total_share += c.share;
  CHECK(total_share == 419.0);  // the published counts add up to the 419 interruptions
  for (const auto& e : events) {
    counts[static_cast<std::size_t>(e.cause)] += 1;
    // Each failure takes its cause's outcome.
    CHECK((e.type == FailureType::hardware) == llama->causes[static_cast<std::size_t>(e.cause)].hardware);
  }
  const double n = static_cast<double>(events.size());
  double chi2 = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double expected = n * llama->causes[i].share / total_share;
    chi2 += (counts[i] - expected) * (counts[i] - expected) / expected;
  }
  CAPTURE(chi2);
  CHECK(chi2 < chi_square_critical(17, 1e-3));
  // faulty GPU: 148 / 419 = 35.3% of failures.
  CHECK(counts[0] / n == doctest::Approx(148.0 / 419.0).epsilon(0.05));
}

TEST_CASE("lemon nodes: a fraction of machines at a multiple of the rate takes its share of failures") {
  // 10 of 100 machines at 10x: the lemons' share of failures is 10*10 / (10*10 + 90) = 100/190.
  // Binomial sd over n failures: sqrt(p(1-p)/n); bound at 4.4 sd.
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 1.0 / 3600.0;
  spec.lemons.model = LemonModel::fraction;
  spec.lemons.fraction = 0.1;
  spec.lemons.multiple = 10;
  const auto events = draw_all(spec, 100, hours(100));
  std::map<int, int> per_machine;
  for (const auto& e : events) ++per_machine[e.machine];
  // The 10 machines with most failures are the lemons (each expects 100 failures, others 10).
  std::vector<int> counts;
  for (const auto& [m, c] : per_machine) counts.push_back(c);
  std::sort(counts.rbegin(), counts.rend());
  double lemon_failures = 0;
  for (int i = 0; i < 10; ++i) lemon_failures += counts[static_cast<std::size_t>(i)];
  CHECK(counts[9] > 2 * counts[10]);
  const double n = static_cast<double>(events.size());
  const double p = 100.0 / 190.0;
  CHECK(std::fabs(lemon_failures / n - p) < 4.4 * std::sqrt(p * (1 - p) / n));
  // Total rate: 190 machine-rates x 1/h x 100 h = 19,000 expected.
  CHECK(std::fabs(n - 19000.0) < 4.4 * std::sqrt(19000.0));
}

TEST_CASE("quarantine: a machine's k-th failure within the window is hardware and resets its history") {
  // Oracle written independently: per machine, failure times since its last quarantine; a
  // failure is the k-th within the window iff k-1 earlier ones lie less than `window` before it.
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 1.0 / 3600.0;
  spec.hardware_fraction = 0.0;  // only the quarantine makes a failure hardware
  spec.lemons.quarantine_failures = 3;
  spec.lemons.quarantine_window = hours(5);
  const auto events = draw_all(spec, 4, hours(500));
  std::map<int, std::vector<SimTime>> history;
  int quarantines = 0;
  for (const auto& e : events) {
    auto& h = history[e.machine];
    int recent = 1;
    for (SimTime t : h) recent += (e.time - t < hours(5)) ? 1 : 0;
    const bool expect_quarantine = recent >= 3;
    CHECK((e.type == FailureType::hardware) == expect_quarantine);
    if (expect_quarantine) {
      h.clear();
      ++quarantines;
    } else {
      h.push_back(e.time);
    }
  }
  CHECK(quarantines > 10);
}

TEST_CASE("quarantine replaces a lemon by a machine with the base rate") {
  // All 10 machines at 50x; quarantine at the first failure (k = 1): each machine fails once at
  // the lemon rate and is then replaced by a base-rate machine, so over 100 h the count is about
  // 10 (first failures, within minutes) + 10 x 100 h x 1/h = 1010, not 50,000.
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 1.0 / 3600.0;
  spec.lemons.model = LemonModel::fraction;
  spec.lemons.fraction = 1.0;
  spec.lemons.multiple = 50;
  spec.lemons.quarantine_failures = 1;
  const auto events = draw_all(spec, 10, hours(100));
  CHECK(std::fabs(static_cast<double>(events.size()) - 1010.0) < 4.4 * std::sqrt(1010.0));
}

TEST_CASE("Weibull lemons: a lemon's long-run renewal rate is the multiple of the base") {
  // Weibull(k=0.7) with 5 of 10 machines at 4x: scale / 4 makes the mean lifetime 4x shorter,
  // so the lemons carry 4*5 / (4*5 + 5) = 80% of failures. (Multiplying the hazard by 4 instead
  // would give 4^(1/0.7) = 7.25x: 88%.)
  FailureSpec spec;
  spec.process = FailureProcessKind::weibull;
  spec.weibull_shape = 0.7;
  spec.weibull_scale = hours(1);
  spec.lemons.model = LemonModel::fraction;
  spec.lemons.fraction = 0.5;
  spec.lemons.multiple = 4;
  const auto events = draw_all(spec, 10, hours(2000));
  std::map<int, int> per_machine;
  for (const auto& e : events) ++per_machine[e.machine];
  std::vector<int> counts;
  for (const auto& [m, c] : per_machine) counts.push_back(c);
  std::sort(counts.rbegin(), counts.rend());
  double top = 0;
  for (int i = 0; i < 5; ++i) top += counts[static_cast<std::size_t>(i)];
  const double n = static_cast<double>(events.size());
  // Renewal counts are not binomial; the bound allows 2 percentage points (n ~ 20,000).
  CHECK(top / n == doctest::Approx(0.8).epsilon(0.025));
}

TEST_CASE("gamma lemons: per-machine counts are overdispersed as a gamma-Poisson mixture") {
  // Machine i fails as Poisson(x_i mu) with x_i ~ Gamma(k, 1/k): its count has mean mu and
  // variance mu + mu^2 / k (negative binomial). k = 1, mu = 20 (1/h over 20 h): variance 420,
  // against 20 without lemons. Over 4000 machines the sample variance has sd ~ 420 sqrt(8/4000)
  // ~ 19 (fourth moment of the mixture ~ 9 sigma^4); the bound of 20% is over 4 sd. The mean
  // count has sd sqrt(420/4000) ~ 0.32; bound 1.5.
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 1.0 / 3600.0;
  spec.lemons.model = LemonModel::gamma;
  spec.lemons.gamma_shape = 1.0;
  const int machines = 4000;
  const auto events = draw_all(spec, machines, hours(20));
  std::vector<double> counts(machines, 0.0);
  for (const auto& e : events) counts[static_cast<std::size_t>(e.machine)] += 1;
  double mean = 0;
  for (double c : counts) mean += c / machines;
  double variance = 0;
  for (double c : counts) variance += (c - mean) * (c - mean) / (machines - 1);
  CHECK(std::fabs(mean - 20.0) < 1.5);
  CHECK(variance == doctest::Approx(420.0).epsilon(0.2));
}
