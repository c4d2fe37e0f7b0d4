#include "ckptsim/workload/compute_time.hpp"

#include <stdexcept>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/workload/kernels.hpp"

namespace ckptsim {
namespace {

ComputeUse use_of(ComputePart part) {
  switch (part) {
    case ComputePart::embedding: return ComputeUse::embedding;
    case ComputePart::qkv: return ComputeUse::qkv;
    case ComputePart::attention_out: return ComputeUse::out;
    case ComputePart::fc1: return ComputeUse::fc1;
    case ComputePart::fc2: return ComputeUse::fc2;
    case ComputePart::output: return ComputeUse::output;
    case ComputePart::none:
    case ComputePart::block: break;
  }
  throw std::logic_error("ComputeModel: no single use for this part");
}

Pass pass_of(ComputePass pass) {
  switch (pass) {
    case ComputePass::forward: return Pass::forward;
    case ComputePass::recompute: return Pass::recompute;
    case ComputePass::backward: return Pass::backward;
    case ComputePass::backward_with_recompute:
    case ComputePass::memory_bound:
    case ComputePass::timed: break;
  }
  throw std::logic_error("ComputeModel: no single pass for this work");
}

/// The block's FLOPs in one pass: its four uses.
double block_flops(const ComputeTimes& t, Pass pass) {
  double f = 0;
  for (ComputeUse u : kLayerUses) f += t.flops(u, pass);
  return f;
}

}  // namespace

ComputeModel::ComputeModel(double hbm_bandwidth) {
  ClusterSpec c;
  c.gpu_peak_flops = 1;  // unused: memory-bound work only
  c.gpu_memory_bandwidth = hbm_bandwidth;
  memory_ = KernelTimer::memory_only(c);
}

ComputeModel ComputeModel::from(const Scenario& scenario, const TransformerShape& shape) {
  ComputeModel m;
  m.times_.emplace(shape, scenario.cluster, scenario.training.compute_efficiency);
  m.memory_ = KernelTimer::memory_only(scenario.cluster);
  return m;
}

const ComputeTimes& ComputeModel::times() const {
  if (!times_) throw std::logic_error("ComputeModel: a transformer use on a memory-only model");
  return *times_;
}

double ComputeModel::flops(const GpuWork& work) const {
  switch (work.pass) {
    case ComputePass::memory_bound:
    case ComputePass::timed: return 0;
    case ComputePass::backward_with_recompute:
      return block_flops(times(), Pass::recompute) + block_flops(times(), Pass::backward);
    case ComputePass::forward:
    case ComputePass::recompute:
    case ComputePass::backward: break;
  }
  if (work.part == ComputePart::none) return 0;
  if (work.part == ComputePart::block) return block_flops(times(), pass_of(work.pass));
  return times().flops(use_of(work.part), pass_of(work.pass));
}

SimTime ComputeModel::duration(const GpuWork& work) const {
  switch (work.pass) {
    case ComputePass::timed: return work.time;
    case ComputePass::memory_bound:
      return work.hbm_bytes > 0
                 ? checked_seconds(memory_.memory_seconds(work.hbm_bytes), "/model/parameters", "a memory-bound kernel")
                 : SimTime::zero();
    case ComputePass::backward_with_recompute: return times().block(Pass::recompute) + times().block(Pass::backward);
    case ComputePass::forward:
    case ComputePass::recompute:
    case ComputePass::backward: break;
  }
  if (work.part == ComputePart::none) return SimTime::zero();
  if (work.part == ComputePart::block) return times().block(pass_of(work.pass));
  return times().duration(use_of(work.part), pass_of(work.pass));
}

}  // namespace ckptsim
