#pragma once
// Compute durations of one rank: the single place the engines (deepspeed_zero3.hpp, fsdp.hpp)
// ask how long a use of the GPU takes. Behind it is the kernel compute model
// (kernel_time.hpp, kernels.hpp: GEMM tile and wave quantization, memory-bound kernels over the
// achieved HBM bandwidth, unfused or FlashAttention-2 attention, a launch per kernel), or the
// training.compute_efficiency override that model honours.
//
//   work                         duration
//   a submodule use              ComputeTimes::duration(use, pass): qkv, out, fc1, fc2, the
//                                embedding and the output stage (final LayerNorm, logits, loss)
//   block (FSDP's unit)          ComputeTimes::block(pass): the layer's four uses
//   block, backward_with_recompute  block(recompute) + block(backward): FSDP's non-reentrant
//                                checkpointing recomputes the block inside its backward
//   memory_bound (bytes)         bytes / (e_m · B) + L: one memory-bound kernel (a copy, a cast)
//   timed                        a duration the kernel model already gave (DeepSpeed's step
//                                phases, step_phases.hpp)
// FLOPs: the use's GEMM and fused-attention FLOPs (kernels.hpp); none for the others.
#include <optional>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/kernel_time.hpp"
#include "ckptsim/workload/transformer.hpp"

namespace ckptsim {

enum class ComputePass { forward, recompute, backward, backward_with_recompute, memory_bound, timed };
enum class ComputePart { none, embedding, qkv, attention_out, fc1, fc2, output, block };

struct GpuWork {
  ComputePass pass = ComputePass::forward;
  ComputePart part = ComputePart::none;
  double hbm_bytes = 0;  ///< memory_bound: bytes read plus written
  SimTime time{};        ///< timed: the duration
};

class ComputeModel {
 public:
  ComputeModel() = default;
  /// Memory-bound and timed work only, at `hbm_bandwidth` B/s with no launch overhead (for
  /// hand-worked programs; a transformer use throws std::logic_error).
  explicit ComputeModel(double hbm_bandwidth);
  /// The scenario's kernel model (throws ModelError naming the field a figure is missing from).
  static ComputeModel from(const Scenario& scenario, const TransformerShape& shape);

  [[nodiscard]] double flops(const GpuWork& work) const;  ///< per GPU
  [[nodiscard]] SimTime duration(const GpuWork& work) const;
  /// The timer of memory-bound work (DeepSpeed's step phases are timed with it).
  [[nodiscard]] const KernelTimer& memory_timer() const { return memory_; }

 private:
  [[nodiscard]] const ComputeTimes& times() const;
  std::optional<ComputeTimes> times_;
  KernelTimer memory_;
};

}  // namespace ckptsim
