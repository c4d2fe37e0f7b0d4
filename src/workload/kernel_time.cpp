// The kernel compute model's timing rules and per-use table (kernel_time.hpp).
#include "ckptsim/workload/kernel_time.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"

namespace ckptsim {
namespace {

constexpr const char* kReplace = "; or give /training/compute_efficiency to replace the kernel model";

void need_fraction(double value, const std::string& pointer, const std::string& what) {
  if (!(value > 0 && value <= 1))
    throw ModelError(pointer, "the kernel model needs " + what +
                                  " in (0, 1]: give /cluster/gpu (a GPU type, see `ckptsim list gpus`) or " + pointer +
                                  kReplace);
}

/// Seconds to SimTime for one use, refused when it leaves the clock.
SimTime use_time(double seconds, ComputeUse use, Pass pass) {
  return checked_seconds(seconds, "/model",
                         std::string("the ") + to_string(use) + " " + to_string(pass) + " compute time");
}

/// The smallest inner depth in the per-shape sweeps K0 is fitted to (802816 x 192 x 768, in the
/// A100, H100 and H200 sweeps alike; scripts/fit-gemm-depth): below it d(k) is held at d(768)
/// rather than extrapolated (cuBLAS changes its kernels for very shallow GEMMs).
constexpr double kSmallestSweptDepth = 768;

}  // namespace

KernelTimer KernelTimer::from(const ClusterSpec& c, AttentionKind attention) {
  KernelTimer t = memory_only(c);
  const GpuKernelSpec& k = c.kernels;
  if (k.sms < 1)
    throw ModelError("/cluster/gpu_sms", std::string("the kernel model needs the GPU's SM count (the GEMM wave size): give "
                                                     "/cluster/gpu (a GPU type, see `ckptsim list gpus`) or "
                                                     "/cluster/gpu_sms") +
                                             kReplace);
  need_fraction(k.gemm_efficiency, "/cluster/gpu_gemm_efficiency", "the GPU's GEMM efficiency");
  need_fraction(k.memory_efficiency, "/cluster/gpu_memory_efficiency", "the GPU's memory efficiency");
  if (k.tile_m < 1 || k.tile_n < 1) throw std::logic_error("KernelTimer: GEMM tiles must be at least 1 x 1");
  t.sms_ = k.sms;
  t.tile_m_ = k.tile_m;
  t.tile_n_ = k.tile_n;
  t.gemm_rate_ = k.gemm_efficiency * c.gpu_peak_flops;
  if (k.gemm_depth_overhead) {
    if (!(*k.gemm_depth_overhead >= 0))
      throw ModelError("/cluster/gpu_gemm_depth_overhead", "must be at least 0 (elements of GEMM inner depth)");
    if (!k.gemm_reference_depth || !(*k.gemm_reference_depth >= 1))
      throw ModelError("/cluster/gpu_gemm_reference_depth",
                       "the GEMM depth overhead needs the inner depth k of the shape gpu_gemm_efficiency was "
                       "measured at (at least 1): give /cluster/gpu_gemm_reference_depth or drop "
                       "/cluster/gpu_gemm_depth_overhead");
    t.depth_overhead_ = *k.gemm_depth_overhead;
    t.reference_depth_ = *k.gemm_reference_depth;
  }
  if (attention == AttentionKind::flash) {
    if (!k.flash_efficiency)
      throw ModelError("/training/attention",
                       "\"flash\" needs the GPU's FlashAttention-2 efficiency, and " +
                           (c.gpu.empty() ? std::string("no GPU type is given")
                                          : "GPU type \"" + c.gpu + "\" has no published figure") +
                           ": give /cluster/gpu_flash_attention_efficiency or use \"unfused\"");
    need_fraction(*k.flash_efficiency, "/cluster/gpu_flash_attention_efficiency",
                  "the GPU's FlashAttention-2 efficiency");
    t.flash_rate_ = *k.flash_efficiency * c.gpu_peak_flops;
  }
  return t;
}

KernelTimer KernelTimer::memory_only(const ClusterSpec& c) {
  if (!(c.gpu_peak_flops > 0))
    throw ModelError("/cluster/gpu_peak_flops", "the iteration model needs a positive GPU peak FLOP rate");
  if (!(c.gpu_memory_bandwidth > 0))
    throw ModelError("/cluster/gpu_memory_bandwidth", "the iteration model needs the GPU memory bandwidth");
  KernelTimer t;
  t.peak_ = c.gpu_peak_flops;
  const double e = c.kernels.memory_efficiency;
  t.bandwidth_ = (e > 0 && e <= 1 ? e : 1.0) * c.gpu_memory_bandwidth;
  t.launch_ = c.kernels.launch_overhead.seconds();
  t.gemm_rate_ = c.gpu_peak_flops;
  return t;
}

double KernelTimer::gemm_waves(double m, double n, double batch) const {
  const double tiles = std::ceil(m / tile_m_) * std::ceil(n / tile_n_) * batch;
  return std::ceil(tiles / sms_);
}

double KernelTimer::gemm_depth_factor(double k) const {
  if (depth_overhead_ == 0 || !(k > 0)) return 1;
  const double depth = k > kSmallestSweptDepth ? k : kSmallestSweptDepth;
  const double d = depth / (depth + depth_overhead_) * (reference_depth_ + depth_overhead_) / reference_depth_;
  return d < 1 ? d : 1;
}

double KernelTimer::gemm_seconds(double m, double n, double k, double batch) const {
  const double tile = 2 * tile_m_ * tile_n_ * k / (gemm_rate_ * gemm_depth_factor(k) / sms_);
  return gemm_waves(m, n, batch) * tile + launch_;
}

double KernelTimer::memory_seconds(double bytes) const { return bytes_seconds(bytes) + launch_; }

double KernelTimer::bytes_seconds(double bytes) const { return bytes / bandwidth_; }

double KernelTimer::flash_seconds(double flops) const {
  if (!(flash_rate_ > 0)) throw std::logic_error("KernelTimer: a fused attention kernel without a flash figure");
  return flops / flash_rate_ + launch_;
}

double KernelTimer::seconds(const Kernel& k) const {
  switch (k.bound) {
    case KernelBound::gemm: return gemm_seconds(k.m, k.n, k.k, k.batch);
    case KernelBound::memory: return memory_seconds(k.bytes);
    case KernelBound::fused_attention: return flash_seconds(k.flops);
  }
  return 0;
}

ComputeTimes::ComputeTimes(const Scenario& scenario)
    : ComputeTimes(TransformerShape::from(scenario), scenario.cluster, scenario.training.compute_efficiency) {}

ComputeTimes::ComputeTimes(const TransformerShape& shape, const ClusterSpec& cluster,
                           std::optional<double> compute_efficiency)
    : shape_(shape) {
  if (compute_efficiency) {
    if (!(*compute_efficiency > 0 && *compute_efficiency <= 1))
      throw ModelError("/training/compute_efficiency", "must be in (0, 1]");
    timer_ = KernelTimer::memory_only(cluster);
    override_rate_ = *compute_efficiency * cluster.gpu_peak_flops;
  } else {
    timer_ = KernelTimer::from(cluster, shape.attention);
  }
  for (int u = 0; u < kComputeUses; ++u) {
    const auto use = static_cast<ComputeUse>(u);
    for (int p = 0; p < kPasses; ++p) {
      const auto pass = static_cast<Pass>(p);
      if (pass == Pass::recompute && (use == ComputeUse::embedding || use == ComputeUse::output)) continue;
      double seconds = 0;
      Entry& e = table_[static_cast<std::size_t>(u)][static_cast<std::size_t>(p)];
      for (const Kernel& k : use_kernels(shape_, use, pass)) {
        seconds += kernel_seconds(k);
        e.flops += k.flops;
      }
      e.duration = use_time(seconds, use, pass);
    }
  }
}

double ComputeTimes::kernel_seconds(const Kernel& k) const {
  if (override_rate_) return k.flops / *override_rate_;
  return timer_.seconds(k);
}

const ComputeTimes::Entry& ComputeTimes::at(ComputeUse use, Pass pass) const {
  if (pass == Pass::recompute && (use == ComputeUse::embedding || use == ComputeUse::output))
    throw std::logic_error("ComputeTimes: the embedding and output stages are not recomputed");
  return table_[static_cast<std::size_t>(use)][static_cast<std::size_t>(pass)];
}

SimTime ComputeTimes::block(Pass pass) const {
  SimTime t;
  for (ComputeUse use : kLayerUses) t += duration(use, pass);
  return t;
}

SimTime ComputeTimes::iteration() const {
  SimTime layer = block(Pass::forward) + block(Pass::backward);
  if (shape_.recompute) layer += block(Pass::recompute);
  const SimTime layers = checked_multiply(layer, shape_.layers, "/model/layers", "one iteration's compute time");
  SimTime ends = duration(ComputeUse::embedding, Pass::forward) + duration(ComputeUse::output, Pass::forward) +
                 duration(ComputeUse::output, Pass::backward) + duration(ComputeUse::embedding, Pass::backward);
  return checked_add(layers, ends, "/model/layers", "one iteration's compute time");
}

std::array<double, kKernelClasses> ComputeTimes::seconds_by_class(ComputeUse use, Pass pass) const {
  std::array<double, kKernelClasses> out{};
  for (const Kernel& k : use_kernels(shape_, use, pass)) out[static_cast<std::size_t>(k.group)] += kernel_seconds(k);
  return out;
}

std::array<double, kKernelClasses> ComputeTimes::layer_seconds_by_class() const {
  std::array<double, kKernelClasses> out{};
  for (Pass pass : {Pass::forward, Pass::recompute, Pass::backward}) {
    if (pass == Pass::recompute && !shape_.recompute) continue;
    for (ComputeUse use : kLayerUses) {
      const auto part = seconds_by_class(use, pass);
      for (std::size_t c = 0; c < out.size(); ++c) out[c] += part[c];
    }
  }
  return out;
}

std::array<double, kKernelClasses> ComputeTimes::iteration_seconds_by_class() const {
  std::array<double, kKernelClasses> out = layer_seconds_by_class();
  for (double& s : out) s *= shape_.layers;
  for (ComputeUse use : {ComputeUse::embedding, ComputeUse::output}) {
    for (Pass pass : {Pass::forward, Pass::backward}) {
      const auto part = seconds_by_class(use, pass);
      for (std::size_t c = 0; c < out.size(); ++c) out[c] += part[c];
    }
  }
  return out;
}

std::vector<std::pair<Kernel, double>> ComputeTimes::timed_kernels(ComputeUse use, Pass pass) const {
  std::vector<std::pair<Kernel, double>> out;
  for (const Kernel& k : use_kernels(shape_, use, pass)) out.emplace_back(k, kernel_seconds(k));
  return out;
}

}  // namespace ckptsim
