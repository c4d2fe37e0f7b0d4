// Pacing one rank's sends to an emulated link of `rate` bytes/s, on a schedule that does not
// depend on when the rank loop polls (docs/hardware.md, "Checking the model against hardware").
//
// The link serves sends first come, first served. A send of b bytes that may go at time e (its
// eligible time: a computed instant such as its dependency's measured end or its planned
// offset, never the time the loop happened to notice) is cut into segments; segment k gets the
// deadline
//     d_k = max(link free, e) + (b_1 + ... + b_k) / rate,   link free := d_last,
// the instant an ideal link of that rate would have delivered its last byte. A segment is handed
// to the transport (MPI, which on one machine is far faster than any paced rate) once its
// deadline has passed, so the receiver sees it when the emulated link would deliver it. A loop
// that polled late hands over every segment whose deadline has passed at once: lateness delays
// the tail of a send by at most the poll gap and never lowers the link's rate over longer
// intervals; the loop sleeps until the next deadline (next_deadline()), not a fixed time.
//
// Segment size and depth follow from the rate: a segment is what the link carries in
// kQuantumS (1 ms), clamped to [4 KiB, 4 MiB]; every segment of a send is scheduled when the
// send becomes eligible, so as many segments as the send has are in flight on the schedule.
//
// Lateness is measured: each send records how far its last segment was handed over after its
// deadline; report() sums the ideal time b / rate and the lateness, and achieved_fraction =
// ideal / (ideal + late) says how close the rank came to the requested rate (1: exactly).
#pragma once
#include <algorithm>
#include <cstddef>
#include <set>
#include <vector>

#include "ckptsim/calibration/measured_timeline.hpp"

namespace ckptsim::replay {

class PacedLink {
 public:
  static constexpr double kQuantumS = 1e-3;
  static constexpr double kMinSegment = 4096;
  static constexpr double kMaxSegment = 4 << 20;

  /// rate <= 0: unpaced (every deadline is the eligible time). `segment_bytes` > 0 overrides the
  /// segment size derived from the rate.
  explicit PacedLink(double rate, double segment_bytes = 0) : rate_(rate > 0 ? rate : 0) {
    segment_ = segment_bytes > 0 ? segment_bytes : std::clamp(rate_ * kQuantumS, kMinSegment, kMaxSegment);
    if (rate_ <= 0 && segment_bytes <= 0) segment_ = kMaxSegment;
    report_.requested_bytes_per_s = rate_;
  }

  [[nodiscard]] bool paced() const { return rate_ > 0; }
  [[nodiscard]] double rate() const { return rate_; }
  [[nodiscard]] std::size_t segment_bytes() const { return static_cast<std::size_t>(segment_); }

  /// Schedules a send of `sizes` (its segments, in order) that may go at `eligible`; returns
  /// each segment's deadline. Call hand_over(deadline, now) when a segment is given to the
  /// transport, and done(last deadline, now) when the last one was.
  std::vector<double> schedule(const std::vector<std::size_t>& sizes, double eligible) {
    std::vector<double> deadlines;
    double t = std::max(free_, eligible);
    double bytes = 0;
    for (std::size_t n : sizes) {
      if (paced()) t += static_cast<double>(n) / rate_;
      bytes += static_cast<double>(n);
      deadlines.push_back(t);
      pending_.insert(t);
    }
    free_ = std::max(free_, t);
    if (paced()) {
      report_.paced_bytes += bytes;
      report_.ideal_s += bytes / rate_;
    }
    return deadlines;
  }

  /// A segment scheduled for `deadline` was handed over.
  void hand_over(double deadline) {
    const auto it = pending_.find(deadline);
    if (it != pending_.end()) pending_.erase(it);
  }

  /// The last segment of a send, due at `deadline`, was handed over at `now`.
  void done(double deadline, double now) {
    if (paced()) report_.late_s += std::max(0.0, now - deadline);
  }

  /// The earliest deadline of a segment not yet handed over (or a negative value when none).
  [[nodiscard]] double next_deadline() const { return pending_.empty() ? -1.0 : *pending_.begin(); }

  /// Cuts n bytes into segments of this link's size.
  [[nodiscard]] std::vector<std::size_t> segments(std::size_t n) const {
    std::vector<std::size_t> out;
    const std::size_t seg = std::max<std::size_t>(1, segment_bytes());
    for (std::size_t off = 0; off < n; off += seg) out.push_back(std::min(seg, n - off));
    if (out.empty()) out.push_back(0);
    return out;
  }

  /// Starts a new iteration at time 0 (the link is idle); the report keeps accumulating.
  void reset() {
    free_ = 0;
    pending_.clear();
  }

  [[nodiscard]] const PacingReport& report() const { return report_; }

 private:
  double rate_;
  double segment_ = kMaxSegment;
  double free_ = 0;
  std::multiset<double> pending_;
  PacingReport report_;
};

}  // namespace ckptsim::replay
