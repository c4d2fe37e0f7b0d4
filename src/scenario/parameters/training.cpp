// Parameters owned by training: the training job every engine shares: batch, precision, kernels,
// checkpoint size. Read by workload/iteration_model.hpp, workload/kernels.hpp. Rows of the parameter
// table (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock training_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"training", {
    {"/training/parallelism", U::name, C::none, P::defaulted, R::iteration, "how the model is split: zero3 (sharded data parallelism, run by training.engine) or megatron (tensor, pipeline, data, context and expert parallelism: training.megatron)",
     [](Scenario& s) -> FieldRef { return &s.training.parallelism; }, &parallelism_names},
    {"/training/engine", U::name, C::none, P::defaulted, R::iteration, "the library that runs it: DeepSpeed ZeRO-3 (v0.7.3, GEMINI's) or PyTorch FSDP (workload/engine.hpp)",
     [](Scenario& s) -> FieldRef { return &s.training.engine; }, &engine_names},
    {"/training/micro_batch", U::integer, C::at_least_one, P::defaulted, R::iteration, "sequences per GPU per iteration",
     [](Scenario& s) -> FieldRef { return &s.training.micro_batch; }},
    {"/training/sequence_length", U::integer, C::at_least_one, P::defaulted, R::iteration, "tokens per sequence",
     [](Scenario& s) -> FieldRef { return &s.training.sequence_length; }},
    {"/training/checkpoint_bytes_per_parameter", U::number, C::positive, P::defaulted, R::iteration | R::costs, "checkpointed bytes per parameter (Adam: 12)",
     [](Scenario& s) -> FieldRef { return &s.training.checkpoint_bytes_per_parameter; }},
    {"/training/serialization_bandwidth", U::bandwidth, C::positive, P::required, R::costs, "per machine: snapshot to / reload from CPU memory",
     [](Scenario& s) -> FieldRef { return &s.training.serialization_bandwidth; }},
    {"/training/compute_efficiency", U::number, C::unit_interval, P::optional, R::iteration, "explicit override of the kernel model (a calibration result): every compute task takes FLOPs / (gpu_peak_flops x this)",
     [](Scenario& s) -> FieldRef { return &s.training.compute_efficiency; }},
    {"/training/attention", U::name, C::none, P::defaulted, R::iteration, "attention kernels: separate GEMMs, mask, softmax and dropout, or one fused FlashAttention-2 kernel",
     [](Scenario& s) -> FieldRef { return &s.training.attention; }, &attention_names},
    {"/training/cross_entropy", U::name, C::none, P::defaulted, R::iteration, "the loss: Megatron-LM's over fp32 logits (GPT-2 under DeepSpeed), PyTorch's cross_entropy on the 16-bit logits (Hugging Face models), or flash-attn's fused kernel (llm-foundry's MPT)",
     [](Scenario& s) -> FieldRef { return &s.training.cross_entropy; }, &cross_entropy_names},
    {"/training/gelu", U::name, C::none, P::defaulted, R::iteration, "the GeLU after FC1: one fused kernel that keeps its input (Megatron-LM, PyTorch's F.gelu), or the tanh approximation as eight PyTorch operations that keep three more FFN-wide tensors (Hugging Face's NewGELUActivation, GPT-2's gelu_new); zero3 only",
     [](Scenario& s) -> FieldRef { return &s.training.gelu; }, &gelu_names, {}, &zero3_only},
    {"/training/activation_recomputation", U::boolean, C::none, P::defaulted, R::iteration, "recompute activations in backward",
     [](Scenario& s) -> FieldRef { return &s.training.activation_recomputation; }},
    {"/training/mixed_precision", U::boolean, C::none, P::defaulted, R::iteration, "16-bit compute with fp32 master weights",
     [](Scenario& s) -> FieldRef { return &s.training.mixed_precision; }},
    {"/training/hook_host_time", U::duration, C::non_negative, P::defaulted, R::iteration, "host (Python) time of one engine hook call, on the host timeline before the GPU work it enqueues: DeepSpeed ZeRO-3's pre/post forward and backward submodule hooks (2 per submodule use), FSDP's pre/post forward and backward hooks (4 per unit); 0: not modelled, no published per-hook measurement was found (docs/models.md); zero3 only",
     [](Scenario& s) -> FieldRef { return &s.training.hook_host_time; }},
    {"/training/iteration_time", U::duration, C::positive, P::optional, R::iteration | R::costs, "explicit iteration time; overrides the iteration model",
     [](Scenario& s) -> FieldRef { return &s.training.iteration_time; }},
    {"/training/known_to_run", U::boolean, C::none, P::defaulted, R::costs, "the job is known to run on these GPUs (a measured run): where the iteration model's GPU memory says it does not fit, results carry that verdict as a warning instead of the scenario being refused",
     [](Scenario& s) -> FieldRef { return &s.training.known_to_run; }},
  }};
  // clang-format on
  for (const char* pointer : {"/training/engine", "/training/gelu", "/training/hook_host_time"})
    row_of(block, pointer).read_when = &kReadUnderZero3;
  return block;
}

}  // namespace ckptsim
