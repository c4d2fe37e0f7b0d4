#include "ckptsim/core/statistics.hpp"

#include <algorithm>
#include <array>
#include <atomic>
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

namespace {

double compute_student_t_975(std::size_t dof) {
  boost::math::students_t dist(static_cast<double>(dof));
  return boost::math::quantile(dist, 0.975);
}

}  // namespace

double student_t_975(std::size_t dof) {
  if (dof == 0) return 0.0;
  // The quantile (an inverse incomplete beta) costs microseconds and every summary of every
  // metric asks for it with the same few degrees of freedom, so small ones are kept once
  // computed. 0 marks "not yet"; two threads computing the same entry store the same value.
  constexpr std::size_t kKept = 4096;
  static std::array<std::atomic<double>, kKept> kept{};
  if (dof >= kKept) return compute_student_t_975(dof);
  double q = kept[dof].load(std::memory_order_relaxed);
  if (q == 0.0) {
    q = compute_student_t_975(dof);
    kept[dof].store(q, std::memory_order_relaxed);
  }
  return q;
}

}  // namespace ckptsim
