// A measured collective curve (scenario/bus_curve.hpp) and the GPU types' curves: every expected
// time worked by hand in the comment above its check.
#include <doctest/doctest.h>

#include "ckptsim/scenario/bus_curve.hpp"
#include "ckptsim/scenario/gpu_types.hpp"

using namespace ckptsim;

namespace {

constexpr double kMiB = 1024.0 * 1024;

/// 1 MiB at 100 GB/s, 4 MiB at 200 GB/s, 16 MiB at 300 GB/s.
BusCurve toy_curve() {
  BusCurve c;
  c.points = {{1 * kMiB, 100e9}, {4 * kMiB, 200e9}, {16 * kMiB, 300e9}};
  return c;
}

}  // namespace

TEST_SUITE_BEGIN("scenario");

TEST_CASE("bus curve: busbw interpolated in log2 of the size, clamped at both ends") {
  const BusCurve c = toy_curve();
  // 2 MiB lies halfway between 1 and 4 MiB in log2 (1 of 2 doublings): 150 GB/s.
  CHECK(c.bus_bandwidth(2 * kMiB) == doctest::Approx(150e9));
  // 8 MiB: halfway between 4 and 16 MiB: 250 GB/s.
  CHECK(c.bus_bandwidth(8 * kMiB) == doctest::Approx(250e9));
  CHECK(c.bus_bandwidth(4 * kMiB) == doctest::Approx(200e9));
  CHECK(c.bus_bandwidth(1 << 30) == 300e9);
  CHECK(c.bus_bandwidth(1024) == 100e9);
}

TEST_CASE("bus curve: a collective's time is k·S / busbw(S), with the latency kept below the smallest size") {
  const BusCurve c = toy_curve();
  // Reduce-scatter on 8 ranks (k = 7/8) of 2 MiB: 7/8 x 2,097,152 B / 150e9 B/s = 12.2334 us.
  CHECK(c.seconds(2 * kMiB, 7.0 / 8) == doctest::Approx(7.0 / 8 * 2 * kMiB / 150e9));
  // All-reduce (k = 7/4) of the same buffer takes twice as long on the same curve.
  CHECK(c.seconds(2 * kMiB, 7.0 / 4) == doctest::Approx(2 * c.seconds(2 * kMiB, 7.0 / 8)));
  // Below 1 MiB: at 1 MiB, k = 1, t = 1,048,576 / 100e9 = 10.48576 us, of which 1,048,576 /
  // 300e9 = 3.49525 us are bytes at the best rate, leaving a 6.99051 us latency. 0.5 MiB:
  // 6.99051 + 524,288 / 300e9 = 6.99051 + 1.74763 = 8.73814 us.
  CHECK(c.seconds(0.5 * kMiB, 1.0) == doctest::Approx(1 * kMiB / 100e9 - 1 * kMiB / 300e9 + 0.5 * kMiB / 300e9));
  CHECK(c.seconds(0.5 * kMiB, 1.0) == doctest::Approx(8.73814e-6).epsilon(1e-5));
  // The time never falls as the size grows across the first point.
  CHECK(c.seconds(1 * kMiB - 1, 1.0) <= c.seconds(1 * kMiB, 1.0));
  // Above 16 MiB the rate stays 300 GB/s: 1 GiB at k = 1 takes 1,073,741,824 / 300e9 s.
  CHECK(c.seconds(1 << 30, 1.0) == doctest::Approx((1 << 30) / 300e9));
  CHECK(c.seconds(0, 1.0) == 0);
}

TEST_CASE("GPU types: the in-machine collective curves, NVLS all-reduce above the ring on Hopper") {
  const GpuType& h100 = *find_gpu_type("h100-sxm5-80gb");
  REQUIRE(h100.nvlink_ring_curve.has_value());
  REQUIRE(h100.nvlink_all_reduce_curve.has_value());
  CHECK(h100.nvlink_curve_gpus == 8);
  // Azure ND H100 v5, all_reduce_perf -g 8 (NVLS): 4 GiB at 475.54 GB/s; nccl issue 1047, ring
  // reduce-scatter: 4 GiB at 357.76 GB/s. Sequence parallelism's reduce-scatter + all-gather of
  // a 4 GiB buffer against the all-reduce they replace: (2 x 7/8 x S / 357.76) / (7/4 x S /
  // 475.54) = 475.54 / 357.76 = 1.3292.
  const double S = 4096 * kMiB;
  const double rs_ag = 2 * h100.nvlink_ring_curve->seconds(S, 7.0 / 8);
  const double ar = h100.nvlink_all_reduce_curve->seconds(S, 7.0 / 4);
  CHECK(rs_ag / ar == doctest::Approx(475.54 / 357.76));
  // A100 has no NVLS: its one curve (ring all-reduce) serves both, so the two are equal.
  const GpuType& a100 = *find_gpu_type("a100-sxm4-80gb");
  REQUIRE(a100.nvlink_ring_curve.has_value());
  CHECK(2 * a100.nvlink_ring_curve->seconds(S, 7.0 / 8) == doctest::Approx(a100.nvlink_all_reduce_curve->seconds(S, 7.0 / 4)));
  CHECK(a100.nvlink_ring_curve->assumed);
  // Every curve ascends in size with positive rates, and V100 has none (no published curve).
  for (const GpuType& g : gpu_types()) {
    CAPTURE(g.name);
    for (const auto* curve : {&g.nvlink_ring_curve, &g.nvlink_all_reduce_curve}) {
      if (!*curve) continue;
      const auto& points = (*curve)->points;
      REQUIRE_FALSE(points.empty());
      for (std::size_t i = 0; i < points.size(); ++i) {
        CHECK(points[i].bus_bandwidth > 0);
        if (i > 0) CHECK(points[i].bytes > points[i - 1].bytes);
      }
    }
  }
  CHECK_FALSE(find_gpu_type("v100-sxm2-32gb")->nvlink_ring_curve.has_value());
}
