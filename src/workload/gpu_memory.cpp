#include "ckptsim/workload/gpu_memory.hpp"


namespace ckptsim {

const char* name_of(MemoryPhase phase) {
  switch (phase) {
    case MemoryPhase::loss: return "loss";
    case MemoryPhase::backward: return "backward";
    case MemoryPhase::optimizer_step: return "optimizer step";
  }
  return "?";
}

GpuMemoryTerm::GpuMemoryTerm(std::string term, double bytes, PhaseSet phases) : name(std::move(term)) {
  for (std::size_t i = 0; i < kMemoryPhases.size(); ++i) {
    if ((phases & phase_bit(kMemoryPhases[i])) != 0) phase_bytes[i] = bytes;
  }
}

double GpuMemory::used_in(MemoryPhase phase) const {
  double sum = 0;
  for (const GpuMemoryTerm& t : terms) sum += t.bytes_in(phase);
  return sum;
}

MemoryPhase GpuMemory::peak_phase() const {
  MemoryPhase peak = kMemoryPhases.front();
  for (MemoryPhase p : kMemoryPhases) {
    if (used_in(p) > used_in(peak)) peak = p;
  }
  return peak;
}

GpuMemory gpu_memory(const Scenario& scenario, const TransformerShape& shape, std::vector<GpuMemoryTerm> engine_terms,
                     int communicators, const ActivationMemory& replay) {
  const double w = shape.word_bytes();
  const double checkpoints = (shape.layers + 1.0) * shape.micro_batch * shape.sequence * shape.hidden * w;
  constexpr PhaseSet kLoss = phase_bit(MemoryPhase::loss);
  constexpr PhaseSet kBackward = phase_bit(MemoryPhase::backward);
  GpuMemory g;
  g.capacity = scenario.cluster.gpu_memory_bytes;
  g.terms = {
      {"CUDA context", kCudaContextBytes, kEveryPhase},
      {"NCCL buffers", communicators * kNcclChannels * 2 * kNcclBufferBytes, kEveryPhase},
  };
  g.terms.insert(g.terms.end(), std::make_move_iterator(engine_terms.begin()), std::make_move_iterator(engine_terms.end()));
  // With recomputation the checkpoints are the layers' inputs; the rest of the activations
  // (the layer being computed, the logits, the gradients flowing back) come from the replay.
  g.terms.emplace_back("activation checkpoints", shape.recompute ? checkpoints : 0.0, kLoss | kBackward);
  GpuMemoryTerm live;
  live.name = "activations besides checkpoints (simulated peak)";
  GpuMemoryTerm overhead;
  overhead.name = "allocator overhead (activations, simulated)";
  for (std::size_t p = 0; p < 2; ++p) {
    live.phase_bytes[p] = replay.activations[p];
    overhead.phase_bytes[p] = replay.overhead[p];
  }
  g.terms.push_back(std::move(live));
  g.terms.push_back(std::move(overhead));
  return g;
}

}  // namespace ckptsim
