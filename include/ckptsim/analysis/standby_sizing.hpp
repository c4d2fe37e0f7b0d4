#pragma once
// Warm standby machines sized at a percentile of the binomial failure count (docs/models.md,
// "Sizing warm standbys").
//
// A standby taken by a failed machine returns when that machine's replacement arrives, so the
// pool must cover the machines lost within one replacement window w (detection + the mean
// replacement delay). Each of the N machines is replaced within w with probability
// p = FailureMix::replaced_within(w) (lemons, domains and the cause table's hardware share
// included), independently to first order, so the count lost in a window is X ~ Binomial(N, p):
//   P(X <= k) = sum_{j=0..k} C(N, j) p^j (1 - p)^(N - j),
// and the pool that covers a window with probability q is the q-quantile
//   k_q = min{k : P(X <= k) >= q}.
// Each term is computed in log space (lgamma), so N in the tens of thousands neither underflows
// nor overflows, and the sum starts 40 standard deviations below the mean N p (the terms below
// add up to less than e^-800), so its length grows with sqrt(N), not N. Left out: failure
// domains take several machines at once (a rack is s machines in one event, which the
// binomial's independence understates), and windows overlap.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// The sizing of a scenario's standby pool at several percentiles (what `ckptsim analyze`
/// prints and writes as closed_form.standby_sizing).
struct StandbySizing {
  double window_s = 0;             ///< w = detection + mean replacement delay
  double machine_probability = 0;  ///< p = P(a given machine is replaced within w)
  std::vector<std::pair<double, int>> pools;  ///< (q, k_q) in the order asked
};

/// The standby pools for each q of `percentiles` (each in (0, 1)); nullopt, with the reason in
/// `why`, when the failures have no closed form (a trace, or no failure process).
[[nodiscard]] std::optional<StandbySizing> standby_sizing(const Scenario& scenario, const std::vector<double>& percentiles,
                                                          std::string* why = nullptr);

/// The q-quantile of Binomial(n, p): the smallest k with P(X <= k) >= q. Requires n >= 0,
/// p in [0, 1], q in (0, 1) (std::invalid_argument otherwise).
[[nodiscard]] int binomial_quantile(int n, double p, double q);

/// Standby machines covering one replacement window of `scenario` with probability q: the
/// binomial quantile above with p = P(a given machine is replaced within detection + the mean
/// replacement delay). std::invalid_argument for trace-driven failures (no closed form).
[[nodiscard]] int standby_for_percentile(const Scenario& scenario, double q);

}  // namespace ckptsim
