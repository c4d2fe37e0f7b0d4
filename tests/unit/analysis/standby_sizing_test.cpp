// Warm standby sizing (analysis/standby_sizing.hpp) against binomial quantiles computed by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "ckptsim/analysis/standby_sizing.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;

TEST_CASE("binomial quantile: hand-computed cumulative sums") {
  // Binomial(4, 1/2): P(X <= k) = 1/16, 5/16, 11/16, 15/16, 1 for k = 0..4.
  CHECK(binomial_quantile(4, 0.5, 0.0625) == 0);
  CHECK(binomial_quantile(4, 0.5, 0.3) == 1);
  CHECK(binomial_quantile(4, 0.5, 0.5) == 2);
  CHECK(binomial_quantile(4, 0.5, 0.9) == 3);
  CHECK(binomial_quantile(4, 0.5, 0.95) == 4);
  // Binomial(10, 0.1): 0.9^10 = 0.348678; + 10 x 0.1 x 0.9^9 = 0.387420 -> 0.736099;
  // + 45 x 0.01 x 0.9^8 = 0.193710 -> 0.929809; + 120 x 0.001 x 0.9^7 = 0.057396 -> 0.987205.
  CHECK(binomial_quantile(10, 0.1, 0.34) == 0);
  CHECK(binomial_quantile(10, 0.1, 0.73) == 1);
  CHECK(binomial_quantile(10, 0.1, 0.9) == 2);
  CHECK(binomial_quantile(10, 0.1, 0.95) == 3);
  CHECK(binomial_quantile(10, 0.1, 0.987) == 3);
  CHECK(binomial_quantile(10, 0.1, 0.988) == 4);
  // Degenerate probabilities.
  CHECK(binomial_quantile(100, 0.0, 0.99) == 0);
  CHECK(binomial_quantile(100, 1.0, 0.5) == 100);
  // A large n stays finite: Binomial(20000, 1e-4) is about Poisson(2), whose 0.99-quantile is 6
  // (binomial sums: P(<= 5) = 0.98344, P(<= 6) = 0.99547).
  CHECK(binomial_quantile(20000, 1e-4, 0.99) == 6);
}

TEST_CASE("binomial quantile: arguments outside their ranges are refused") {
  CHECK_THROWS_AS((void)binomial_quantile(-1, 0.5, 0.5), std::invalid_argument);
  CHECK_THROWS_AS((void)binomial_quantile(4, 1.5, 0.5), std::invalid_argument);
  CHECK_THROWS_AS((void)binomial_quantile(4, 0.5, 1.0), std::invalid_argument);
  CHECK_THROWS_AS((void)binomial_quantile(4, 0.5, 0.0), std::invalid_argument);
  CHECK_THROWS_AS((void)binomial_quantile(4, std::nan(""), 0.5), std::invalid_argument);
}

TEST_CASE("standby sizing: the binomial quantile of machines replaced within one replacement window") {
  // Small scenario: 16 machines, half of 1%/machine/h hardware, detection 15 s + fixed 5 min
  // replacement: w = 315 s, p = 1 - exp(-0.005/3600 x 315) = 4.3741e-4. Binomial(16, p):
  // P(0) = (1 - p)^16 = 0.993024, P(<= 1) = 0.993024 + 16 p (1 - p)^15 = 0.999977,
  // P(<= 2) = 0.99999995.
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.01 / 3600;
  CHECK(standby_for_percentile(s, 0.99) == 0);
  CHECK(standby_for_percentile(s, 0.995) == 1);
  CHECK(standby_for_percentile(s, 0.99999) == 2);
}

TEST_CASE("standby sizing: several percentiles at once, with the window and probability behind them") {
  // The same case: w = 15 s + 300 s = 315 s, p = 1 - exp(-0.005 / 3600 x 315) = 4.3741e-4;
  // 99 % of windows need no standby, 99.5 % one, 99.999 % two (the cumulative sums above).
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.01 / 3600;
  const std::optional<StandbySizing> sizing = standby_sizing(s, {0.99, 0.995, 0.99999});
  REQUIRE(sizing.has_value());
  CHECK(sizing->window_s == doctest::Approx(315.0));
  CHECK(sizing->machine_probability == doctest::Approx(1.0 - std::exp(-0.005 / 3600 * 315)).epsilon(1e-9));
  REQUIRE(sizing->pools.size() == 3);
  CHECK(sizing->pools[0] == std::pair<double, int>{0.99, 0});
  CHECK(sizing->pools[1] == std::pair<double, int>{0.995, 1});
  CHECK(sizing->pools[2] == std::pair<double, int>{0.99999, 2});
  // Trace-driven failures have no closed form: no sizing, and the reason.
  s.failures.process = FailureProcessKind::trace;
  std::string why;
  CHECK_FALSE(standby_sizing(s, {0.99}, &why).has_value());
  CHECK_FALSE(why.empty());
}

TEST_CASE("binomial quantile: the sum starts 40 standard deviations below the mean, exactly enough") {
  // Binomial(1e6, 1/2): mean 500,000, sd 500, so the sum starts at 480,000. Its quantiles summed
  // independently with 50-digit arithmetic (mpmath: C(1e6, j) / 2^1e6 from j = 450,000, whose
  // term is 6.3e-2179, by the ratio (n - j) / (j + 1)): the median is 500,000, and
  // P(X <= 501,162) = 0.9899640 < 0.99 <= P(X <= 501,163) = 0.9900174.
  CHECK(binomial_quantile(1'000'000, 0.5, 0.5) == 500'000);
  CHECK(binomial_quantile(1'000'000, 0.5, 0.99) == 501'163);
  // Two billion machines at p = 1/2 sum about 1.8 million terms (80 sd), not a billion; the
  // median is 1e9. lgamma(2e9) is about 4.1e10, whose last bit is 7.6e-6, so every term carries
  // a relative error near 1e-5 and the quantile may move by a few units where the CDF is flat
  // (its slope at the median is 1.8e-5 per unit): within 20.
  const int median = binomial_quantile(2'000'000'000, 0.5, 0.5);
  CHECK(median >= 1'000'000'000 - 20);
  CHECK(median <= 1'000'000'000 + 20);
}
