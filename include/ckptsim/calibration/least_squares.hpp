#pragma once
// Weighted linear least squares with standard errors: the estimator behind every fit of
// `ckptsim calibrate` and `ckptsim import` (docs/timeline-format.md, "Calibration").
//
// Model: y_i = sum_j X_ij b_j + e_i for rows i = 1..n and parameters j = 1..p, with known
// relative weights w_i > 0 (Var e_i = sigma^2 / w_i).
//   estimate   b = argmin_b sum_i w_i (y_i - X_i b)^2 = (X^T W X)^-1 X^T W y, computed by a
//              column-pivoting Householder QR of W^1/2 X (the normal equations are never formed);
//   residuals  r_i = y_i - X_i b;
//   variance   s^2 = sum_i w_i r_i^2 / (n - p)            (n > p; undefined for n = p);
//   covariance Cov(b) = s^2 (X^T W X)^-1, standard error se_j = sqrt(Cov_jj).
// Source: G. A. F. Seber, A. J. Lee, "Linear Regression Analysis", 2nd ed., Wiley 2003,
// sections 3.3 (least squares), 3.10 (weighted least squares).
//
// Errors: fewer rows than parameters, rows of the wrong length, non-finite values or weights
// <= 0 are ModelError("least squares", ...); so is a design whose columns are linearly
// dependent (e.g. an intercept and a slope fitted to samples that all have the same size), which
// cannot determine every parameter.
#include <cstddef>
#include <optional>
#include <vector>

namespace ckptsim {

struct LeastSquaresFit {
  std::vector<double> coefficients;                    ///< b, one per column
  std::optional<std::vector<double>> standard_errors;  ///< se_j; none when n = p (an exact fit)
  std::vector<double> residuals;                       ///< r_i = y_i - X_i b, one per row
  double weighted_rss = 0;                             ///< sum_i w_i r_i^2
  std::size_t degrees_of_freedom = 0;                  ///< n - p
};

/// Solves the weighted problem above. `design` holds n rows of p values each.
LeastSquaresFit weighted_least_squares(const std::vector<std::vector<double>>& design, const std::vector<double>& y,
                                       const std::vector<double>& weights);

}  // namespace ckptsim
