// Exact survival counts of erasure-coded groups (erasure_recovery.hpp).
#include "ckptsim/analysis/erasure_recovery.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

int last_k(int machines, int max_failures) {
  return max_failures >= 0 && max_failures < machines ? max_failures : machines;
}

}  // namespace

RecoveryCounts erasure_recovery_counts(int machines, const ErasureCode& code, int max_failures) {
  check_erasure_code(code, machines);
  const int g = code.group_size;
  const int p = code.parity;
  const int groups = machines / g;
  const std::vector<BigCount> choose_g = binomial_row(g);
  RecoveryCounts out;
  out.machines = machines;
  out.method = RecoveryMethod::group_closed_form;
  const int last = last_k(machines, max_failures);
  out.recoverable.assign(static_cast<std::size_t>(last) + 1, BigCount(0));
  out.recoverable[0] = 1;
  const int degree = std::min(groups * p, last);
  for (int k = 1; k <= degree; ++k) {
    BigCount sum = 0;
    for (int i = 1; i <= std::min(k, p); ++i)
      sum += BigCount((groups + 1) * i - k) * choose_g[static_cast<std::size_t>(i)] *
             out.recoverable[static_cast<std::size_t>(k - i)];
    out.recoverable[static_cast<std::size_t>(k)] = sum / k;
  }
  return out;
}

std::vector<double> erasure_recovery_probability(int machines, const ErasureCode& code, int max_failures) {
  const RecoveryCounts counts = erasure_recovery_counts(machines, code, max_failures);
  std::vector<double> out(counts.recoverable.size());
  BigCount all = 1;  // C(N, k), built up k by k
  for (std::size_t k = 0; k < out.size(); ++k) {
    if (k > 0) all = all * (machines - static_cast<int>(k) + 1) / static_cast<int>(k);
    out[k] = ratio_to_double(counts.recoverable[k], all);
  }
  return out;
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
