#pragma once
// GPU memory per rank of ZeRO-3 training as DeepSpeed 0.7.3 runs it: every term, its source
// (URLs also in docs/references.md, "Iteration model"), in bytes per GPU.
//
//   model states        16·P/n: fp16 parameter and gradient partitions (2 + 2) and Adam's fp32
//                       master, exp_avg, exp_avg_sq (12) (Rajbhandari et al., "ZeRO", SC '20,
//                       Section 3.1, https://arxiv.org/abs/1910.02054)
//   gathered parameters w x the most non-persistent elements gathered at once, from the
//                       fetch/prefetch/release schedule (zero3_schedule.hpp; bounded by
//                       stage3_max_live_parameters plus the module in use)
//   persistent params   w x every tensor of at most stage3_param_persistence_threshold elements
//                       (kept whole on every rank)
//   gradient bucket     w x reduce_bucket_size: stage3.py allocates this flat buffer with
//                       contiguous_gradients (the default) (DeepSpeed v0.7.3 stage3.py,
//                       https://github.com/microsoft/DeepSpeed/blob/v0.7.3/deepspeed/runtime/zero/stage3.py)
//   module gradient     w x the largest module's elements: its full gradient exists before it is
//                       copied into the bucket
//   activation ckpts    with recomputation, each layer's input: L·b·s·h·w; without, L x the
//                       working set below
//   working activations one layer's forward activations during its backward, 16-bit:
//                       s·b·h·(34 + 5·a·s/h) (Korthikanti et al., "Reducing Activation
//                       Recomputation in Large Transformer Models", MLSys '23, Eq. 1,
//                       https://arxiv.org/abs/2205.05198)
//   logits              fp32 logits for the loss, 4·b·s·V
//   CUDA context        781 MB measured by nvidia-smi for a PyTorch process that only
//                       initialised CUDA (https://github.com/pytorch/pytorch/issues/34323)
//   NCCL buffers        3 communicators (default, all-gather, reduce-scatter) x channels x 2
//                       ring neighbours x NCCL_BUFFSIZE (4 MiB default, NCCL environment
//                       variables, https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html);
//                       channels: kNcclChannels (an assumption: NCCL picks the count at run time)
//   fragmentation       ZeRO reports running out of memory "with over 30% of memory still
//                       available" from fragmentation (SC '20, Section 3.2): 30% of the GPU's
//                       memory is taken as unusable
// free = capacity - fragmentation - every other term (negative: the model does not fit).
// w = 2 bytes (mixed precision) or 4.
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

struct GpuMemoryTerm {
  std::string name;
  double bytes = 0;
};

struct GpuMemory {
  double capacity = 0;
  std::vector<GpuMemoryTerm> terms;  ///< every term above, fragmentation included, in order
  [[nodiscard]] double used() const;
  [[nodiscard]] double free() const { return capacity - used(); }
};

/// The breakdown for the scenario's model, cluster and ZeRO-3 knobs; `peak_live` = the
/// schedule's most gathered non-persistent elements.
GpuMemory gpu_memory(const Scenario& scenario, const TransformerShape& shape, double peak_live);

}  // namespace ckptsim
