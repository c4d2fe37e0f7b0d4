// Statistics of a failure trace and the lifetime fits (trace_tools.hpp).
#include <algorithm>
#include <cmath>
#include <set>

#include <boost/math/distributions/chi_squared.hpp>

#include "ckptsim/failure/trace_tools.hpp"

namespace ckptsim {
namespace {

struct WeibullSums {
  double sum_tk = 0;       ///< sum over all lifetimes of t^k
  double sum_tk_ln = 0;    ///< sum over all lifetimes of t^k ln t
};

WeibullSums sums(const std::vector<double>& t, double k) {
  WeibullSums s;
  for (double x : t) {
    const double tk = std::pow(x, k);
    s.sum_tk += tk;
    s.sum_tk_ln += tk * std::log(x);
  }
  return s;
}

}  // namespace

LifetimeFit fit_lifetimes(const std::vector<double>& lifetimes_s, const std::vector<bool>& failed) {
  // Lifetimes are rescaled by their mean so that t^k stays in range for any k in the search.
  std::vector<double> t;
  double r = 0;
  double sum_ln_failed = 0;
  double total = 0;
  for (std::size_t i = 0; i < lifetimes_s.size(); ++i) {
    if (!(lifetimes_s[i] > 0)) continue;  // zero-length spans carry no information
    t.push_back(lifetimes_s[i]);
    total += lifetimes_s[i];
    if (failed[i]) {
      r += 1;
      sum_ln_failed += std::log(lifetimes_s[i]);
    }
  }
  LifetimeFit fit;
  if (r < 2 || t.empty()) return fit;
  const double unit = total / static_cast<double>(t.size());
  for (double& x : t) x /= unit;
  const double sum_ln_scaled = sum_ln_failed - r * std::log(unit);
  // Exponential: rate = r / total time; lnL = r ln(rate) - rate x total.
  fit.exponential_rate = r / total;
  fit.exponential_log_likelihood = r * std::log(fit.exponential_rate) - r;
  // Weibull shape: g(k) = r/k + sum ln t_f - r S1(k)/S0(k) decreases in k; bisection on ln k.
  auto g = [&](double k) {
    const auto s = sums(t, k);
    return r / k + sum_ln_scaled - r * s.sum_tk_ln / s.sum_tk;
  };
  double lo = std::log(0.02);
  double hi = std::log(50.0);
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = 0.5 * (lo + hi);
    (g(std::exp(mid)) > 0 ? lo : hi) = mid;
  }
  const double k = std::exp(0.5 * (lo + hi));
  const auto s = sums(t, k);
  const double scale_scaled = std::pow(s.sum_tk / r, 1.0 / k);
  fit.weibull_shape = k;
  fit.weibull_scale_s = scale_scaled * unit;
  // lnL = r ln k - r k ln(scale) + (k - 1) sum ln t_f - sum (t/scale)^k, in original units.
  fit.weibull_log_likelihood = r * std::log(k) - r * k * std::log(fit.weibull_scale_s) + (k - 1) * sum_ln_failed -
                               s.sum_tk / std::pow(scale_scaled, k);
  fit.likelihood_ratio = std::max(0.0, 2.0 * (fit.weibull_log_likelihood - fit.exponential_log_likelihood));
  fit.p_value = boost::math::cdf(boost::math::complement(boost::math::chi_squared(1.0), fit.likelihood_ratio));
  return fit;
}

TraceStats trace_stats(const std::vector<TraceRecord>& records, int machines, SimTime duration) {
  TraceStats st;
  st.machines = machines;
  st.duration = duration;
  st.failures = static_cast<std::int64_t>(records.size());
  std::set<SimTime> times;
  std::vector<int> per_machine(static_cast<std::size_t>(machines), 0);
  std::vector<SimTime> last(static_cast<std::size_t>(machines), SimTime::zero());
  std::vector<double> lifetimes;
  std::vector<bool> failed;
  for (const auto& r : records) {
    times.insert(r.time);
    (r.type == FailureType::hardware ? st.hardware : st.software)++;
    ++st.causes[r.cause];
    const auto m = static_cast<std::size_t>(r.machine);
    ++per_machine[m];
    lifetimes.push_back((r.time - last[m]).seconds());
    failed.push_back(true);
    last[m] = r.time;
  }
  for (std::size_t m = 0; m < per_machine.size(); ++m) {
    lifetimes.push_back((duration - last[m]).seconds());  // right-censored at the trace's end
    failed.push_back(false);
    st.machines_failed += per_machine[m] > 0 ? 1 : 0;
    st.machines_repeated += per_machine[m] > 1 ? 1 : 0;
    st.most_failures = std::max(st.most_failures, per_machine[m]);
  }
  st.events = static_cast<std::int64_t>(times.size());
  const double machine_days = machines * duration.seconds() / 86400.0;
  st.rate_per_machine_day = machine_days > 0 ? static_cast<double>(st.failures) / machine_days : 0.0;
  if (st.failures >= 2) st.fit = fit_lifetimes(lifetimes, failed);
  return st;
}

}  // namespace ckptsim
