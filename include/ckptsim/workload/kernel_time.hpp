#pragma once
// How long one GPU takes for a kernel, and for each submodule use of a training step (the
// kernel compute model; the kernels are kernels.hpp's, the GPU figures scenario/gpu_types.hpp's).
//
// Symbols: P dense FP16/BF16 peak (cluster.gpu_peak_flops, FLOP/s), B HBM bandwidth
// (cluster.gpu_memory_bandwidth, B/s), N SMs, e_g GEMM efficiency, e_m memory efficiency, e_a
// FlashAttention-2 efficiency, L launch overhead (cluster.gpu_* fields), tiles t_m x t_n.
//   GEMM (m x n output, inner k, `batch` products): cuBLAS computes the output in tiles of
//   t_m x t_n, one tile per SM at a time; every tile costs the same whatever part of it lies
//   outside the matrix (tile quantization), and the tiles run in waves of N (wave
//   quantization; NVIDIA, "Matrix Multiplication Background User's Guide", section 3,
//   https://docs.nvidia.com/deeplearning/performance/dl-performance-matrix-multiplication/index.html):
//     tiles = ceil(m / t_m) · ceil(n / t_n) · batch,   waves = ceil(tiles / N)
//     t_tile = 2·t_m·t_n·k / (e_g · d(k) · P / N)      (one SM at e_g·d(k) of its share of the peak)
//     t = waves · t_tile + L
//   A GEMM of a few whole waves runs at e_g · P, the rate the large-GEMM benchmark measures;
//   one tile more than a full wave takes a second wave.
//   Inner depth: every tile also pays a fixed cost that does not shrink with k (filling the
//   shared-memory pipeline, writing the output tile), K0 elements of depth (cluster.
//   gpu_gemm_depth_overhead, fitted to a per-shape cuBLASLt sweep by scripts/fit-gemm-depth).
//   e_g was measured at depth k_ref (gpu_gemm_reference_depth, the large-GEMM benchmark's best
//   shape), so at depth k the tile runs at e_g · d(k) of its share:
//     d(k) = min(1, k / (k + K0) · (k_ref + K0) / k_ref)
//   capped at 1 because e_g is the best of its benchmark's sweep, and held at d(768) below
//   k = 768, the shallowest depth the sweeps measured (no extrapolation). Without K0, d = 1.
//   Shapes whose tiles fill under 90 % of their waves are not described by the fit (cuBLAS
//   picks smaller tiles there; the fixed 256 x 128 tile then overstates their time).
//   Memory-bound kernel of `bytes` read + written:   t = bytes / (e_m · B) + L
//   Fused attention (FlashAttention-2) of F FLOPs:   t = F / (e_a · P) + L
// A use's duration is the sum of its kernels' (kernels run one after another on the compute
// stream), rounded up to the nanosecond once per use.
// With training.compute_efficiency = e given (an explicit calibration result) the kernel
// model is replaced: a use takes its kernels' FLOPs / (e · P), memory-bound kernels and
// launches included in e (the first-order model the calibrate command fits).
// Units: seconds inside, SimTime out.
#include <array>
#include <optional>
#include <utility>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/kernels.hpp"
#include "ckptsim/workload/transformer.hpp"

namespace ckptsim {

/// The timing rules for one GPU. from() refuses (ModelError naming the field) a cluster that
/// lacks a figure the rules need.
class KernelTimer {
 public:
  /// The kernel model's timer: needs the peak, the HBM bandwidth and the kernel figures.
  static KernelTimer from(const ClusterSpec& cluster, AttentionKind attention);
  /// A timer for memory-bound work only (the optimizer step and boundary phases): the kernel
  /// figures when the cluster has them, else the data-sheet bandwidth and no launch overhead.
  static KernelTimer memory_only(const ClusterSpec& cluster);

