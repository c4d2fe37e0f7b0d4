#pragma once
// SimTime: simulated time as an int64 count of nanoseconds (docs/architecture.md, "Decisions").
//
// Durations computed from bytes and bandwidth round *up* to the next nanosecond, so a transfer
// never finishes earlier than physics allows. Range: +-292 years, far beyond any training run.
#include <cmath>
#include <compare>
#include <cstdint>
#include <limits>

namespace ckptsim {

class SimTime {
 public:
  constexpr SimTime() = default;

  static constexpr SimTime from_ns(std::int64_t ns) { return SimTime(ns); }
  /// Rounds to the nearest nanosecond.
  static SimTime from_seconds(double s) { return SimTime(static_cast<std::int64_t>(std::llround(s * 1e9))); }
  static constexpr SimTime zero() { return SimTime(0); }
  static constexpr SimTime max() { return SimTime(std::numeric_limits<std::int64_t>::max()); }

  [[nodiscard]] constexpr std::int64_t ns() const { return ns_; }
  [[nodiscard]] constexpr double seconds() const { return static_cast<double>(ns_) * 1e-9; }

  constexpr auto operator<=>(const SimTime&) const = default;

  constexpr SimTime& operator+=(SimTime o) { ns_ += o.ns_; return *this; }
  constexpr SimTime& operator-=(SimTime o) { ns_ -= o.ns_; return *this; }
  friend constexpr SimTime operator+(SimTime a, SimTime b) { return SimTime(a.ns_ + b.ns_); }
  friend constexpr SimTime operator-(SimTime a, SimTime b) { return SimTime(a.ns_ - b.ns_); }
  friend constexpr SimTime operator*(SimTime a, std::int64_t k) { return SimTime(a.ns_ * k); }
  friend constexpr SimTime operator*(std::int64_t k, SimTime a) { return SimTime(a.ns_ * k); }
  /// Whole multiples of b that fit in a (floor for non-negative operands).
  friend constexpr std::int64_t operator/(SimTime a, SimTime b) { return a.ns_ / b.ns_; }
  friend constexpr SimTime operator%(SimTime a, SimTime b) { return SimTime(a.ns_ % b.ns_); }

 private:
  constexpr explicit SimTime(std::int64_t ns) : ns_(ns) {}
  std::int64_t ns_ = 0;
};

constexpr SimTime nanoseconds(std::int64_t n) { return SimTime::from_ns(n); }
constexpr SimTime microseconds(std::int64_t n) { return SimTime::from_ns(n * 1'000); }
constexpr SimTime milliseconds(std::int64_t n) { return SimTime::from_ns(n * 1'000'000); }
inline SimTime seconds(double s) { return SimTime::from_seconds(s); }
constexpr SimTime minutes(std::int64_t n) { return SimTime::from_ns(n * 60'000'000'000); }
constexpr SimTime hours(std::int64_t n) { return SimTime::from_ns(n * 3'600'000'000'000); }
constexpr SimTime days(std::int64_t n) { return SimTime::from_ns(n * 86'400'000'000'000); }

/// Time to move `bytes` at `bytes_per_second`, rounded up to whole nanoseconds.
/// Zero bytes take zero time; a non-positive bandwidth with bytes to move is a caller bug.
inline SimTime transfer_time(double bytes, double bytes_per_second) {
  if (bytes <= 0.0) return SimTime::zero();
  return SimTime::from_ns(static_cast<std::int64_t>(std::ceil(bytes / bytes_per_second * 1e9)));
}

}  // namespace ckptsim
