#include "ckptsim/workload/gpu_memory.hpp"

#include <algorithm>

#include "ckptsim/workload/zero3.hpp"

namespace ckptsim {

const char* name_of(MemoryPhase phase) {
  switch (phase) {
    case MemoryPhase::loss: return "loss";
    case MemoryPhase::backward: return "backward";
    case MemoryPhase::optimizer_step: return "optimizer step";
  }
  return "?";
}

double GpuMemory::used_in(MemoryPhase phase) const {
  double sum = 0;
  for (const GpuMemoryTerm& t : terms) {
    if (t.in(phase)) sum += t.bytes;
  }
  return sum;
}

MemoryPhase GpuMemory::peak_phase() const {
  MemoryPhase peak = kMemoryPhases.front();
  for (MemoryPhase p : kMemoryPhases) {
    if (used_in(p) > used_in(peak)) peak = p;
  }
  return peak;
}

namespace {

constexpr PhaseSet kLoss = phase_bit(MemoryPhase::loss);
constexpr PhaseSet kBackward = phase_bit(MemoryPhase::backward);
constexpr PhaseSet kStep = phase_bit(MemoryPhase::optimizer_step);

struct ModuleSizes {
  double persistent = 0;      ///< elements kept whole on every rank
  double largest_module = 0;  ///< elements of the largest submodule
};

ModuleSizes module_sizes(const TransformerShape& shape, double persistence_threshold) {
  ModuleSizes sizes;
  for (const SubModule& m : make_zero3_program(shape).modules) {
    sizes.persistent += m.total() - m.fetched(persistence_threshold);
    sizes.largest_module = std::max(sizes.largest_module, m.total());
  }
  return sizes;
}

}  // namespace

GpuMemory gpu_memory(const Scenario& scenario, const TransformerShape& shape, double peak_live) {
  const ClusterSpec& c = scenario.cluster;
  const Zero3Spec& z = scenario.training.zero3;
  const double ranks = static_cast<double>(c.machines) * std::max(1, c.gpus_per_machine);
  const double w = shape.word_bytes();
  const double p = shape.parameters();
  const ModuleSizes sizes = module_sizes(shape, z.param_persistence_threshold);
  const double working = shape.sequence * shape.micro_batch * shape.hidden *
                         (34.0 + 5.0 * shape.heads * shape.sequence / shape.hidden);
  const double checkpoints =
      shape.recompute ? shape.layers * shape.micro_batch * shape.sequence * shape.hidden * w : shape.layers * working;
  const double fp32_conversion = w == 4.0 ? 0.0 : 4.0;
  GpuMemory g;
  g.capacity = c.gpu_memory_bytes;
  g.terms = {
      {"model states (16 B x P / n)", 16.0 * p / ranks, kEveryPhase},
      {"persistent parameters", sizes.persistent * w, kEveryPhase},
      {"gradient bucket", z.reduce_bucket_size * w, kEveryPhase},
      {"CUDA context", kCudaContextBytes, kEveryPhase},
      {"NCCL buffers", kNcclCommunicators * kNcclChannels * 2 * kNcclBufferBytes, kEveryPhase},
      {"fragmentation reserve (30%)", kFragmentationFraction * c.gpu_memory_bytes, kEveryPhase},
      {"gathered parameters (peak)", peak_live * w, kLoss | kBackward},
      {"activation checkpoints", checkpoints, kLoss | kBackward},
      {"logits (fp32)", 4.0 * shape.micro_batch * shape.sequence * shape.vocabulary, kLoss},
      {"working activations (one layer)", shape.recompute ? working : 0.0, kBackward},
      {"largest module gradient", sizes.largest_module * w, kBackward},
      {"reduce-scatter copy", std::min(z.reduce_bucket_size, p) * w, kBackward},
      {"fp32 gradient (sub-group)", std::min(z.sub_group_size, p / ranks) * (w + fp32_conversion), kStep},
  };
  return g;
}

}  // namespace ckptsim
