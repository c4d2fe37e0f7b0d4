#pragma once
// A collective's measured bus bandwidth against its size (an nccl-tests curve), and the time it
// gives a collective of any size. GPU types carry the curves of collectives inside one machine's
// NVLink domain (gpu_types.hpp); the Megatron model times tensor- and data-parallel collectives
// inside a machine by them (workload/megatron_iteration.cpp).
//
// nccl-tests' convention (doc/PERFORMANCE.md in NVIDIA/nccl-tests): for a buffer of S bytes on n
// ranks (S the whole gathered or reduced buffer for all-gather and reduce-scatter, each rank's
// buffer for all-reduce), busbw = algbw·k with algbw = S / t and
//   k = (n-1)/n     all-gather, reduce-scatter
//   k = 2(n-1)/n    all-reduce
// so a collective takes t = k·S / busbw(S). Between measured sizes busbw is interpolated linearly
// in log2(S). Above the largest size it stays at the largest size's value. Below the smallest
// size S_0 the time keeps the latency the curve implies there and adds bytes at the curve's best
// rate b_max:  t(S) = t(S_0) - k·(S_0 - S) / b_max  (never below t(S_0) - k·S_0 / b_max >= 0).
// Units: bytes, bytes/s, seconds.
#include <string>
#include <vector>

namespace ckptsim {

struct BusPoint {
  double bytes = 0;          ///< S as nccl-tests prints it ("size")
  double bus_bandwidth = 0;  ///< busbw, B/s
  bool operator==(const BusPoint&) const = default;
};

struct BusCurve {
  std::vector<BusPoint> points;  ///< ascending sizes, positive bandwidths
  std::string source;            ///< where the curve was measured (cited)
  bool assumed = false;          ///< taken from a sibling GPU's or collective's measurement

  /// busbw at S (interpolated in log2 S; clamped at both ends).
  [[nodiscard]] double bus_bandwidth(double bytes) const;
  /// Seconds for a collective of S bytes with bus factor k (above); 0 for S <= 0 or k <= 0.
  [[nodiscard]] double seconds(double bytes, double bus_factor) const;
  /// The same measurement: equal points (the source and the assumed mark are labels; a curve
  /// written back to a scenario and read again is "scenario file").
  bool operator==(const BusCurve& other) const { return points == other.points; }
};

}  // namespace ckptsim
