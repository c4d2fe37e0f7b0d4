#pragma once
// GPU memory per rank: the terms every engine shares, the engine's own terms
// (deepspeed_zero3.hpp, fsdp.hpp) and the peaks of its simulated buffers, in bytes per GPU and
// per phase of the iteration in which they are allocated. The peak is the largest phase total,
// not the sum of every term. Sources also in docs/references.md, "GPU memory terms".
//
//   phase: L = loss (end of forward), B = backward, S = optimizer step
//   CUDA context        LBS 781 MB measured by nvidia-smi for a PyTorch process that only
//                       initialised CUDA (https://github.com/pytorch/pytorch/issues/34323)
//   NCCL buffers        LBS communicators x channels x 2 ring neighbours x NCCL_BUFFSIZE (4 MiB
//                       default, NCCL environment variables,
//                       https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html);
//                       channels: kNcclChannels (an assumption: NCCL picks the count at run
//                       time); communicators: the engine's process groups
//   activation ckpts    LB  with recomputation, each layer's input and the last layer's output:
//                       (L + 1)·b·s·h·w
//   activations besides LB  the peak of the other live activations in each phase, from the
//   checkpoints             compute stream's allocation sequence (caching_allocator.hpp): one
//                       layer's tensors (Korthikanti et al., "Reducing Activation Recomputation
//                       in Large Transformer Models", MLSys '23, Section 4.1: 34·s·b·h + 5·a·s²·b
//                       bytes at 16 bits, https://arxiv.org/abs/2205.05198) while it is
//                       recomputed and differentiated, the logits (16-bit and fp32, 6·b·s·V) and
//                       the gradients flowing back; without recomputation every layer's tensors
//   allocator overhead  LB  what PyTorch's caching allocator reserves beyond the live tensors at
//                       its peak when that sequence (with the engine's parameter gradients) goes
//                       through its rules (caching_allocator.hpp)
// used = the largest phase total; free = capacity - used (negative: the model does not fit).
// w = 2 bytes (mixed precision) or 4.
#include <array>
#include <string>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/caching_allocator.hpp"
#include "ckptsim/workload/transformer.hpp"

namespace ckptsim {

inline constexpr double kCudaContextBytes = 781e6;
inline constexpr double kNcclBufferBytes = 4.0 * 1024 * 1024;
inline constexpr int kNcclChannels = 8;

/// The phases of an iteration whose allocations differ (see the header comment).
enum class MemoryPhase { loss, backward, optimizer_step };
inline constexpr std::array<MemoryPhase, 3> kMemoryPhases = {MemoryPhase::loss, MemoryPhase::backward,
                                                              MemoryPhase::optimizer_step};
const char* name_of(MemoryPhase phase);

/// Bit set of phases: bit i = kMemoryPhases[i].
using PhaseSet = unsigned;
inline constexpr PhaseSet phase_bit(MemoryPhase p) { return 1U << static_cast<unsigned>(p); }
inline constexpr PhaseSet kEveryPhase =
    phase_bit(MemoryPhase::loss) | phase_bit(MemoryPhase::backward) | phase_bit(MemoryPhase::optimizer_step);

struct GpuMemoryTerm {
  std::string name;
  std::array<double, 3> phase_bytes{};  ///< by kMemoryPhases index; 0: not allocated then
  GpuMemoryTerm() = default;
  /// `bytes` in every phase of `phases`.
  GpuMemoryTerm(std::string term, double bytes, PhaseSet phases);
  [[nodiscard]] bool in(MemoryPhase p) const { return phase_bytes[static_cast<std::size_t>(p)] > 0; }
  [[nodiscard]] double bytes_in(MemoryPhase p) const { return phase_bytes[static_cast<std::size_t>(p)]; }
};

struct GpuMemory {
  double capacity = 0;
  std::vector<GpuMemoryTerm> terms;  ///< every term above, in order
  [[nodiscard]] double used_in(MemoryPhase phase) const;  ///< the terms allocated in that phase
  [[nodiscard]] MemoryPhase peak_phase() const;            ///< the first phase of largest total
  [[nodiscard]] double used() const { return used_in(peak_phase()); }
  [[nodiscard]] double free() const { return capacity - used(); }
};

/// The breakdown for the scenario's model and cluster: the shared terms, then `engine_terms`
/// (the engine's fixed terms and its buffers' peaks per phase); `communicators` sizes the NCCL
/// buffers; `activations` is the compute stream's replay (caching_allocator.hpp, with the
/// engine's parameter gradients).
GpuMemory gpu_memory(const Scenario& scenario, const TransformerShape& shape, std::vector<GpuMemoryTerm> engine_terms,
                     int communicators, const ActivationMemory& activations);

}  // namespace ckptsim
