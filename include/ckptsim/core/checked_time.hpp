#pragma once
// Checked conversions into SimTime and checked time arithmetic (docs/limits.md, "Clock range").
//
// SimTime is an int64 count of nanoseconds: it represents +-2^63 ns, about +-292 years. ckptsim
// allows any single duration an input names or derives (an iteration, a transfer, a wait, a
// failure-free stretch, the run length) up to kMaxDuration = 100 years (3.156e18 ns), so that a
// few such durations added together still fit the clock. Products of a time and a count, and
// conversions from seconds or bytes/bandwidth, are checked here and refused with a ModelError
// that names the input responsible (a JSON pointer such as "/run/iterations") instead of
// wrapping round to negative or garbage times.
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

/// 100 years of 365.25 days, in seconds and as a SimTime.
inline constexpr double kMaxDurationSeconds = 100.0 * 365.25 * 86400.0;
inline constexpr SimTime kMaxDuration = SimTime::from_ns(3'155'760'000'000'000'000);

/// True when `s` seconds is a finite, non-negative duration of at most kMaxDuration.
inline bool duration_in_range(double s) { return std::isfinite(s) && s >= 0.0 && s <= kMaxDurationSeconds; }

/// "<what> = 3.2e+12 s is beyond the 100-year range of the simulated clock"
inline std::string clock_range_message(std::string_view what, double s) {
  return fmt::format("{} = {:.3g} s is beyond the simulated clock's range (finite, 0 to 100 years = {:.4g} s; "
                     "see docs/limits.md)",
                     what, s, kMaxDurationSeconds);
}

/// `s` seconds as a SimTime (nearest ns); ModelError(parameter) when out of range.
inline SimTime checked_seconds(double s, const std::string& parameter, std::string_view what) {
  if (!duration_in_range(s)) throw ModelError(parameter, clock_range_message(what, s));
  return SimTime::from_seconds(s);
}

/// transfer_time(bytes, bytes_per_second), refused (ModelError naming `parameter`, the bandwidth
/// usually) when the bandwidth is not positive or the time leaves the clock's range.
inline SimTime checked_transfer_time(double bytes, double bytes_per_second, const std::string& parameter,
                                     std::string_view what) {
  if (bytes <= 0.0) return SimTime::zero();
  const double s = bytes / bytes_per_second;
  if (!(bytes_per_second > 0.0) || !duration_in_range(s)) throw ModelError(parameter, clock_range_message(what, s));
  return transfer_time(bytes, bytes_per_second);
}

/// t * k, refused when the product is negative or above kMaxDuration.
inline SimTime checked_multiply(SimTime t, std::int64_t k, const std::string& parameter, std::string_view what) {
  std::int64_t ns = 0;
  if (__builtin_mul_overflow(t.ns(), k, &ns) || ns < 0 || ns > kMaxDuration.ns())
    throw ModelError(parameter, clock_range_message(what, t.seconds() * static_cast<double>(k)));
  return SimTime::from_ns(ns);
}

/// a + b, refused when the sum overflows or exceeds kMaxDuration.
inline SimTime checked_add(SimTime a, SimTime b, const std::string& parameter, std::string_view what) {
  std::int64_t ns = 0;
  if (__builtin_add_overflow(a.ns(), b.ns(), &ns) || ns > kMaxDuration.ns())
    throw ModelError(parameter, clock_range_message(what, a.seconds() + b.seconds()));
  return SimTime::from_ns(ns);
}

/// a + b for event times: saturates at SimTime::max() instead of wrapping (an event that far
/// away never happens within a run, which always ends before kMaxDuration).
inline SimTime saturating_add(SimTime a, SimTime b) {
  std::int64_t ns = 0;
  if (__builtin_add_overflow(a.ns(), b.ns(), &ns)) return SimTime::max();
  return SimTime::from_ns(ns);
}

/// `s` seconds as a SimTime, saturating at SimTime::max() for huge or infinite samples (a
/// sampled wait beyond the clock means "never within the run"); NaN and negatives give zero.
inline SimTime saturating_seconds(double s) {
  if (!(s > 0.0)) return SimTime::zero();
  if (s >= 9.2e9) return SimTime::max();
  return SimTime::from_seconds(s);
}

}  // namespace ckptsim
