#include "ckptsim/workload/compute_time.hpp"

#include "ckptsim/core/error.hpp"

namespace ckptsim {

ComputeModel ComputeModel::from(const Scenario& scenario, const TransformerShape& shape) {
  const ClusterSpec& c = scenario.cluster;
  if (c.gpu_peak_flops <= 0) throw ModelError("/cluster/gpu_peak_flops", "the iteration model needs a positive GPU peak FLOP rate");
  if (c.gpu_memory_bandwidth <= 0) {
    throw ModelError("/cluster/gpu_memory_bandwidth", "the iteration model needs the GPU memory bandwidth (optimizer step, copies)");
  }
  if (scenario.training.compute_efficiency <= 0 || scenario.training.compute_efficiency > 1) {
    throw ModelError("/training/compute_efficiency", "must be in (0, 1]");
  }
  return {shape, c.gpu_peak_flops * scenario.training.compute_efficiency, c.gpu_memory_bandwidth};
}

double ComputeModel::forward_flops(ComputePart part) const {
  const double h = shape_.hidden;
  const double f = shape_.ffn;
  const double t = shape_.micro_batch * shape_.sequence;
  switch (part) {
    case ComputePart::none:
    case ComputePart::embedding: return 0;
    case ComputePart::qkv: return 6 * t * h * h;
    case ComputePart::attention_out: return 2 * t * h * h + 4 * t * shape_.sequence * h;
    case ComputePart::fc1:
    case ComputePart::fc2: return 2 * t * h * f;
    case ComputePart::output: return 2 * t * h * shape_.vocabulary;
    case ComputePart::block:
      return forward_flops(ComputePart::qkv) + forward_flops(ComputePart::attention_out) + 2 * forward_flops(ComputePart::fc1);
  }
  return 0;
}

double ComputeModel::flops(const GpuWork& use) const {
  const double forward = forward_flops(use.part);
  switch (use.pass) {
    case ComputePass::forward:
    case ComputePass::recompute: return forward;
    case ComputePass::backward: return 2 * forward;
    case ComputePass::backward_with_recompute: return 3 * forward;
    case ComputePass::memory_bound: return 0;
  }
  return 0;
}

SimTime ComputeModel::duration(const GpuWork& use) const {
  if (use.pass == ComputePass::memory_bound) return use.hbm_bytes > 0 ? transfer_time(use.hbm_bytes, hbm_bandwidth_) : SimTime::zero();
  const double work = flops(use);
  return work > 0 ? transfer_time(work, flop_rate_) : SimTime::zero();
}

}  // namespace ckptsim
