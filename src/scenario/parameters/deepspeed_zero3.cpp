// Parameters owned by deepspeed-zero3: the DeepSpeed ZeRO-3 engine's configuration. Read by
// workload/deepspeed_zero3.hpp. Rows of the parameter table (parameters.hpp): each says which models
// read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock deepspeed_zero3_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"deepspeed-zero3", {
    {"/training/zero3/prefetch_bucket_size", U::number, C::non_negative, P::defaulted, R::iteration, "parameters gathered ahead of use (DeepSpeed stage3_prefetch_bucket_size; 0: no prefetch)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.prefetch_bucket_size; }},
    {"/training/zero3/param_persistence_threshold", U::number, C::non_negative, P::defaulted, R::iteration, "parameters of at most this many elements stay gathered (stage3_param_persistence_threshold)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.param_persistence_threshold; }},
    {"/training/zero3/max_live_parameters", U::number, C::positive, P::defaulted, R::iteration, "cap on gathered parameters that prefetching respects (stage3_max_live_parameters)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.max_live_parameters; }},
    {"/training/zero3/max_reuse_distance", U::number, C::non_negative, P::defaulted, R::iteration, "a parameter used again within this many parameters stays gathered (stage3_max_reuse_distance)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.max_reuse_distance; }},
    {"/training/zero3/reduce_bucket_size", U::number, C::positive, P::defaulted, R::iteration, "gradient elements per reduce-scatter bucket (reduce_bucket_size)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.reduce_bucket_size; }},
    {"/training/zero3/sub_group_size", U::number, C::positive, P::defaulted, R::iteration, "parameter-partition elements the optimizer steps at once; sizes the step's fp32 gradient copy (sub_group_size)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.sub_group_size; }},
    {"/training/zero3/trace", U::name, C::none, P::defaulted, R::iteration, "DeepSpeed's submodule trace: complete (prefetch; the steady state of a model that runs its submodules in the same order every step) or invalid (recording or invalidated: every gather on demand, every module released after use)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.trace; }, &zero3_trace_names},
  }};
  // clang-format on
  read_only_when(block, kReadUnderDeepSpeed);
  return block;
}

}  // namespace ckptsim
