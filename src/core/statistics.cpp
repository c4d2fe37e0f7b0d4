#include "ckptsim/core/statistics.hpp"

#include <algorithm>
#include <cmath>

#include <boost/math/distributions/students_t.hpp>

namespace ckptsim {

void RunningStats::add(double x) {
  if (n_ == 0) {
    min_ = max_ = x;
  } else {
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  ++n_;
  const double delta = x - mean_;
  mean_ += delta / static_cast<double>(n_);
  m2_ += delta * (x - mean_);
}

void RunningStats::merge(const RunningStats& other) {
  if (other.n_ == 0) return;
  if (n_ == 0) {
    *this = other;
    return;
  }
  const double na = static_cast<double>(n_);
  const double nb = static_cast<double>(other.n_);
  const double delta = other.mean_ - mean_;
  const double n = na + nb;
  mean_ += delta * nb / n;
  m2_ += other.m2_ + delta * delta * na * nb / n;
  n_ += other.n_;
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
}

double RunningStats::variance() const { return n_ < 2 ? 0.0 : std::max(0.0, m2_ / static_cast<double>(n_ - 1)); }

double RunningStats::stddev() const { return std::sqrt(variance()); }

double RunningStats::ci95_half_width() const {
  if (n_ < 2) return 0.0;
  return student_t_975(n_ - 1) * stddev() / std::sqrt(static_cast<double>(n_));
}

Summary RunningStats::summary() const {
  return Summary{mean_, stddev(), ci95_half_width(), min_, max_, n_};
}

double student_t_975(std::size_t dof) {
  if (dof == 0) return 0.0;
  boost::math::students_t dist(static_cast<double>(dof));
  return boost::math::quantile(dist, 0.975);
}

}  // namespace ckptsim