  [[nodiscard]] double gemm_seconds(double m, double n, double k, double batch = 1) const;
  [[nodiscard]] double memory_seconds(double bytes) const;  ///< bytes / (e_m · B) + L
  [[nodiscard]] double bytes_seconds(double bytes) const;   ///< bytes / (e_m · B), no launch
  [[nodiscard]] double flash_seconds(double flops) const;
  [[nodiscard]] double seconds(const Kernel& kernel) const;
  [[nodiscard]] double launch_seconds() const { return launch_; }
  /// GEMM waves: ceil(ceil(m / t_m) · ceil(n / t_n) · batch / N).
  [[nodiscard]] double gemm_waves(double m, double n, double batch = 1) const;
  /// d(k): the fraction of e_g a GEMM of inner depth k reaches (1 without a depth overhead).
  [[nodiscard]] double gemm_depth_factor(double k) const;

 private:
  double peak_ = 0;
  double bandwidth_ = 0;     ///< e_m · B
  double gemm_rate_ = 0;     ///< e_g · P
  double flash_rate_ = 0;    ///< e_a · P (0: no fused kernel figure)
  double sms_ = 1;
  double tile_m_ = 256, tile_n_ = 128;
  double depth_overhead_ = 0;   ///< K0 (0: d = 1)
  double reference_depth_ = 1;  ///< k_ref
  double launch_ = 0;
};

/// Every use's compute duration and FLOPs for one scenario, computed once (ZeRO-3's per
/// submodule uses and FSDP's wrapped blocks both read from it).
class ComputeTimes {
 public:
  explicit ComputeTimes(const Scenario& scenario);
  ComputeTimes(const TransformerShape& shape, const ClusterSpec& cluster, std::optional<double> compute_efficiency);

  /// A submodule use's duration. The embedding and output stages have no recompute pass.
  [[nodiscard]] SimTime duration(ComputeUse use, Pass pass) const { return at(use, pass).duration; }
  /// FLOPs the use's GEMMs and fused attention execute.
  [[nodiscard]] double flops(ComputeUse use, Pass pass) const { return at(use, pass).flops; }
  /// A whole transformer layer (FSDP's wrapped block): its four uses in one pass.
  [[nodiscard]] SimTime block(Pass pass) const;
  /// One iteration's compute: embedding, every layer forward (recomputed when the shape
  /// recomputes) and backward, the output stage both ways.
  [[nodiscard]] SimTime iteration() const;
  /// Seconds per kernel class of one use in one pass (with compute_efficiency: the kernels'
  /// FLOPs at the override rate, memory-bound kernels none).
  [[nodiscard]] std::array<double, kKernelClasses> seconds_by_class(ComputeUse use, Pass pass) const;
  /// The same summed over one layer's passes (forward, recompute if any, backward).
  [[nodiscard]] std::array<double, kKernelClasses> layer_seconds_by_class() const;
  /// Seconds per kernel class of one iteration (iteration()'s uses: every layer's passes, the
  /// embedding and output stages both ways).
  [[nodiscard]] std::array<double, kKernelClasses> iteration_seconds_by_class() const;
  /// Each kernel of a use with its seconds, in launch order.
  [[nodiscard]] std::vector<std::pair<Kernel, double>> timed_kernels(ComputeUse use, Pass pass) const;
  /// True when the compute_efficiency override replaces the kernel model.
  [[nodiscard]] bool overridden() const { return override_rate_.has_value(); }
  [[nodiscard]] const TransformerShape& shape() const { return shape_; }
  /// The kernel model's timing rules for this GPU (tiles, waves, rates).
  [[nodiscard]] const KernelTimer& timer() const { return timer_; }

 private:
  struct Entry {
    SimTime duration;
    double flops = 0;
  };
  [[nodiscard]] const Entry& at(ComputeUse use, Pass pass) const;
  [[nodiscard]] double kernel_seconds(const Kernel& k) const;

  TransformerShape shape_;
  KernelTimer timer_;
  std::optional<double> override_rate_;  ///< e · P when compute_efficiency is given
  std::array<std::array<Entry, kPasses>, kComputeUses> table_{};
};

}  // namespace ckptsim
