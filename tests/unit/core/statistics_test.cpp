// RunningStats and Student's t quantile on hand-computed cases.
#include <doctest/doctest.h>

#include <cmath>
#include <initializer_list>

#include "ckptsim/core/statistics.hpp"

using namespace ckptsim;

TEST_CASE("running statistics of 2, 4, 4, 4, 5, 5, 7, 9") {
  // mean = 40 / 8 = 5; squared deviations 9+1+1+1+0+0+4+16 = 32; sample variance 32/7.
  RunningStats s;
  for (double x : {2, 4, 4, 4, 5, 5, 7, 9}) s.add(x);
  CHECK(s.mean() == doctest::Approx(5.0));
  CHECK(s.variance() == doctest::Approx(32.0 / 7.0));
  // t_{0.975, 7} = 2.364624 (tables); ci95 = 2.364624 * sqrt(32/7) / sqrt(8).
  CHECK(s.ci95_half_width() == doctest::Approx(2.364624 * std::sqrt(32.0 / 7.0) / std::sqrt(8.0)).epsilon(1e-5));
  CHECK(s.summary().min == 2);
  CHECK(s.summary().max == 9);
}

TEST_CASE("merging two halves equals one pass") {
  RunningStats all, a, b;
  for (int i = 0; i < 100; ++i) {
    const double x = (i * 37 % 101) * 0.5;
    all.add(x);
    (i < 40 ? a : b).add(x);
  }
  a.merge(b);
  CHECK(a.count() == 100);
  CHECK(a.mean() == doctest::Approx(all.mean()).epsilon(1e-12));
  CHECK(a.variance() == doctest::Approx(all.variance()).epsilon(1e-12));
}

TEST_CASE("Student's t 97.5% quantiles") {
  // Table values: dof 1 -> 12.7062, dof 10 -> 2.2281, dof 1000 -> 1.9623.
  CHECK(student_t_975(1) == doctest::Approx(12.7062).epsilon(1e-4));
  CHECK(student_t_975(10) == doctest::Approx(2.2281).epsilon(1e-4));
  CHECK(student_t_975(1000) == doctest::Approx(1.9623).epsilon(1e-4));
  // A single sample has no interval.
  RunningStats one;
  one.add(3.0);
  CHECK(one.ci95_half_width() == 0.0);
}
