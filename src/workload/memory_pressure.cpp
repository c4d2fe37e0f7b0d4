#include "ckptsim/workload/memory_pressure.hpp"

namespace ckptsim {

int MemoryPressure::allocate(StreamProgram& p, double bytes) {
  // The earliest free already written (frees follow compute order: the smallest op index).
  while (live_ + bytes > budget_ && !known_.empty()) {
    const auto [free_op, id] = known_.top();
    known_.pop();
    p.host_wait(free_op, Cause::host_sync);
    live_ -= bytes_[static_cast<std::size_t>(id)];
  }
  bytes_.push_back(bytes);
  live_ += bytes;
  return static_cast<int>(bytes_.size()) - 1;
}

void MemoryPressure::frees_at(int id, int free_op) { known_.emplace(free_op, id); }

}  // namespace ckptsim
