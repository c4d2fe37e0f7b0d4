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
  for (WorkEstimate& e : parallelism_model(s.training.parallelism).work(s)) out.push_back(std::move(e));
  return out;
}

}  // namespace ckptsim
