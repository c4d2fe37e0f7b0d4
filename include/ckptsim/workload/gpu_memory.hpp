#pragma once
// GPU memory per rank of ZeRO-3 training as DeepSpeed 0.7.3 runs it: every term, its source
// (URLs also in docs/references.md, "GPU memory terms"), in bytes per GPU, and the phases of an
// iteration in which it is allocated. The peak is the largest phase total, not the sum of every
// term: the loss's logits are freed before the first reduce-scatter starts, and activations and
// gathered parameters are freed before the optimizer step.
//
//   phase: L = loss (end of forward), B = backward, S = optimizer step
//   model states        LBS 16·P/n: fp16 parameter and gradient partitions (2 + 2) and Adam's
//                       fp32 master, exp_avg, exp_avg_sq (12) (Rajbhandari et al., "ZeRO",
//                       SC '20, Section 3.1, https://arxiv.org/abs/1910.02054)
//   persistent params   LBS w x every tensor of at most stage3_param_persistence_threshold
//                       elements (kept whole on every rank)
//   gradient bucket     LBS w x reduce_bucket_size: stage3.py allocates this flat buffer when the
//                       optimizer is built, with contiguous_gradients (the default) (DeepSpeed
//                       v0.7.3 stage3.py,
//                       https://github.com/microsoft/DeepSpeed/blob/v0.7.3/deepspeed/runtime/zero/stage3.py)
//   CUDA context        LBS 781 MB measured by nvidia-smi for a PyTorch process that only
//                       initialised CUDA (https://github.com/pytorch/pytorch/issues/34323)
//   NCCL buffers        LBS 3 communicators (default, all-gather, reduce-scatter) x channels x 2
//                       ring neighbours x NCCL_BUFFSIZE (4 MiB default, NCCL environment
//                       variables, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html);
//                       channels: kNcclChannels (an assumption: NCCL picks the count at run time)
//   fragmentation       LBS ZeRO reports running out of memory "with over 30% of memory still
//                       available" from fragmentation (SC '20, Section 3.2): 30% of the GPU's
//                       memory is taken as unusable
//   gathered parameters LB  w x the most non-persistent elements gathered at once, from the
//                       fetch/prefetch/release schedule (zero3_schedule.hpp; bounded by
//                       stage3_max_live_parameters plus the module in use)
//   activation ckpts    LB  with recomputation, each layer's input: L·b·s·h·w; without, L x the
//                       working set below
//   logits              L   fp32 logits for the loss, 4·b·s·V
//   working activations B   one layer's forward activations during its backward, 16-bit:
//                       s·b·h·(34 + 5·a·s/h) (Korthikanti et al., "Reducing Activation
//                       Recomputation in Large Transformer Models", MLSys '23, Eq. 1,
//                       https://arxiv.org/abs/2205.05198)
//   module gradient     B   w x the largest module's elements: its full gradient exists before
//                       it is copied into the bucket
//   reduce-scatter copy B   w x min(reduce_bucket_size, P): reduce_scatter_coalesced concatenates
//                       the bucket's padded partitions into a new flat tensor (torch.cat) while
//                       backward goes on (DeepSpeed v0.7.3 runtime/comm/coalesced_collectives.py)
//   fp32 gradient       S   (w + 4) x min(sub_group_size, P/n): _prepare_fp32_grad_for_sub_group
//                       flattens the sub-group's gradient partition (w bytes) and converts it to
//                       fp32 (4 bytes; no copy when w = 4) for Adam (DeepSpeed v0.7.3 stage3.py)
// used = the largest phase total; free = capacity - used (negative: the model does not fit).
// w = 2 bytes (mixed precision) or 4.
#include <array>
#include <string>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/transformer.hpp"
#include "ckptsim/workload/zero3_schedule.hpp"

namespace ckptsim {

inline constexpr double kCudaContextBytes = 781e6;
inline constexpr double kNcclBufferBytes = 4.0 * 1024 * 1024;
inline constexpr int kNcclChannels = 8;
inline constexpr int kNcclCommunicators = 3;
inline constexpr double kFragmentationFraction = 0.30;

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
  double bytes = 0;
  PhaseSet phases = kEveryPhase;  ///< the phases in which it is allocated
  [[nodiscard]] bool in(MemoryPhase p) const { return (phases & phase_bit(p)) != 0; }
};

struct GpuMemory {
  double capacity = 0;
  std::vector<GpuMemoryTerm> terms;  ///< every term above, fragmentation included, in order
  [[nodiscard]] double used_in(MemoryPhase phase) const;  ///< the terms allocated in that phase
  [[nodiscard]] MemoryPhase peak_phase() const;            ///< the first phase of largest total
  [[nodiscard]] double used() const { return used_in(peak_phase()); }
  [[nodiscard]] double free() const { return capacity - used(); }
};

/// The breakdown for the scenario's model, cluster and ZeRO-3 knobs; `peak_live` = the
/// schedule's most gathered non-persistent elements.
GpuMemory gpu_memory(const Scenario& scenario, const TransformerShape& shape, double peak_live);

}  // namespace ckptsim
