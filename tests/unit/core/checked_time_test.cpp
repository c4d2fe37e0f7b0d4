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
