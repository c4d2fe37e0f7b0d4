#pragma once
// SimTime: simulated time as an int64 count of nanoseconds (docs/architecture.md, "Decisions").
//
// Durations computed from bytes and bandwidth round *up* to the next nanosecond, so a transfer
// never finishes earlier than physics allows. Range: +-292 years, far beyond any training run.
// Arithmetic is checked: a sum, difference or product that leaves the int64 range, or a
// conversion from seconds that is not finite or beyond it, throws ClockOverflow instead of
// wrapping round. Inputs are checked before a model runs so that this never happens (the
// clock-range checks of docs/limits.md: every duration at most 100 years, a run's worst-case
// horizon within the clock, run/run_horizon.hpp); ClockOverflow is a broken invariant, reported
// as an internal error. Checking costs one overflow-flag branch per operation.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace ckptsim {

/// SimTime arithmetic left the int64-ns clock (a bug: inputs are range-checked beforehand).
class ClockOverflow : public std::overflow_error {
 public:
  using std::overflow_error::overflow_error;
};

/// 128-bit nanoseconds, for sums and products that may leave the int64 clock before they are
/// compared or checked (run_horizon.hpp, the multi-level clock's searches).
__extension__ typedef __int128 WideNs;

namespace sim_time_detail {
[[noreturn]] inline void overflow(const char* what) {
  throw ClockOverflow(std::string("simulated time out of the int64-ns clock's range in ") + what);
}
constexpr std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r)) overflow("an addition");
  return r;
}
constexpr std::int64_t sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_sub_overflow(a, b, &r)) overflow("a subtraction");
  return r;
}
constexpr std::int64_t mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) overflow("a multiplication");
  return r;
}
}  // namespace sim_time_detail

class SimTime {
 public:
  constexpr SimTime() = default;

  static constexpr SimTime from_ns(std::int64_t ns) { return SimTime(ns); }
  /// Rounds to the nearest nanosecond (halves away from zero, as std::llround); ClockOverflow when `s` is not finite or beyond +-2^63 ns.
  static SimTime from_seconds(double s) {
    const double ns = s * 1e9;
    // 2^63 is exactly representable; every double below it converts without overflow.
    if (!(ns > -9.2233720368547758e18 && ns < 9.2233720368547758e18)) sim_time_detail::overflow("a conversion from seconds");
    // std::llround's rule (halves away from zero) without its library call, which the run
    // model pays on every drawn gap: the integer part converts exactly, and ns - whole is exact
    // in binary floating point (the fraction's bits are a subset of ns's; 0 from 2^52 on).
    const auto whole = static_cast<std::int64_t>(ns);
    const double fraction = ns - static_cast<double>(whole);
    return SimTime(whole + (fraction >= 0.5 ? 1 : 0) - (fraction <= -0.5 ? 1 : 0));
  }
  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<std::int64_t>::max()); }

  [[nodiscard]] constexpr std::int64_t ns() const { return ns_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }

  constexpr auto operator<=>(const SimTime&) const = default;

  constexpr SimTime& operator+=(SimTime o) {
    ns_ = sim_time_detail::add(ns_, o.ns_);
    return *this;
  }
  constexpr SimTime& operator-=(SimTime o) {
    ns_ = sim_time_detail::sub(ns_, o.ns_);
    return *this;
  }
  friend constexpr SimTime operator+(SimTime a, SimTime b) { return SimTime(sim_time_detail::add(a.ns_, b.ns_)); }
  friend constexpr SimTime operator-(SimTime a, SimTime b) { return SimTime(sim_time_detail::sub(a.ns_, b.ns_)); }
  friend constexpr SimTime operator*(SimTime a, std::int64_t k) { return SimTime(sim_time_detail::mul(a.ns_, k)); }
  friend constexpr SimTime operator*(std::int64_t k, SimTime a) { return SimTime(sim_time_detail::mul(a.ns_, k)); }
  /// Whole multiples of b that fit in a (floor for non-negative operands).
  friend constexpr std::int64_t operator/(SimTime a, SimTime b) { return a.ns_ / b.ns_; }
  friend constexpr SimTime operator%(SimTime a, SimTime b) { return SimTime(a.ns_ % b.ns_); }

 private:
  constexpr explicit SimTime(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

constexpr SimTime nanoseconds(std::int64_t n) { return SimTime::from_ns(n); }
constexpr SimTime microseconds(std::int64_t n) { return SimTime::from_ns(sim_time_detail::mul(n, 1'000)); }
constexpr SimTime milliseconds(std::int64_t n) { return SimTime::from_ns(sim_time_detail::mul(n, 1'000'000)); }
inline SimTime seconds(double s) { return SimTime::from_seconds(s); }
constexpr SimTime minutes(std::int64_t n) { return SimTime::from_ns(sim_time_detail::mul(n, 60'000'000'000)); }
constexpr SimTime hours(std::int64_t n) { return SimTime::from_ns(sim_time_detail::mul(n, 3'600'000'000'000)); }
constexpr SimTime days(std::int64_t n) { return SimTime::from_ns(sim_time_detail::mul(n, 86'400'000'000'000)); }

/// Time to move `bytes` at `bytes_per_second`, rounded up to whole nanoseconds.
/// Zero bytes take zero time; a non-positive bandwidth with bytes to move is a caller bug, and a
/// time beyond the clock throws ClockOverflow (checked_transfer_time refuses it with the input's name).
inline SimTime transfer_time(double bytes, double bytes_per_second) {
  if (bytes <= 0.0) return SimTime::zero();
  const double ns = std::ceil(bytes / bytes_per_second * 1e9);
  if (!(ns >= 0.0 && ns < 9.2233720368547758e18)) sim_time_detail::overflow("a transfer time");
  return SimTime::from_ns(static_cast<std::int64_t>(ns));
}

}  // namespace ckptsim
