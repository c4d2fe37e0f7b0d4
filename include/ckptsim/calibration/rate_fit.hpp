#pragma once
// A rate and a start-up latency fitted to timed samples (the alpha-beta model of a link,
// R. W. Hockney, "The communication challenge for MPP", Parallel Computing 20, 1994), with
// their standard errors (least_squares.hpp).
//
//   alpha-beta     t = steps * alpha + x / R      (x: bytes moved, or FLOPs; R: bytes/s or FLOP/s;
//                                                  alpha: seconds per step; steps >= 1 per sample)
//   proportional   t = x / R                       (no start-up cost: compute, memory copies)
//
// Rows are weighted by w_i = 1 / t_i^2, so the fit minimises the relative residuals
// (t_fit - t) / t and small samples count as much as large ones. R = 1 / beta with
// se(R) = se(beta) / beta^2 (first-order delta method).
//
// Physical bounds: alpha >= 0, 0 < R, and R <= max_rate when one is given (the line rate of a
// link, the peak of a device). When the unconstrained estimate leaves them:
//   - by less than its 95% confidence half-width (t_{0.975, n-p} * se, core/statistics.hpp),
//     the data are consistent with the bound: the parameter is fixed at the bound and the other
//     re-estimated (the constrained least-squares solution), and the fit names it in `at_bound`
//     with the unconstrained value;
//   - by more, or without a standard error (as many samples as parameters), or with R <= 0, the
//     fit is refused: ModelError naming the fit, the estimate and every sample.
// Nothing is clamped after the fact: a bound is either within the data's uncertainty and then
// fitted exactly, or the fit fails.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ckptsim {

enum class RateModel { alpha_beta, proportional };

struct RateSample {
  double x = 0;        ///< bytes or FLOPs: > 0 (proportional), >= 0 (alpha-beta: a 0-byte message times the latency)
  double seconds = 0;  ///< > 0
  double steps = 1;    ///< latency steps of this sample (alpha-beta only)
  std::string origin;  ///< where it came from, for messages ("mb.json: /samples/3")
};

struct RateFitOptions {
  RateModel model = RateModel::alpha_beta;
  std::optional<double> max_rate;  ///< the line rate / peak the rate cannot exceed
  std::string name;                ///< what is fitted, for messages ("all-gather")
  std::string unit = "B/s";        ///< the rate's unit, for messages
};

struct RateFit {
  RateModel model = RateModel::alpha_beta;
  std::size_t samples = 0;
  double rate = 0;                     ///< R
  std::optional<double> rate_se;       ///< none for an exact fit or a rate fixed at its bound
  double latency_s = 0;                ///< alpha, per step (0 for proportional)
  std::optional<double> latency_se_s;  ///< none for an exact fit, a fixed latency or proportional
  std::vector<std::string> at_bound;   ///< e.g. "latency fixed at 0 (unconstrained -2.1 +- 3.0 us)"
  std::vector<double> relative_residuals;  ///< (t_fit - t) / t per sample, in input order
  double rms_relative_residual = 0;
};

/// Fits `samples`; throws ModelError(options.name, ...) for too few samples, an undetermined
/// design, or an unphysical estimate (see above).
RateFit fit_rate(const std::vector<RateSample>& samples, const RateFitOptions& options);

/// The samples as a table with their fitted relative residuals (for reports and refusals).
std::string sample_table(const std::vector<RateSample>& samples, const std::vector<double>& relative_residuals,
                         const std::string& x_unit);

}  // namespace ckptsim
