// Daly's interval and the adaptive interval policy of interval_policy.hpp.
#include "ckptsim/run/interval_policy.hpp"

#include <algorithm>
#include <cmath>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

double daly_optimal_interval(double checkpoint_cost_s, double mtbf_s) {
  if (checkpoint_cost_s < 0 || !(mtbf_s > 0))
    throw ModelError("checkpoint cost delta, MTBF M", "Daly's interval needs delta >= 0 and M > 0");
  if (checkpoint_cost_s >= 2.0 * mtbf_s) return mtbf_s;
  const double x = checkpoint_cost_s / (2.0 * mtbf_s);
  return std::sqrt(2.0 * checkpoint_cost_s * mtbf_s) * (1.0 + std::sqrt(x) / 3.0 + x / 9.0) - checkpoint_cost_s;
}

double estimated_failure_rate(std::int64_t failures, double elapsed_s, double prior_mtbf_s) {
  return (static_cast<double>(failures) + 1.0) / (std::max(0.0, elapsed_s) + prior_mtbf_s);
}

std::int64_t adaptive_period_iterations(SimTime checkpoint_cost, SimTime iteration, std::int64_t unit,
                                        std::int64_t failures, SimTime elapsed, SimTime prior_mtbf,
                                        SimTime longest) {
  const double rate = estimated_failure_rate(failures, elapsed.seconds(), prior_mtbf.seconds());
  const double tau = daly_optimal_interval(checkpoint_cost.seconds(), 1.0 / rate);
  const double unit_s = iteration.seconds() * static_cast<double>(unit);
  const double units = std::round(tau / unit_s);
  // At most the units that fit in `longest` (so units x unit x iteration stays within it),
  // counted in whole nanoseconds.
  const WideNs unit_ns = static_cast<WideNs>(iteration.ns()) * unit;
  const double most = std::max(1.0, static_cast<double>(unit_ns > 0 ? longest.ns() / unit_ns : 1));
  return unit * static_cast<std::int64_t>(std::clamp(units, 1.0, most));
}

}  // namespace ckptsim
