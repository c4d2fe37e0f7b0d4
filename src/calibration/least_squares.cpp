#include "ckptsim/calibration/least_squares.hpp"

#include <cmath>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

[[noreturn]] void refuse(const std::string& why) { throw ModelError("least squares", why); }

void check_inputs(const std::vector<std::vector<double>>& design, const std::vector<double>& y,
                  const std::vector<double>& weights) {
  if (design.empty() || design.front().empty()) refuse("no samples or no parameters to fit");
  const std::size_t n = design.size(), p = design.front().size();
  if (y.size() != n || weights.size() != n) refuse(fmt::format("{} rows but {} values and {} weights", n, y.size(), weights.size()));
  if (n < p) refuse(fmt::format("{} samples cannot determine {} parameters", n, p));
  for (std::size_t i = 0; i < n; ++i) {
    if (design[i].size() != p) refuse(fmt::format("row {} has {} values, expected {}", i, design[i].size(), p));
    for (double v : design[i]) {
      if (!std::isfinite(v)) refuse(fmt::format("row {} holds a non-finite value", i));
    }
    if (!std::isfinite(y[i])) refuse(fmt::format("value {} is not finite", i));
    if (!(weights[i] > 0) || !std::isfinite(weights[i])) refuse(fmt::format("weight {} is {}, expected a positive number", i, weights[i]));
  }
}

}  // namespace

LeastSquaresFit weighted_least_squares(const std::vector<std::vector<double>>& design, const std::vector<double>& y,
                                       const std::vector<double>& weights) {
  check_inputs(design, y, weights);
  const auto n = static_cast<Eigen::Index>(design.size());
  const auto p = static_cast<Eigen::Index>(design.front().size());
  Eigen::MatrixXd a(n, p);
  Eigen::VectorXd b(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const double root_w = std::sqrt(weights[static_cast<std::size_t>(i)]);
    for (Eigen::Index j = 0; j < p; ++j) a(i, j) = root_w * design[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)];
    b(i) = root_w * y[static_cast<std::size_t>(i)];
  }
  // Columns scaled to unit norm first, so that the rank decision compares like with like (an
  // intercept column of 1s beside a column of byte counts ~1e9).
  Eigen::VectorXd scale(p);
  for (Eigen::Index j = 0; j < p; ++j) {
    scale(j) = a.col(j).norm();
    if (!(scale(j) > 0)) refuse(fmt::format("parameter {} multiplies only zeros: no sample determines it", j));
    a.col(j) /= scale(j);
  }
  const Eigen::ColPivHouseholderQR<Eigen::MatrixXd> qr(a);
  if (qr.rank() < p) {
    refuse(fmt::format("the samples determine only {} of the {} parameters (their sizes are linearly dependent, e.g. all the same)",
                       qr.rank(), p));
  }
  const Eigen::VectorXd scaled = qr.solve(b);
  LeastSquaresFit fit;
  fit.degrees_of_freedom = static_cast<std::size_t>(n - p);
  for (Eigen::Index j = 0; j < p; ++j) fit.coefficients.push_back(scaled(j) / scale(j));
  for (Eigen::Index i = 0; i < n; ++i) {
    double predicted = 0;
    for (Eigen::Index j = 0; j < p; ++j) predicted += design[static_cast<std::size_t>(i)][static_cast<std::size_t>(j)] * fit.coefficients[static_cast<std::size_t>(j)];
    const double r = y[static_cast<std::size_t>(i)] - predicted;
    fit.residuals.push_back(r);
    fit.weighted_rss += weights[static_cast<std::size_t>(i)] * r * r;
  }
  if (fit.degrees_of_freedom > 0) {
    // (A^T A)^-1 of the scaled, weighted design from R: A P = Q R, so (A^T A)^-1 = P R^-1 R^-T P^T.
    const Eigen::MatrixXd r = qr.matrixR().topLeftCorner(p, p).triangularView<Eigen::Upper>();
    const Eigen::MatrixXd r_inv = r.triangularView<Eigen::Upper>().solve(Eigen::MatrixXd::Identity(p, p));
    const Eigen::MatrixXd inv_scaled = qr.colsPermutation() * (r_inv * r_inv.transpose()) * qr.colsPermutation().transpose();
    const double s2 = fit.weighted_rss / static_cast<double>(fit.degrees_of_freedom);
    std::vector<double> se;
    for (Eigen::Index j = 0; j < p; ++j) se.push_back(std::sqrt(std::max(0.0, s2 * inv_scaled(j, j))) / scale(j));
    fit.standard_errors = std::move(se);
  }
  return fit;
}

}  // namespace ckptsim
