// Parameters owned by GPU type: the GPU: memory, peak rates, and the kernel compute model's per-GPU
// efficiencies (a GPU type fills them). Read by scenario/gpu_types.hpp, workload/kernel_time.hpp. Rows
// of the parameter table (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"
#include "ckptsim/scenario/gpu_types.hpp"

namespace ckptsim {

ParameterBlock gpu_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"GPU type", {
    {"/cluster/gpu", U::name, C::none, P::optional, R::iteration | R::costs, "GPU type filling the GPU fields below (default: the instance preset's)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu; }, &gpu_type_names},
    {"/cluster/gpu_memory", U::bytes, C::positive, P::from_gpu, R::iteration | R::costs, "memory per GPU",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_memory_bytes; }},
    {"/cluster/nvlink_bandwidth", U::bandwidth, C::positive, P::from_gpu, R::iteration | R::costs, "GPU-to-GPU bandwidth inside a machine per GPU, each direction",
     [](Scenario& s) -> FieldRef { return &s.cluster.nvlink_bandwidth; }},
    {"/cluster/nvlink_latency", U::duration, C::non_negative, P::defaulted, R::iteration | R::costs, "latency of one ring step of a collective inside a machine (NVLink/NVSwitch); default NCCL's tuning model, 3.4 us",
     [](Scenario& s) -> FieldRef { return &s.cluster.nvlink_latency; }, nullptr, {}, &megatron_only},
    {"/cluster/nvlink_curves", U::boolean, C::none, P::defaulted, R::iteration | R::costs, "time collectives inside a machine by the measured nccl-tests curves (nvlink_ring_curve, nvlink_all_reduce_curve: the GPU type's or written); default true; false, or nvlink_bandwidth or nvlink_latency other than the GPU type's and the default beside the type's curves: a ring at nvlink_bandwidth with nvlink_latency per step",
     [](Scenario& s) -> FieldRef { return &s.cluster.nvlink_curves; }, nullptr, {}, &megatron_only},
    {"/cluster/nvlink_ring_curve", U::bus_curve, C::none, P::gpu_kernel, R::iteration | R::costs, "measured bus bandwidth by size of a ring reduce-scatter / all-gather inside one machine (nccl-tests size and busbw; `ckptsim import nccl-tests` writes it from a single-machine log); a collective of S bytes takes k S / busbw(S), log2-interpolated",
     [](Scenario& s) -> FieldRef { return &s.cluster.nvlink_ring_curve; }, nullptr, {}, &megatron_only},
    {"/cluster/nvlink_all_reduce_curve", U::bus_curve, C::none, P::gpu_kernel, R::iteration | R::costs, "measured bus bandwidth by size of the all-reduce NCCL runs over nvlink_curve_gpus GPUs of one machine (NVLS on Hopper); other all-reduces take the ring curve",
     [](Scenario& s) -> FieldRef { return &s.cluster.nvlink_all_reduce_curve; }, nullptr, {}, &megatron_only},
    {"/cluster/nvlink_curve_gpus", U::integer, C::at_least_one, P::gpu_kernel, R::iteration | R::costs, "the GPU count the NVLink curves were measured on",
     [](Scenario& s) -> FieldRef { return &s.cluster.nvlink_curve_gpus; }, nullptr, {}, &megatron_only},
    {"/cluster/gpu_peak_flops", U::flop_rate, C::positive, P::from_gpu, R::iteration | R::costs, "peak dense FLOP rate per GPU at the training precision (data sheet)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_peak_flops; }},
    {"/cluster/gpu_memory_bandwidth", U::bandwidth, C::positive, P::from_gpu, R::iteration | R::costs, "GPU memory (HBM) bandwidth per GPU (data sheet)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_memory_bandwidth; }},
    {"/cluster/gpu_sms", U::integer, C::at_least_one, P::gpu_kernel, R::iteration | R::costs, "streaming multiprocessors (compute units) per GPU: the GEMM wave size",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.sms; }},
    {"/cluster/gpu_gemm_efficiency", U::number, C::unit_interval, P::gpu_kernel, R::iteration | R::costs, "achieved fraction of gpu_peak_flops inside full GEMM waves (large-GEMM benchmark)",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.gemm_efficiency; }},
    {"/cluster/gpu_gemm_depth_overhead", U::number, C::non_negative, P::gpu_kernel, R::iteration | R::costs, "K0: each GEMM tile's fixed cost in elements of inner depth k; a GEMM of depth k (at least 768) runs at gpu_gemm_efficiency x min(1, k/(k+K0) x (k_ref+K0)/k_ref) (per-shape sweep fit, scripts/fit-gemm-depth); absent: every depth at gpu_gemm_efficiency",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.gemm_depth_overhead; }},
    {"/cluster/gpu_gemm_reference_depth", U::number, C::at_least_one, P::gpu_kernel, R::iteration | R::costs, "k_ref: the inner depth k of the GEMM shape gpu_gemm_efficiency was measured at; needed with gpu_gemm_depth_overhead",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.gemm_reference_depth; }},
    {"/cluster/gpu_memory_efficiency", U::number, C::unit_interval, P::gpu_kernel, R::iteration | R::costs, "achieved fraction of gpu_memory_bandwidth for memory-bound kernels (STREAM triad)",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.memory_efficiency; }},
    {"/cluster/gpu_flash_attention_efficiency", U::number, C::unit_interval, P::gpu_kernel, R::iteration | R::costs, "achieved fraction of gpu_peak_flops of the fused attention kernel (FlashAttention-2, forward + backward); needed by training.attention \"flash\"",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.flash_efficiency; }},
    {"/cluster/gpu_kernel_launch", U::duration, C::non_negative, P::gpu_kernel, R::iteration | R::costs, "time per kernel launch on top of its work",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.launch_overhead; }},
  }};
  // clang-format on
  // Only the megatron model times collectives inside a machine by ring steps (the ZeRO-3/FSDP
  // flow model's groups cross machines).
  row_of(block, "/cluster/nvlink_latency").read_when = &kReadUnderMegatron;
  row_of(block, "/cluster/nvlink_curves").read_when = &kReadUnderMegatron;
  for (const char* curve : {"/cluster/nvlink_ring_curve", "/cluster/nvlink_all_reduce_curve", "/cluster/nvlink_curve_gpus"})
    row_of(block, curve).read_when = &kReadUnderMegatron;
  return block;
}

}  // namespace ckptsim
