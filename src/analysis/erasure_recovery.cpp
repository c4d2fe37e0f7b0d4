// Exact survival counts of erasure-coded groups (erasure_recovery.hpp).
#include "ckptsim/analysis/erasure_recovery.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

int last_k(int machines, int max_failures) {
  return max_failures >= 0 && max_failures < machines ? max_failures : machines;
}

/// Coefficients 0..last of (sum_{i<=tolerance} C(size, i) x^i)^blocks (polynomial_power,
/// recovery_probability.hpp).
std::vector<BigCount> block_power_counts(int size, int tolerance, int blocks, int last) {
  std::vector<BigCount> a = binomial_row(size);
  a.resize(static_cast<std::size_t>(std::min(tolerance, size)) + 1);
  return polynomial_power(a, blocks, last);
}

/// counts[k] / C(n, k) for every k of counts.
std::vector<double> probabilities(const std::vector<BigCount>& counts, int n) {
  std::vector<double> out(counts.size());
  BigCount all = 1;  // C(n, k), built up k by k
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (k > 0) all = all * (n - static_cast<int>(k) + 1) / static_cast<int>(k);
    out[k] = ratio_to_double(counts[k], all);
  }
  return out;
}

}  // namespace

RecoveryCounts erasure_recovery_counts(int machines, const ErasureCode& code, int max_failures) {
  check_erasure_code(code, machines);
  RecoveryCounts out;
  out.machines = machines;
  out.method = RecoveryMethod::group_closed_form;
  out.recoverable = block_power_counts(code.group_size, code.parity, machines / code.group_size,
                                       last_k(machines, max_failures));
  return out;
}

std::vector<double> erasure_recovery_probability(int machines, const ErasureCode& code, int max_failures) {
  return probabilities(erasure_recovery_counts(machines, code, max_failures).recoverable, machines);
}

std::vector<double> erasure_domain_recovery_probability(PlacementScheme scheme, int machines, const ErasureCode& code,
                                                        int domain_size, int max_failures) {
  check_erasure_code(code, machines);
  const std::string where = "/failures/domains/rack/machines";
  const int g = code.group_size;
  const int s = domain_size;
  if (s < 1 || machines % s != 0)
    throw PlacementError(where, fmt::format("a domain size dividing the machine count ({}), found {}", machines, s));
  int u = 0;  // members of a group in each domain it touches
  if (scheme == PlacementScheme::group && (g % s == 0 || s % g == 0)) {
    u = std::min(g, s);
  } else if (scheme == PlacementScheme::group_spread && ((machines / g) % s == 0 || s % (machines / g) == 0)) {
    u = std::max(1, s / (machines / g));
  } else {
    throw PlacementError(where, fmt::format("racks of {} machines that divide or are a multiple of the {} of a group "
                                            "(exact counts under whole-domain failures need that), found {}",
                                            s, scheme == PlacementScheme::group ? fmt::format("size ({})", g)
                                                                                : fmt::format("stride ({})", machines / g),
                                            s));
  }
  const int domains = machines / s;
  const int block = g / u;
  const std::vector<BigCount> counts =
      block_power_counts(block, code.parity / u, domains / block, last_k(domains, max_failures));
  return probabilities(counts, domains);
}

double erasure_window_recovery(int machines, const ErasureCode& code, double q) {
  check_erasure_code(code, machines);
  if (!(q >= 0 && q <= 1)) throw ModelError("q", fmt::format("a loss probability in [0, 1], found {}", q));
  const int g = code.group_size;
  double group_safe = 0;
  for (int i = 0; i <= code.parity; ++i) group_safe += binomial_weight(g, i, q);
  return std::pow(std::min(1.0, group_safe), machines / g);
}

}  // namespace ckptsim
