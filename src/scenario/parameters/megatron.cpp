// Parameters owned by megatron: Megatron-LM's tensor, pipeline, data, context and expert parallelism.
// Read by workload/megatron_layout.hpp, workload/megatron_iteration.hpp. Rows of the parameter table
// (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock megatron_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"megatron", {
    {"/training/megatron/tp", U::integer, C::at_least_one, P::defaulted, R::iteration, "megatron: tensor-parallel size (--tensor-model-parallel-size); a tensor group stays inside a machine's NVLink domain unless tp_across_machines",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.tp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/pp", U::integer, C::at_least_one, P::defaulted, R::iteration, "megatron: pipeline-parallel size (--pipeline-model-parallel-size)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.pp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/dp", U::integer, C::at_least_one, P::optional, R::iteration, "megatron: data-parallel size; tp x cp x dp x pp must equal the GPU count (default: GPUs / (tp x cp x pp))",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.dp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/cp", U::integer, C::at_least_one, P::defaulted, R::iteration, "megatron: context-parallel size (--context-parallel-size): the sequence split over cp ranks, keys and values passed round a ring",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.cp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/ep", U::integer, C::at_least_one, P::defaulted, R::iteration, "megatron: expert-parallel size (--expert-model-parallel-size): the experts split over ep of the dp x cp ranks; must divide dp x cp and /model/experts",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.ep; }, nullptr, {}, &megatron_only},
    {"/training/megatron/virtual_stages", U::integer, C::at_least_one, P::defaulted, R::iteration, "megatron: model chunks per pipeline rank; more than 1 runs the interleaved 1F1B schedule (micro_batches mod microbatch_group_size 0 or >= pp)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.virtual_stages; }, nullptr, {}, &megatron_only},
    {"/training/megatron/micro_batches", U::integer, C::at_least_one, P::defaulted, R::iteration, "megatron: micro-batches of training.micro_batch sequences per pipeline per step (global batch / (micro batch x dp))",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.micro_batches; }, nullptr, {}, &megatron_only},
    {"/training/megatron/microbatch_group_size", U::integer, C::at_least_one, P::optional, R::iteration, "megatron: contiguous micro-batches per model chunk in the interleaved schedule (--microbatch-group-size-per-virtual-pipeline-stage), in [pp, micro_batches]; micro_batches mod it 0 or >= pp (default: pp)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.microbatch_group_size; }, nullptr, {}, &megatron_only},
    {"/training/megatron/deallocate_pipeline_outputs", U::boolean, C::none, P::defaulted, R::iteration, "megatron: free a stage's output tensor once it is sent to the next stage, keeping only its grad_fn (schedules.py deallocate_output_tensor; Megatron's training arguments set it); false holds it until the backward",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.deallocate_pipeline_outputs; }, nullptr, {}, &megatron_only},
    {"/training/megatron/first_stage_layers", U::integer, C::non_negative, P::optional, R::iteration, "megatron: layers of the first (virtual) pipeline stage (--decoder-first-pipeline-num-layers); the rest split evenly",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.first_stage_layers; }, nullptr, {}, &megatron_only},
    {"/training/megatron/last_stage_layers", U::integer, C::non_negative, P::optional, R::iteration, "megatron: layers of the last (virtual) pipeline stage (--decoder-last-pipeline-num-layers); the rest split evenly",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.last_stage_layers; }, nullptr, {}, &megatron_only},
    {"/training/megatron/sequence_parallel", U::boolean, C::none, P::defaulted, R::iteration, "megatron: sequence parallelism (--sequence-parallel): reduce-scatter + all-gather instead of all-reduce, norms and dropout on s/tp tokens",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.sequence_parallel; }, nullptr, {}, &megatron_only},
    {"/training/megatron/recomputation", U::name, C::none, P::defaulted, R::iteration, "megatron: activation recomputation (--recompute-granularity): none, selective (the attention core) or full (every layer)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.recomputation; }, &recomputation_names, {}, &megatron_only},
    {"/training/megatron/distributed_optimizer", U::boolean, C::none, P::defaulted, R::iteration, "megatron: shard the fp32 main parameters and Adam moments over the data-parallel group (--use-distributed-optimizer): gradients reduce-scattered, parameters all-gathered",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.distributed_optimizer; }, nullptr, {}, &megatron_only},
    {"/training/megatron/overlap_grad_reduce", U::boolean, C::none, P::defaulted, R::iteration, "megatron: run the data-parallel gradient reduce in buckets during the last micro-batch's backward (--overlap-grad-reduce)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.overlap_grad_reduce; }, nullptr, {}, &megatron_only},
    {"/training/megatron/overlap_param_gather", U::boolean, C::none, P::defaulted, R::iteration, "megatron: distributed optimizer's parameter all-gather under the next step's first forward (--overlap-param-gather)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.overlap_param_gather; }, nullptr, {}, &megatron_only},
    {"/training/megatron/grad_reduce_in_fp32", U::boolean, C::none, P::defaulted, R::iteration, "megatron: accumulate and reduce gradients in fp32 (--accumulate-allreduce-grads-in-fp32); else in the 16-bit training type",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.grad_reduce_in_fp32; }, nullptr, {}, &megatron_only},
    {"/training/megatron/fp16", U::boolean, C::none, P::defaulted, R::iteration, "megatron: fp16 training (--fp16) with its dynamic loss scaler: the optimizer step unscales the gradients, checks them for inf/NaN and all-reduces the flag; false is --bf16 (no grad scaler). Needs training.mixed_precision",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.fp16; }, nullptr, {}, &megatron_only},
    {"/training/megatron/clip_grad", U::number, C::non_negative, P::defaulted, R::iteration, "megatron: gradient clipping threshold (--clip-grad, default 1.0): the step computes the gradient norm, all-reduces it and scales the gradients (counted on every step); 0 turns norm and clip off",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.clip_grad; }, nullptr, {}, &megatron_only},
    {"/training/megatron/moe_capacity_factor", U::number, C::positive, P::optional, R::iteration, "megatron, experts: --moe-expert-capacity-factor: each expert takes at most ceil(tokens x top-k / experts x factor) of a rank's tokens and drops the rest (default: dropless)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.moe_capacity_factor; }, nullptr, {}, &megatron_only},
    {"/training/megatron/moe_pad_to_capacity", U::boolean, C::none, P::defaulted, R::iteration, "megatron, experts: --moe-pad-expert-input-to-capacity: every expert receives exactly its capacity, padded (needs moe_capacity_factor)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.moe_pad_to_capacity; }, nullptr, {}, &megatron_only},
    {"/training/megatron/moe_load_imbalance", U::number, C::at_least_one, P::defaulted, R::iteration, "megatron, experts: the busiest expert's tokens over the mean (1: balanced; at most experts / top-k); the busiest expert's rank sets the all-to-alls' and the expert GEMMs' time",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.moe_load_imbalance; }, nullptr, {}, &megatron_only},
    {"/training/megatron/tp_across_machines", U::boolean, C::none, P::defaulted, R::iteration, "megatron: allow a tensor group to span machines (its all-reduces then cross the network)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.tp_across_machines; }, nullptr, {}, &megatron_only},
    {"/training/megatron/fully_parallel_load", U::boolean, C::none, P::defaulted, R::costs, "megatron: --ckpt-fully-parallel-load: the data-parallel ranks split the read of what they all hold (the 16-bit parameters; all the state without the distributed optimizer) and exchange it; false (Megatron-LM's default): every data-parallel rank reads its own copy from storage at a load",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.fully_parallel_load; }, nullptr, {}, &megatron_only},
  }};
  // clang-format on
  read_only_when(block, kReadUnderMegatron);
  return block;
}

}  // namespace ckptsim
