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
//
// Megatron-LM's optimizer step (megatron_step_phases), as NVIDIA/Megatron-LM tag core_v0.12.0
// (commit d580efc) runs it: megatron/core/optimizer/optimizer.py MixedPrecisionOptimizer.step
// (prepare_grads, clip_grad_norm, step_with_ready_grads) with Float16OptimizerWithFloat16Params
// or distrib_optimizer.py DistributedOptimizer, FP32Optimizer.step without mixed precision,
// ChainedOptimizer.step for a dense and an expert optimizer; clip_grads.py get_grad_norm_fp32 and
// clip_grad_by_total_norm_fp32; grad_scaler.py; __init__.py (TransformerEngine's FusedAdam, else
// Apex's; a grad scaler only with --fp16 or --loss-scale); megatron/training/training.py train_step
// (zero_grad_buffer before the next forward).
// Symbols, per optimizer o (one; two with experts: dense and expert, ChainedOptimizer): E_o the
// elements it updates on this rank (its shard under the distributed optimizer, else all of the
// rank's parameters), t_o its parameter tensors (shard pieces under the distributed optimizer),
// E = sum E_o, t = sum t_o; w the 16-bit word (2; 4 without mixed precision), g the gradient
// buffer's word (4 with grad_reduce_in_fp32, else w); Φ_r the rank's parameters (the gradient
// buffer it zeroes). multi_tensor_apply (TransformerEngine's and Apex's multi_tensor_apply.cuh,
// PyTorch's ATen MultiTensorApply.cuh for the foreach kernel) cuts the tensors into chunks of
// 65,536 elements and launches a kernel when 320 chunks or depth_to_max_tensors[depth - 1] =
// {110, 64, 48, 36} tensors (depth 1..4 lists) are queued:
//   M(E_o, t_o, depth) = max(ceil(E_o / (65536 x 320)), ceil(t_o / max_tensors(depth)))
// (the larger of the two limits, a lower bound of the loop when tensors end mid-launch).
//   copy gradients to main        _copy_model_grads_to_main_grads: main_grad.float() per
//                                 tensor: t kernels, (g + 4)·E; none when g = 4 (.float() of an
//                                 fp32 tensor is the tensor) and without mixed precision
//                                 (FP32Optimizer: param.grad = param.main_grad)
//   fp16 only (DynamicGradScaler; bf16 has no grad scaler, __init__.py):
//   unscale and check inf/NaN     found_inf.fill_(0), inv_scale (double, reciprocal, float: 3),
//                                 torch._amp_foreach_non_finite_check_and_unscale_ on the fp32
//                                 main gradients: sum_o (4 + M(E_o, t_o, 1)) kernels, 8·E
//     (found_inf's all-reduce, MAX, over the gradient-statistics group: the iteration model)
//   found inf to host             found_inf.item(): per optimizer 1 copy, 1 sync
//   clip_grad > 0 (--clip-grad, default 1.0):
//   gradient norm                 get_grad_norm_fp32: the overflow buffer to the GPU (1), TE's
//                                 multi_tensor_l2norm (zeros for 320 partial sums, M(E_o, t_o,
//                                 1) launches, one cleanup), norm ** 2 (1): per norm
//                                 4 + M launches, 4·E bytes
//     (the norm's all-reduce, SUM, over the group: the iteration model)
//   gradient norm to host         total_norm.item(): per norm 1 copy, 1 sync
//   clip                          clip_grad_by_total_norm_fp32: the overflow buffer (1) and
//                                 multi_tensor_scale in place (depth 2): sum_o (1 + M(E_o, t_o,
//                                 2)) kernels, 8·E; it runs when the norm exceeds clip_grad:
//                                 counted on every step (the bound; a step under the threshold
//                                 skips it)
//   Adam                          FusedAdam, multi_tensor_adam over [g, p, m, v] (depth 4) on
//                                 the fp32 main parameters: reads 16, writes 12: 28·E,
//                                 sum_o M(E_o, t_o, 4) kernels
//   copy main parameters to model _copy_main_params_to_model_params (mixed precision only):
//                                 per-tensor copy_ (bf16, and the distributed optimizer in
//                                 both): t kernels; fp16 Float16Optimizer: overflow_buf.fill_
//                                 and multi_tensor_scale(1.0) (depth 2): sum_o (1 + M) kernels;
//                                 (4 + w)·E
//   zero the gradient buffer      train_step's zero_grad_buffer before the next forward:
//                                 grad_data.zero_() per buffer (one per model chunk and
//                                 optimizer): g·Φ_r bytes written
// Norms: one over every optimizer's gradients when their statistics groups are the same (the
// distributed optimizer: every rank, both optimizers), else one per optimizer (model-parallel
// and expert-model-parallel groups). Not counted: count_zeros (off by default), the grad
// scaler's host-side update, the Python time of these loops (as for DeepSpeed above).
#include <string_view>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/workload/kernel_time.hpp"

namespace ckptsim {

enum class StepPart { boundary, update, step_end };
const char* to_string(StepPart part);

/// A group-wide scalar all-reduce that follows a phase (Megatron's step; the iteration model
/// times it and every rank of the group waits for it).
enum class StepSync { none, found_inf, grad_norm };

struct StepPhase {
  std::string_view name;
  StepPart part = StepPart::boundary;
  double kernels = 0;     ///< launches
  double syncs = 0;       ///< host synchronizations
  double bytes = 0;       ///< HBM bytes read + written
  double host_bytes = 0;  ///< bytes over the GPU's host link
  StepSync sync = StepSync::none;  ///< the all-reduce after it (Megatron)
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

/// One optimizer of Megatron's step (ChainedOptimizer holds one per parameter kind).
struct MegatronOptimizerPart {
  double elements = 0;  ///< E_o
  double tensors = 0;   ///< t_o
};

struct MegatronStepShape {
  std::vector<MegatronOptimizerPart> optimizers;  ///< dense, then expert (with experts)
  double rank_parameters = 0;   ///< Φ_r, the gradient buffer zero_grad_buffer clears
  double buffers = 1;           ///< gradient buffers zeroed (model chunks x optimizers)
  double word_bytes = 2;        ///< w
  double grad_bytes = 2;        ///< g
  bool mixed_precision = true;  ///< 16-bit model parameters with fp32 main copies
  bool fp16 = false;            ///< --fp16: a dynamic grad scaler
  bool distributed = false;     ///< --use-distributed-optimizer
  double clip_grad = 1.0;       ///< --clip-grad; 0: no norm, no clip
  int norms = 1;                ///< gradient norms computed (1, or one per optimizer)
};

/// Megatron-LM's step, in order (header); the all-reduces between the boundary phases are the
/// iteration model's. Boundary phases (part boundary) precede the norm's all-reduce's end,
/// update phases follow it, step end is the buffer zeroing.
std::vector<StepPhase> megatron_step_phases(const KernelTimer& timer, const MegatronStepShape& shape);

/// multi_tensor_apply's launches for `elements` in `tensors` tensors with `depth` lists (header).
double multi_tensor_launches(double elements, double tensors, int depth);

/// The sum of the phases' durations.
SimTime total_duration(const std::vector<StepPhase>& phases);

}  // namespace ckptsim
