// The weighted least-squares solver and the rate fits built on it, checked against systems
// solved by hand and closed forms (never against the code's own output).
#include <cmath>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "ckptsim/calibration/least_squares.hpp"
#include "ckptsim/calibration/rate_fit.hpp"
#include "ckptsim/core/error.hpp"

using namespace ckptsim;

namespace {

std::vector<RateSample> samples(const std::vector<double>& x, const std::vector<double>& t) {
  std::vector<RateSample> out;
  for (std::size_t i = 0; i < x.size(); ++i) out.push_back({x[i], t[i], 1.0, "sample " + std::to_string(i)});
  return out;
}

std::string refusal(const std::vector<RateSample>& s, const RateFitOptions& o) {
  try {
    (void)fit_rate(s, o);
  } catch (const ModelError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("weighted least squares: a 3-row, 2-parameter system solved by hand") {
  // y = a + b x with x = (1, 2, 4), y = (3, 4, 7), weights (1, 1, 2). Normal equations:
  //   [sum w, sum wx; sum wx, sum wx^2] = [4 11; 11 37],  [sum wy; sum wxy] = [21; 67];
  //   det = 148 - 121 = 27, a = (21*37 - 11*67)/27 = 40/27, b = (4*67 - 11*21)/27 = 37/27.
  // Residuals y - a - b x = (4, -6, 1)/27; weighted RSS = (16 + 36 + 2*1)/729 = 2/27; n - p = 1,
  // so s^2 = 2/27 and Cov = s^2 [37 -11; -11 4]/27: se_a = sqrt(74)/27, se_b = sqrt(8)/27.
  const LeastSquaresFit f = weighted_least_squares({{1, 1}, {1, 2}, {1, 4}}, {3, 4, 7}, {1, 1, 2});
  REQUIRE(f.coefficients.size() == 2);
  CHECK(f.coefficients[0] == doctest::Approx(40.0 / 27).epsilon(1e-12));
  CHECK(f.coefficients[1] == doctest::Approx(37.0 / 27).epsilon(1e-12));
  CHECK(f.residuals[0] == doctest::Approx(4.0 / 27).epsilon(1e-10));
  CHECK(f.residuals[1] == doctest::Approx(-6.0 / 27).epsilon(1e-10));
  CHECK(f.residuals[2] == doctest::Approx(1.0 / 27).epsilon(1e-10));
  CHECK(f.weighted_rss == doctest::Approx(2.0 / 27).epsilon(1e-10));
  CHECK(f.degrees_of_freedom == 1);
  REQUIRE(f.standard_errors);
  CHECK((*f.standard_errors)[0] == doctest::Approx(std::sqrt(74.0) / 27).epsilon(1e-9));
  CHECK((*f.standard_errors)[1] == doctest::Approx(std::sqrt(8.0) / 27).epsilon(1e-9));
}

TEST_CASE("weighted least squares: as many rows as parameters is exact, with no standard errors") {
  // Two points (1, 3) and (3, 7) fix the line y = 1 + 2x; with n = p there is no residual variance.
  const LeastSquaresFit f = weighted_least_squares({{1, 1}, {1, 3}}, {3, 7}, {1, 5});
  CHECK(f.coefficients[0] == doctest::Approx(1.0));
  CHECK(f.coefficients[1] == doctest::Approx(2.0));
  CHECK_FALSE(f.standard_errors);
  CHECK(f.degrees_of_freedom == 0);
}

TEST_CASE("weighted least squares: refuses too few rows, dependent columns and bad weights") {
  CHECK_THROWS_AS(weighted_least_squares({{1, 1}}, {3}, {1}), ModelError);  // 1 row, 2 parameters
  // Every x the same: the intercept and slope columns are proportional.
  CHECK_THROWS_WITH_AS(weighted_least_squares({{1, 5}, {1, 5}, {1, 5}}, {1, 2, 3}, {1, 1, 1}),
                       doctest::Contains("determine only 1 of the 2"), ModelError);
  CHECK_THROWS_AS(weighted_least_squares({{1, 1}, {1, 2}}, {1, 2}, {1, 0}), ModelError);
  CHECK_THROWS_AS(weighted_least_squares({{1, 1}, {1, NAN}}, {1, 2}, {1, 1}), ModelError);
}

TEST_CASE("rate fit: exact alpha-beta samples give back alpha and the rate") {
  // t = steps * 0.5 ms + x / 50 MB/s with 3 steps per sample (a ring over 4 ranks): the fit is
  // exact, alpha = 0.5 ms per step, R = 5e7 B/s, and every residual 0.
  std::vector<RateSample> s;
  for (double x : {65536.0, 262144.0, 1048576.0, 4194304.0}) s.push_back({x, 3 * 0.5e-3 + x / 5e7, 3, "exact"});
  const RateFit f = fit_rate(s, {RateModel::alpha_beta, std::nullopt, "ring", "B/s"});
  CHECK(f.rate == doctest::Approx(5e7).epsilon(1e-9));
  CHECK(f.latency_s == doctest::Approx(0.5e-3).epsilon(1e-9));
  CHECK(f.rms_relative_residual < 1e-9);
  REQUIRE(f.rate_se);
  CHECK(*f.rate_se < 1e-3 * 5e7);
  CHECK(f.at_bound.empty());
}

TEST_CASE("rate fit: proportional model is the weighted ratio estimate") {
  // t = x / F minimising sum ((x_i/F - t_i)/t_i)^2: with u_i = x_i / t_i, 1/F = sum u / sum u^2.
  const std::vector<double> x = {1e8, 4e8, 1.6e9}, t = {0.034, 0.131, 0.54};
  double su = 0, su2 = 0;
  for (std::size_t i = 0; i < x.size(); ++i) su += x[i] / t[i], su2 += (x[i] / t[i]) * (x[i] / t[i]);
  const RateFit f = fit_rate(samples(x, t), {RateModel::proportional, std::nullopt, "compute", "FLOP/s"});
  CHECK(f.rate == doctest::Approx(su2 / su).epsilon(1e-9));
  CHECK(f.latency_s == 0);
}

TEST_CASE("rate fit: a negative latency within its uncertainty is fitted at 0; beyond it, refused") {
  // x = 1, 2, 3 MB; t = 9.8, 20.2, 30.0 ms. The unconstrained weighted fit (the 2x2 normal
  // equations with w = 1/t^2, solved by hand) gives alpha = -370 us with se 236 us; with one
  // degree of freedom t_0.975 = 12.71, so 0 lies inside the 95% interval: the latency is fixed at
  // 0 and the rate is the proportional estimate R = sum u^2 / sum u with u = x / t.
  const std::vector<double> x = {1e6, 2e6, 3e6}, t = {0.0098, 0.0202, 0.0300};
  double su = 0, su2 = 0;
  for (std::size_t i = 0; i < x.size(); ++i) su += x[i] / t[i], su2 += (x[i] / t[i]) * (x[i] / t[i]);
  const RateFit f = fit_rate(samples(x, t), {RateModel::alpha_beta, std::nullopt, "p2p", "B/s"});
  CHECK(f.latency_s == 0);
  CHECK_FALSE(f.latency_se_s);
  CHECK(f.rate == doctest::Approx(su2 / su).epsilon(1e-9));
  REQUIRE(f.at_bound.size() == 1);
  CHECK(f.at_bound[0].find("latency fixed at 0") != std::string::npos);
  // t = -1 ms + x / 100 MB/s with +-1 us of noise: alpha = -1 ms with a standard error of about
  // 1 us, far outside any interval that reaches 0: refused, with the samples listed.
  const std::string why = refusal(samples({1e6, 2e6, 3e6, 4e6}, {0.009001, 0.018999, 0.029001, 0.038999}),
                                  {RateModel::alpha_beta, std::nullopt, "p2p", "B/s"});
  CHECK(why.find("negative latency") != std::string::npos);
  CHECK(why.find("sample 3") != std::string::npos);
}

TEST_CASE("rate fit: a rate above the line rate within its uncertainty is fitted at the line rate; beyond it, refused") {
  // Line rate 100 MB/s. Samples near 102 MB/s with +-0.5 ms of noise: the unconstrained fit
  // (normal equations by hand) gives R = 102.3 MB/s, beta = 9.77e-9 s/B with se 2.7e-10, and
  // beta + t_0.975(2) se = 1.09e-8 > 1e-8, so the line rate lies within the interval: so R is fixed at 1e8 and alpha re-estimated by the
  // one-parameter weighted fit alpha = sum w (t - x/R) / sum w, w = 1/t^2.
  const std::vector<double> x = {1e6, 2e6, 4e6, 8e6};
  const std::vector<double> t = {0.0104, 0.0193, 0.0402, 0.0793};
  double num = 0, den = 0;
  for (std::size_t i = 0; i < x.size(); ++i) num += (t[i] - x[i] / 1e8) / (t[i] * t[i]), den += 1 / (t[i] * t[i]);
  const RateFit f = fit_rate(samples(x, t), {RateModel::alpha_beta, 1e8, "collectives", "B/s"});
  CHECK(f.rate == doctest::Approx(1e8));
  CHECK_FALSE(f.rate_se);
  CHECK(f.latency_s == doctest::Approx(num / den).epsilon(1e-9));
  REQUIRE_FALSE(f.at_bound.empty());
  CHECK(f.at_bound.back().find("rate fixed at") != std::string::npos);
  // Exact samples at 200 MB/s against a 100 MB/s line: refused.
  std::vector<RateSample> fast;
  for (double b : x) fast.push_back({b, 1e-4 + b / 2e8, 1, "fast"});
  CHECK(refusal(fast, {RateModel::alpha_beta, 1e8, "collectives", "B/s"}).find("above the") != std::string::npos);
}

TEST_CASE("rate fit: too few samples, a time that does not grow, and invalid samples are refused") {
  CHECK(refusal(samples({1e6}, {0.01}), {RateModel::alpha_beta, std::nullopt, "p2p", "B/s"}).find("needs at least") != std::string::npos);
  // Larger messages taking less time: the slope is negative, no positive rate fits.
  CHECK(refusal(samples({1e3, 1e4, 1e5}, {3e-5, 2.9e-5, 2.8e-5}), {RateModel::alpha_beta, std::nullopt, "sendrecv", "B/s"})
            .find("does not grow") != std::string::npos);
  CHECK_THROWS_AS(fit_rate(samples({1e6, 2e6}, {0.01, -0.02}), {RateModel::alpha_beta, std::nullopt, "p2p", "B/s"}), ModelError);
  CHECK_THROWS_AS(fit_rate(samples({0.0}, {0.01}), {RateModel::proportional, std::nullopt, "copy", "B/s"}), ModelError);
}
