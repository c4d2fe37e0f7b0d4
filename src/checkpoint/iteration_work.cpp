// Up-front estimates of the iteration model's memory and flows (iteration_work.hpp).
#include "ckptsim/checkpoint/iteration_work.hpp"

#include <algorithm>

namespace ckptsim {

std::vector<WorkEstimate> estimate_iteration_work(const Scenario& s) {
  std::vector<WorkEstimate> out;
  const bool in_memory = keeps_checkpoints_in_memory(s.strategy.kind);
  if (in_memory && s.strategy.gpu_buffer_bytes > 0 && s.strategy.sub_buffers > 0) {
    const double chunk = s.strategy.gpu_buffer_bytes / s.strategy.sub_buffers;
    const int copies = s.strategy.kind == StrategyKind::erasure_coded ? s.strategy.parity : s.strategy.replicas - 1;
    const double chunks = std::max(0, copies) * s.checkpoint_bytes_per_machine() / chunk;
    out.push_back({"/strategy/gpu_buffer and /strategy/sub_buffers",
                   "planning checkpoint chunks of gpu_buffer / sub_buffers bytes", chunks * 256.0, kMaxMemoryBytes,
                   "bytes"});
  }
  out.push_back({"/cluster/machines", "the iteration model's training flows", estimate_iteration_flows(s),
                 kMaxIterationFlows, "flows"});
  out.push_back({"/model/layers", "the engine's program and task graph (about 100 operations per layer, 1 KiB each)",
                 estimate_program_bytes(s), kMaxMemoryBytes, "bytes"});
  return out;
}

double estimate_program_bytes(const Scenario& s) { return 100.0 * 1024.0 * std::max(1, s.model.layers); }

double estimate_iteration_flows(const Scenario& s) {
  return 3.0 * s.model.layers * s.cluster.machines * s.cluster.gpus_per_machine;
}

}  // namespace ckptsim
