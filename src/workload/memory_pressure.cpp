#include "ckptsim/workload/memory_pressure.hpp"

namespace ckptsim {

int MemoryPressure::allocate(StreamProgram& p, double bytes) {
  while (live_ + bytes > budget_) {
    // The earliest free already written (frees follow compute order: the smallest op index).
    int earliest = -1;
    for (std::size_t i = 0; i < buffers_.size(); ++i) {
      const Buffer& b = buffers_[i];
      if (!b.live || b.free_op < 0) continue;
      if (earliest < 0 || b.free_op < buffers_[static_cast<std::size_t>(earliest)].free_op) earliest = static_cast<int>(i);
    }
    if (earliest < 0) break;  // nothing the host could wait for: over the budget
    Buffer& b = buffers_[static_cast<std::size_t>(earliest)];
    p.host_wait(b.free_op, Cause::host_sync);
    b.live = false;
    live_ -= b.bytes;
  }
  buffers_.push_back({bytes, -1, true});
  live_ += bytes;
  return static_cast<int>(buffers_.size()) - 1;
}

void MemoryPressure::frees_at(int id, int free_op) { buffers_.at(static_cast<std::size_t>(id)).free_op = free_op; }

}  // namespace ckptsim
