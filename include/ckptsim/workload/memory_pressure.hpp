#pragma once
// The caching allocator under memory pressure, as the engines' host code meets it: a buffer is
// allocated when the host asks for it (an all-gather's output), long before the GPU uses it, and
// freed when the GPU is done. When the device is full, PyTorch's CUDA caching allocator
// synchronizes on the pending frees and retries (c10/cuda/CUDACachingAllocator.cpp: after a
// failed cudaMalloc, synchronize_and_free_events() then release_cached_blocks()), so the host
// waits for the GPU to free the earliest buffers. Without it, a host running ahead of a compute-
// bound GPU would hold every gathered parameter at once. DeepSpeed names this pressure in
// stage3.py (v0.7.3) where it counts "pytorch allocator cache flushes since last step".
//
// Budget: the bytes left for these buffers beside everything else the model holds
// (iteration_model.cpp: capacity minus the other terms' peak). Before allocating b bytes with
// `live` outstanding, while live + b > budget the host waits for the earliest free whose
// operation exists already (host order) and counts it released; buffers whose freeing operation
// the host has not written yet cannot help, and the allocation goes over the budget (the memory
// verdict then reports it). Complexity: O(log B) per buffer.
#include <functional>
#include <limits>
#include <queue>
#include <utility>
#include <vector>

#include "ckptsim/workload/stream_program.hpp"

namespace ckptsim {

class MemoryPressure {
 public:
  explicit MemoryPressure(double budget = std::numeric_limits<double>::infinity()) : budget_(budget) {}
  /// Waits (host operations on `p`) until `bytes` fit; returns the buffer's id.
  int allocate(StreamProgram& p, double bytes);
  /// Buffer `id` is freed at the end of operation `free_op` (already in the program).
  void frees_at(int id, int free_op);

 private:
  double budget_;
  double live_ = 0;
  std::vector<double> bytes_;  ///< per buffer
  /// Buffers whose freeing operation is known, earliest first: (free_op, id).
  std::priority_queue<std::pair<int, int>, std::vector<std::pair<int, int>>, std::greater<>> known_;
};

}  // namespace ckptsim
