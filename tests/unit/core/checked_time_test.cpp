// Checked time arithmetic (core/checked_time.hpp): the 100-year range, overflow refused with
// the parameter named, saturation for sampled times.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>

#include "ckptsim/core/checked_time.hpp"

using namespace ckptsim;

TEST_CASE("the clock range is 100 years of 365.25 days") {
  // 100 x 365.25 x 86400 s = 3,155,760,000 s = 3.15576e18 ns.
  CHECK(kMaxDuration.ns() == 3'155'760'000'000'000'000);
  CHECK(duration_in_range(3'155'760'000.0));
  CHECK_FALSE(duration_in_range(3'155'760'001.0));
  CHECK_FALSE(duration_in_range(-1.0));
  CHECK_FALSE(duration_in_range(std::nan("")));
  CHECK_FALSE(duration_in_range(HUGE_VAL));
}

TEST_CASE("checked products and sums refuse overflow, naming the parameter") {
  // 1 day x 36,525 = exactly 100 years: allowed; one more day is not.
  CHECK(checked_multiply(days(1), 36'525, "/x", "t").ns() == kMaxDuration.ns());
  CHECK_THROWS_AS(checked_multiply(days(1), 36'526, "/x", "t"), ModelError);
  // 2^62 ns x 4 overflows int64: refused, not wrapped to a negative time.
  try {
    (void)checked_multiply(SimTime::from_ns(std::int64_t{1} << 62), 4, "/run/iterations", "the run");
    FAIL("no error");
  } catch (const ModelError& e) {
    CHECK(e.parameter() == "/run/iterations");
  }
  CHECK_THROWS_AS(checked_add(kMaxDuration, nanoseconds(1), "/x", "t"), ModelError);
  CHECK(checked_add(hours(1), hours(2), "/x", "t") == hours(3));
}

TEST_CASE("checked transfer times refuse zero bandwidth and times beyond the clock") {
  // 1e9 bytes at 1e9 B/s: 1 s.
  CHECK(checked_transfer_time(1e9, 1e9, "/bw", "t") == SimTime::from_ns(1'000'000'000));
  CHECK(checked_transfer_time(0, 0, "/bw", "t") == SimTime::zero());  // nothing to move
  CHECK_THROWS_AS(checked_transfer_time(1, 0, "/bw", "t"), ModelError);
  // 1e18 bytes at 1 B/s is 1e18 s, beyond 3.16e9 s.
  CHECK_THROWS_AS(checked_transfer_time(1e18, 1, "/bw", "t"), ModelError);
}

TEST_CASE("sampled times saturate instead of wrapping") {
  CHECK(saturating_seconds(HUGE_VAL) == SimTime::max());
  CHECK(saturating_seconds(1e300) == SimTime::max());
  CHECK(saturating_seconds(std::nan("")) == SimTime::zero());
  CHECK(saturating_seconds(-5) == SimTime::zero());
  CHECK(saturating_seconds(1.5) == SimTime::from_ns(1'500'000'000));
  CHECK(saturating_add(SimTime::max(), nanoseconds(1)) == SimTime::max());
}

TEST_CASE("SimTime arithmetic throws ClockOverflow at the int64 boundary instead of wrapping") {
  const SimTime top = SimTime::max();  // 2^63 - 1 ns
  CHECK(top - nanoseconds(1) + nanoseconds(1) == top);  // up to the boundary: exact
  CHECK_THROWS_AS(top + nanoseconds(1), ClockOverflow);
  CHECK_THROWS_AS(SimTime::from_ns(std::numeric_limits<std::int64_t>::min()) - nanoseconds(1), ClockOverflow);
  SimTime t = top;
  CHECK_THROWS_AS(t += nanoseconds(1), ClockOverflow);
  // 2^62 ns x 2 = 2^63 ns, one beyond the largest int64.
  CHECK_THROWS_AS(SimTime::from_ns(std::int64_t{1} << 62) * 2, ClockOverflow);
  // (2^62 - 1) x 2 = 2^63 - 2: the largest even value, still on the clock.
  CHECK((SimTime::from_ns((std::int64_t{1} << 62) - 1) * 2).ns() == std::numeric_limits<std::int64_t>::max() - 1);
  // 106,751 days = 9.2233e18 ns fits; 106,752 days = 9.22337e18 > 2^63 - 1 = 9.22337204e18 does not.
  CHECK(days(106'751).ns() == 106'751LL * 86'400'000'000'000LL);
  CHECK_THROWS_AS(days(106'752), ClockOverflow);
}

TEST_CASE("SimTime::from_seconds refuses what is not a time on the clock") {
  CHECK(SimTime::from_seconds(1.5).ns() == 1'500'000'000);
  CHECK(SimTime::from_seconds(-2.0).ns() == -2'000'000'000);
  CHECK_THROWS_AS(SimTime::from_seconds(std::nan("")), ClockOverflow);
  CHECK_THROWS_AS(SimTime::from_seconds(HUGE_VAL), ClockOverflow);
  // 9.3e9 s = 9.3e18 ns > 2^63 ns = 9.223e18 ns.
  CHECK_THROWS_AS(SimTime::from_seconds(9.3e9), ClockOverflow);
  CHECK_THROWS_AS(transfer_time(1e300, 1.0), ClockOverflow);
}

TEST_CASE("SimTime::from_seconds rounds as std::llround does: to the nearest ns, halves away from zero") {
  // Hand-picked cases: exact halves (1.5 ns -> 2, -1.5 ns -> -2, 0.5 ns -> 1), just below a half
  // (the largest double below 0.5, where adding 0.5 and truncating would give 1), fractions at
  // 2^51 ns (representable halves) and integers from 2^52 ns on (no fraction left).
  const double below_half = std::nextafter(0.5, 0.0);
  const double cases_ns[] = {0.0, 0.4, 0.5, 0.6, 1.5, 2.5, -0.4, -0.5, -1.5, -2.5, below_half, -below_half,
                             2251799813685248.5, -2251799813685248.5, 4503599627370497.0, 9.2e18, -9.2e18};
  for (double ns : cases_ns) {
    CAPTURE(ns);
    // Seconds chosen so that s * 1e9 reproduces ns (multiplying back by 1e9 may round: compare
    // with llround of the very product from_seconds computes).
    const double s = ns / 1e9;
    CHECK(SimTime::from_seconds(s).ns() == std::llround(s * 1e9));
  }
  CHECK(SimTime::from_seconds(1.5e-9).ns() == 2);
  CHECK(SimTime::from_seconds(-1.5e-9).ns() == -2);
  CHECK(SimTime::from_seconds(0.4e-9).ns() == 0);
  // 800,000 gaps from 1 ns to about 1.5e6 s (geometric steps, the run model's range of drawn
  // gaps), each against the library.
  int mismatches = 0;
  double x = 1e-9;
  for (int i = 0; i < 800'000; ++i, x *= 1.0000437) {
    mismatches += SimTime::from_seconds(x).ns() != std::llround(x * 1e9) ? 1 : 0;
    mismatches += SimTime::from_seconds(-x).ns() != std::llround(-x * 1e9) ? 1 : 0;
  }
  CHECK(x > 1e6);
  CHECK(mismatches == 0);
}
