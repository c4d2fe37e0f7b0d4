// Up-front estimates of the iteration model's memory and flows (iteration_work.hpp).
#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

std::vector<WorkEstimate> estimate_iteration_work(const Scenario& s) {
  std::vector<WorkEstimate> out;
  // Every strategy: the study plans a checkpoint for each (iteration_study.hpp), so a strategy
  // that keeps nothing in memory still plans its chunks (fuzz/fuzz_sweep_limits finding).
  if (s.strategy.gpu_buffer_bytes > 0 && s.strategy.sub_buffers > 0) {
    const double chunk = s.strategy.gpu_buffer_bytes / s.strategy.sub_buffers;
    const int copies = study_holders(s) - 1;
    const double chunks = std::max(0, copies) * s.checkpoint_bytes_per_machine() / chunk;
    out.push_back({"/strategy/gpu_buffer and /strategy/sub_buffers",
                   "planning checkpoint chunks of gpu_buffer / sub_buffers bytes", chunks * 256.0, kMaxMemoryBytes,
                   WorkUnit::bytes, s.source_file,
                   fmt::format("{} and {} (chunks of {} for {} of copies per machine)", format_bytes(s.strategy.gpu_buffer_bytes),
                               s.strategy.sub_buffers, format_bytes(chunk),
                               format_bytes(std::max(0, copies) * s.checkpoint_bytes_per_machine()))});
  }
  // Per sub-buffer state, whatever the chunk count: each scheduler keeps the largest chunk of
  // every sub-buffer (scheduler.cpp) and the simulated plan a copy pipeline per sub-buffer; 64
  // bytes per sub-buffer bounds both (fuzz/fuzz_sweep_limits finding: 2^31 - 1 sub-buffers with
  // no remote copy held 16 GiB).
  if (s.strategy.sub_buffers > 0)
    out.push_back({"/strategy/sub_buffers", "the schedulers' state per sub-buffer (64 bytes each)",
                   64.0 * s.strategy.sub_buffers, kMaxMemoryBytes, WorkUnit::bytes, s.source_file,
                   std::to_string(s.strategy.sub_buffers)});
  // A product of three fields: all three are named, with their values (the one to lower may be any).
  out.push_back({"/model/layers x /cluster/machines x /cluster/gpus_per_machine", "the iteration model's training flows (3 per layer per GPU)",
                 estimate_iteration_flows(s), kMaxIterationFlows, WorkUnit::flows, s.source_file,
                 fmt::format("{} x {} x {}", s.model.layers, s.cluster.machines, s.cluster.gpus_per_machine)});
  out.push_back({"/model/layers", "the engine's program and task graph (about 100 operations per layer, 1 KiB each)",
                 estimate_program_bytes(s), kMaxMemoryBytes, WorkUnit::bytes, s.source_file,
                 fmt::format("{} layers", s.model.layers)});
  return out;
}

double estimate_program_bytes(const Scenario& s) { return 100.0 * 1024.0 * std::max(1, s.model.layers); }

double estimate_iteration_flows(const Scenario& s) {
  return 3.0 * s.model.layers * s.cluster.machines * s.cluster.gpus_per_machine;
}

}  // namespace ckptsim
