#pragma once
// Summary statistics over Monte Carlo replicas.
//
// RunningStats uses Welford's update: mean_n = mean_{n-1} + (x - mean_{n-1}) / n,
// M2_n = M2_{n-1} + (x - mean_{n-1})(x - mean_n); sample variance = M2 / (n - 1).
// ci95 is the half-width of the 95% confidence interval of the mean with Student's t:
// t_{0.975, n-1} * s / sqrt(n) (0 for n < 2).
// Merging two accumulators follows Chan et al. (1979), so partial results from threads combine
// exactly as one pass would up to rounding; callers that need bit-identical results combine
// in a fixed order.
#include <cstddef>

namespace ckptsim {

struct Summary {
  double mean = 0.0;
  double std = 0.0;
  double ci95 = 0.0;
  double min = 0.0;
  double max = 0.0;
  std::size_t count = 0;
};

class RunningStats {
 public:
  void add(double x);
  void merge(const RunningStats& other);
  [[nodiscard]] std::size_t count() const { return n_; }
  [[nodiscard]] double mean() const { return mean_; }
  [[nodiscard]] double variance() const;  ///< sample variance (n - 1), 0 for n < 2
  [[nodiscard]] double stddev() const;
  [[nodiscard]] double ci95_half_width() const;
  [[nodiscard]] Summary summary() const;

 private:
  std::size_t n_ = 0;
  double mean_ = 0.0;
  double m2_ = 0.0;
  double min_ = 0.0;
  double max_ = 0.0;
};

/// Two-sided 97.5% quantile of Student's t with `dof` degrees of freedom.
double student_t_975(std::size_t dof);

}  // namespace ckptsim
