#pragma once
// The network-silent phases at the end of a ZeRO-3 step, as DeepSpeed 0.7.3 runs them, each with
// its kernels, host synchronizations and bytes, timed by the kernel timer (kernel_time.hpp).
// Sources: deepspeed/runtime/zero/stage3.py, deepspeed/runtime/engine.py,
// deepspeed/utils/timer.py, deepspeed/ops/adam/fused_adam.py and csrc/adam/multi_tensor_apply.cuh
// at tag v0.7.3 (https://github.com/microsoft/DeepSpeed/tree/v0.7.3).
//
// Symbols: E elements of the parameter partition each rank owns (P / n), t parameter tensors
// (each has a partition on every rank), G = max(1, ceil(E / sub_group_size)) optimizer
// sub-groups, w bytes of a 16-bit gradient or parameter (2; 4 without mixed precision), T tokens
// per rank (data loading). Launch overhead L per kernel (gpu_types.hpp); a host
// synchronization (.item(), torch.cuda.synchronize()) costs one L more: the GPU waits until the
// host, woken by the sync, launches the next kernel.
//   boundary (before the update; stage3.py step() -> _overflow_check_and_loss_scale_update,
//   _get_norm_groups):
//     overflow: wait for gradient reduction   has_overflow: __inf_or_nan_tracker.item() on the
//                                             reduce stream (1 copy, 1 sync)
//     overflow: flag to GPU                   torch.cuda.ByteTensor([overflow]) (1 copy, 1 B)
//     (the flag's all-reduce: network latency, added by the task graph)
//     overflow: flag to host                  overflow_gpu[0].item() (1 copy, 1 sync)
//     gradient norm per tensor                get_grad_norm_direct: g.double().norm(2) for each
//                                             tensor: 2t kernels, (w + 8 + 8)·E bytes
//     gradient norm: stack, square, sum       3 kernels on t values, 3·8·t bytes
//     (the norm's all-reduce: network latency)
//     gradient norm to host                   total_norm_cuda.item() (1 copy, 1 sync)
//   update (per sub-group: _prepare_sub_group, unscale_and_clip_grads, _optimizer_step,
//   _reassign_or_swap_out_partitioned_parameters):
//     flatten 16-bit gradients                self.flatten (torch.cat): G kernels, 2w·E bytes
//     gradients to fp32                       .to(fp32): G kernels, (w + 4)·E
//     unscale and clip                        grad.mul_(1 / scale): G kernels, 8·E
//     fused Adam                              FusedAdam, multi_tensor_apply with chunks of 2048
//                                             x 32 elements and at most 320 blocks per launch:
//                                             sum over sub-groups of ceil(E_g / (65536 x 320))
//                                             kernels; reads parameter, gradient, exp_avg,
//                                             exp_avg_sq (16 B), writes three (12 B): 28·E
//     fp32 to 16-bit parameters               fp16 partition .copy_(fp32): G kernels, (4 + w)·E
//   step end (engine.py step(), the next forward):
//     throughput timer synchronize            ThroughputTimer.stop(): torch.cuda.synchronize()
//     next batch to GPU                       input ids and labels, int64: 2 copies of 8·T B over
//                                             the GPU's host link (cluster.gpu_cpu_bandwidth)
//     throughput timer synchronize            ThroughputTimer.start() in the next forward
// A phase's duration: bytes / (e_m · B) + (kernels + syncs) · L + host bytes / host bandwidth.
// _post_step's gathers of the persistent parameters (S 1838-1844) are network traffic, not a
// silent phase: the engine's program writes them between the update and the step end
// (deepspeed_zero3.hpp). Not counted: the Python time of these loops (no published per-call
// figure was found: the launch overhead is the only host cost counted, a lower bound).
#include <string_view>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/workload/kernel_time.hpp"

namespace ckptsim {

enum class StepPart { boundary, update, step_end };
const char* to_string(StepPart part);

struct StepPhase {
  std::string_view name;
  StepPart part = StepPart::boundary;
  double kernels = 0;     ///< launches
  double syncs = 0;       ///< host synchronizations
  double bytes = 0;       ///< HBM bytes read + written
  double host_bytes = 0;  ///< bytes over the GPU's host link
  SimTime duration;
};

struct StepShape {
  double partition_elements = 0;  ///< E
  double tensors = 0;             ///< t
  double sub_group_size = 1e9;    ///< training.zero3.sub_group_size
  double tokens = 0;              ///< T
  double word_bytes = 2;          ///< w
  double host_bandwidth = 0;      ///< bytes/s, cluster.gpu_cpu_bandwidth
};

/// The boundary phases (overflow check, gradient norm) and the update and step-end phases, in
/// order. Their durations are the header's formula on `timer`'s figures.
std::vector<StepPhase> boundary_phases(const KernelTimer& timer, const StepShape& shape);
std::vector<StepPhase> optimizer_step_phases(const KernelTimer& timer, const StepShape& shape);

/// The sum of the phases' durations.
SimTime total_duration(const std::vector<StepPhase>& phases);

}  // namespace ckptsim
