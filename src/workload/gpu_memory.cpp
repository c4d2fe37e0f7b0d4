#include "ckptsim/workload/gpu_memory.hpp"

#include <algorithm>

#include "ckptsim/workload/zero3.hpp"

namespace ckptsim {

double GpuMemory::used() const {
  double sum = 0;
  for (const GpuMemoryTerm& t : terms) sum += t.bytes;
  return sum;
}

GpuMemory gpu_memory(const Scenario& scenario, const TransformerShape& shape, double peak_live) {
  const ClusterSpec& c = scenario.cluster;
  const double ranks = static_cast<double>(c.machines) * std::max(1, c.gpus_per_machine);
  const double w = shape.word_bytes();
  const double threshold = scenario.training.zero3.param_persistence_threshold;
  const Zero3Program program = make_zero3_program(shape);
  double persistent = 0;
  double largest_module = 0;
  for (const SubModule& m : program.modules) {
    persistent += m.total() - m.fetched(threshold);
    largest_module = std::max(largest_module, m.total());
  }
  const double working = shape.sequence * shape.micro_batch * shape.hidden *
                         (34.0 + 5.0 * shape.heads * shape.sequence / shape.hidden);
  const double checkpoints =
      shape.recompute ? shape.layers * shape.micro_batch * shape.sequence * shape.hidden * w : shape.layers * working;
  GpuMemory g;
  g.capacity = c.gpu_memory_bytes;
  g.terms = {
      {"model states (16 B x P / n)", 16.0 * shape.parameters() / ranks},
      {"gathered parameters (peak)", peak_live * w},
      {"persistent parameters", persistent * w},
      {"gradient bucket", scenario.training.zero3.reduce_bucket_size * w},
      {"largest module gradient", largest_module * w},
      {"activation checkpoints", checkpoints},
      {"working activations (one layer)", shape.recompute ? working : 0.0},
      {"logits (fp32)", 4.0 * shape.micro_batch * shape.sequence * shape.vocabulary},
      {"CUDA context", kCudaContextBytes},
      {"NCCL buffers", kNcclCommunicators * kNcclChannels * 2 * kNcclBufferBytes},
      {"fragmentation reserve (30%)", kFragmentationFraction * c.gpu_memory_bytes},
  };
  return g;
}

}  // namespace ckptsim
