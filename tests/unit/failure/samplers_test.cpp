// The exponential and Weibull failure processes (failure/failure_process.hpp) sample the laws
// they claim: moments and a Kolmogorov-Smirnov test of the gaps between failures.
//
// Each test draws n gaps with a fixed seed and accepts when
//   |sample mean - mean| <= 4 standard errors                  (false alarm 6e-5, normal limit)
//   sqrt(n) D_n <= 1.9495, D_n = sup_x |F_n(x) - F(x)|         (false alarm 1e-3: Kolmogorov's
//                                                               limit P(sqrt(n) D_n > c) ~ 2 e^(-2c^2))
// so a correct sampler fails for about one seed in a thousand; the seeds are fixed, so the
// outcome is reproducible. A wrong law (e.g. shape and scale swapped, rate per machine taken as
// the cluster's) moves the mean by far more than 4 standard errors and D_n far above the limit.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ckptsim/failure/failure_process.hpp"

using namespace ckptsim;

namespace {

constexpr double kKolmogorovLimit = 1.9495;  // sqrt(ln(2 / 0.001) / 2)

/// Gaps (s) between the first n failures of the source.
std::vector<double> gaps(FailureSource& source, int n) {
  std::vector<double> out;
  SimTime last;
  for (int i = 0; i < n; ++i) {
    const auto f = source.next();
    REQUIRE(f);
    out.push_back((f->time - last).seconds());
    last = f->time;
  }
  return out;
}

/// sqrt(n) times the Kolmogorov-Smirnov distance between the sample and the CDF.
template <typename Cdf>
double scaled_ks_distance(std::vector<double> sample, Cdf cdf) {
  std::sort(sample.begin(), sample.end());
  const double n = static_cast<double>(sample.size());
  double d = 0;
  for (std::size_t i = 0; i < sample.size(); ++i) {
    const double f = cdf(sample[i]);
    d = std::max({d, (i + 1) / n - f, f - i / n});
  }
  return std::sqrt(n) * d;
}

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

}  // namespace

TEST_CASE("weibull failures: one machine's gaps have the Weibull mean, variance and CDF") {
  // k = 0.7, lambda = 10 h: mean = lambda Gamma(1 + 1/k) = 36000 x Gamma(2.4286) = 45,552 s;
  // variance = lambda^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2).
  FailureSpec spec;
  spec.process = FailureProcessKind::weibull;
  spec.weibull_shape = 0.7;
  spec.weibull_scale = hours(10);
  spec.hardware_fraction = 0.5;
  const int n = 20000;
  auto source = make_failure_source(FailureSourceContext{spec, 1, 17, 0});
  const auto g = gaps(*source, n);
  const double k = 0.7;
  const double lambda = 36000.0;
  const double expected_mean = lambda * std::tgamma(1.0 + 1.0 / k);
  const double variance = lambda * lambda * (std::tgamma(1.0 + 2.0 / k) - std::pow(std::tgamma(1.0 + 1.0 / k), 2));
  CHECK(expected_mean == doctest::Approx(45552.0).epsilon(1e-3));
  CHECK(std::fabs(mean(g) - expected_mean) <= 4.0 * std::sqrt(variance / n));
  double squares = 0;
  for (double x : g) squares += (x - expected_mean) * (x - expected_mean);
  // The sample variance of a heavy-ish tail converges slowly: within 15% at n = 20000.
  CHECK(squares / n == doctest::Approx(variance).epsilon(0.15));
  const double ks = scaled_ks_distance(g, [&](double x) { return -std::expm1(-std::pow(x / lambda, k)); });
  CHECK(ks <= kKolmogorovLimit);
  // The same gaps against the exponential law of the same mean must be rejected: the test can fail.
  CHECK(scaled_ks_distance(g, [&](double x) { return -std::expm1(-x / expected_mean); }) > kKolmogorovLimit);
}

TEST_CASE("weibull failures: every machine renews on its own; N machines give N x the failures") {
  // Superposed renewal processes: over a horizon W much longer than the mean, the count per
  // machine is about W / mean (renewal theorem). 8 machines, k = 1.5, lambda = 1 h:
  // mean = 3600 Gamma(1.6667) = 3214.2 s; W = 2000 h gives about 2240 failures per machine.
  FailureSpec spec;
  spec.process = FailureProcessKind::weibull;
  spec.weibull_shape = 1.5;
  spec.weibull_scale = hours(1);
  auto source = make_failure_source(FailureSourceContext{spec, 8, 3, 1});
  std::vector<int> per_machine(8, 0);
  SimTime last;
  for (;;) {
    const auto f = source->next();
    REQUIRE(f);
    CHECK(f->time >= last);  // time order
    last = f->time;
    if (f->time > hours(2000)) break;
    ++per_machine[static_cast<std::size_t>(f->machine)];
  }
  const double expected = 2000.0 * 3600.0 / (3600.0 * std::tgamma(1.0 + 1.0 / 1.5));
  for (int count : per_machine) CHECK(std::fabs(count - expected) <= 0.05 * expected);
}

TEST_CASE("exponential failures: cluster gaps are Exp(N lambda), machines uniform, types by fraction") {
  // 4 machines at 1 failure/machine/h: cluster rate 4/h, mean gap 900 s (sd 900 s).
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 1.0 / 3600.0;
  spec.hardware_fraction = 0.3;
  const int n = 20000;
  auto source = make_failure_source(FailureSourceContext{spec, 4, 5, 2});
  std::vector<double> g;
  std::vector<int> per_machine(4, 0);
  int hardware = 0;
  SimTime last;
  for (int i = 0; i < n; ++i) {
    const auto f = source->next();
    REQUIRE(f);
    g.push_back((f->time - last).seconds());
    last = f->time;
    ++per_machine[static_cast<std::size_t>(f->machine)];
    if (f->type == FailureType::hardware) ++hardware;
  }
  CHECK(std::fabs(mean(g) - 900.0) <= 4.0 * 900.0 / std::sqrt(n));
  CHECK(scaled_ks_distance(g, [](double x) { return -std::expm1(-x / 900.0); }) <= kKolmogorovLimit);
  // The per-machine rate taken as the cluster's (mean 3600 s) must be rejected.
  CHECK(scaled_ks_distance(g, [](double x) { return -std::expm1(-x / 3600.0); }) > kKolmogorovLimit);
  // Machine counts: binomial(n, 1/4), sd = sqrt(n 3/16) = 61.2; hardware: binomial(n, 0.3), sd 64.8.
  for (int count : per_machine) CHECK(std::fabs(count - n / 4.0) <= 4.0 * std::sqrt(n * 3.0 / 16.0));
  CHECK(std::fabs(hardware - 0.3 * n) <= 4.0 * std::sqrt(n * 0.3 * 0.7));
}

TEST_CASE("a zero rate and the none process give no failures") {
  FailureSpec spec;
  spec.process = FailureProcessKind::exponential;
  spec.rate = 0;
  CHECK_FALSE(make_failure_source(FailureSourceContext{spec, 4, 1, 0})->next());
  spec.process = FailureProcessKind::none;
  CHECK_FALSE(make_failure_source(FailureSourceContext{spec, 4, 1, 0})->next());
}
