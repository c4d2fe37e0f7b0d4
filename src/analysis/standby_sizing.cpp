// Warm standby sizing (standby_sizing.hpp); the model is in the header.
#include "ckptsim/analysis/standby_sizing.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/analysis/failure_mix.hpp"

namespace ckptsim {

int binomial_quantile(int n, double p, double q) {
  if (n < 0) throw std::invalid_argument(fmt::format("binomial_quantile: n = {} (expected n >= 0)", n));
  if (!(p >= 0.0 && p <= 1.0)) throw std::invalid_argument(fmt::format("binomial_quantile: p = {} (expected 0 <= p <= 1)", p));
  if (!(q > 0.0 && q < 1.0)) throw std::invalid_argument(fmt::format("binomial_quantile: q = {} (expected 0 < q < 1)", q));
  if (p == 0.0) return 0;
  if (p == 1.0) return n;
  const double nd = n;
  const double log_p = std::log(p);
  const double log_q = std::log1p(-p);
  const double log_n_fact = std::lgamma(nd + 1.0);
  // The terms more than 40 standard deviations below the mean add up to less than e^-800 (a
  // Chernoff bound), nothing in double precision: the sum starts there, so that a cluster of
  // two billion machines at p = 1/2 sums under 2 million terms (80 sd), not a billion.
  const double mean = nd * p;
  const double start = std::floor(mean - 40.0 * std::sqrt(mean * (1.0 - p)));
  double cdf = 0;
  for (int k = start > 0 ? static_cast<int>(start) : 0; k < n; ++k) {
    const double kd = k;
    cdf += std::exp(log_n_fact - std::lgamma(kd + 1.0) - std::lgamma(nd - kd + 1.0) + kd * log_p + (nd - kd) * log_q);
    if (cdf >= q) return k;
  }
  return n;
}

std::optional<StandbySizing> standby_sizing(const Scenario& s, const std::vector<double>& percentiles, std::string* why) {
  const FailureMix mix = failure_mix(s);
  if (!mix.available) {
    if (why != nullptr) *why = mix.reason;
    return std::nullopt;
  }
  StandbySizing out;
  out.window_s = s.failures.detection.seconds() + mean_replacement_s(s.failures.replacement);
  out.machine_probability = mix.replaced_within(out.window_s);
  for (const double q : percentiles) out.pools.emplace_back(q, binomial_quantile(s.cluster.machines, out.machine_probability, q));
  return out;
}

int standby_for_percentile(const Scenario& s, double q) {
  std::string why;
  const std::optional<StandbySizing> sizing = standby_sizing(s, {q}, &why);
  if (!sizing) throw std::invalid_argument(why);
  return sizing->pools.front().second;
}

}  // namespace ckptsim
