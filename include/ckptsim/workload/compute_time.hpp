#pragma once
// Compute durations of one rank: the single place the engines (deepspeed_zero3.hpp, fsdp.hpp)
// ask how long a use of the GPU takes, so that the compute model behind it can change without
// touching them.
//
// Uses (T = b·s tokens per rank, h hidden, f FFN width, V vocabulary, s sequence; a
// multiply-add = 2 FLOPs; Narayanan et al., SC '21, Section 5.1):
//   part           forward FLOPs
//   embedding      0 (a lookup)
//   qkv            6·T·h²
//   attention_out  2·T·h² + 4·T·s·h   (the output projection, with QKᵀ and the weighted sum)
//   fc1, fc2       2·T·h·f each
//   output         2·T·h·V            (logits against the tied embedding)
//   block          the four layer parts together (FSDP's unit: one transformer block)
// A backward pass costs twice its forward, a recomputed forward once; the FSDP block's backward
// with activation recomputation is one forward plus the backward (3x).
// duration = FLOPs / (gpu_peak_flops x training.compute_efficiency), rounded up to the ns.
// Memory-bound work (the optimizer step) is given as HBM bytes: duration = bytes / HBM bandwidth.
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/transformer.hpp"

namespace ckptsim {

enum class ComputePass { forward, recompute, backward, backward_with_recompute, memory_bound };
enum class ComputePart { none, embedding, qkv, attention_out, fc1, fc2, output, block };

struct GpuWork {
  ComputePass pass = ComputePass::forward;
  ComputePart part = ComputePart::none;
  double hbm_bytes = 0;  ///< memory_bound: bytes read plus written
};

class ComputeModel {
 public:
  ComputeModel() = default;
  ComputeModel(const TransformerShape& shape, double flop_rate, double hbm_bandwidth)
      : shape_(shape), flop_rate_(flop_rate), hbm_bandwidth_(hbm_bandwidth) {}
  /// From the scenario's cluster and training (throws ModelError when a rate is missing).
  static ComputeModel from(const Scenario& scenario, const TransformerShape& shape);

  [[nodiscard]] double flops(const GpuWork& use) const;       ///< per GPU
  [[nodiscard]] SimTime duration(const GpuWork& use) const;
  [[nodiscard]] double flop_rate() const { return flop_rate_; }  ///< FLOP/s achieved
  [[nodiscard]] double hbm_bandwidth() const { return hbm_bandwidth_; }
  [[nodiscard]] const TransformerShape& shape() const { return shape_; }

 private:
  [[nodiscard]] double forward_flops(ComputePart part) const;
  TransformerShape shape_;
  double flop_rate_ = 0;
  double hbm_bandwidth_ = 0;
};

}  // namespace ckptsim
