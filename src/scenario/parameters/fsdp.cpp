// Parameters owned by fsdp: the PyTorch FSDP engine's configuration. Read by workload/fsdp.hpp. Rows
// of the parameter table (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock fsdp_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"fsdp", {
    {"/training/fsdp/sharding_strategy", U::name, C::none, P::defaulted, R::iteration, "FSDP ShardingStrategy: full-shard over every GPU, or hybrid-shard (shard within a machine, replicate across machines)",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.sharding_strategy; }, &fsdp_sharding_names},
    {"/training/fsdp/backward_prefetch", U::name, C::none, P::defaulted, R::iteration, "FSDP BackwardPrefetch: the next unit's all-gather before (backward-pre) or after (backward-post) this unit's gradient computation, or none",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.backward_prefetch; }, &fsdp_backward_prefetch_names},
    {"/training/fsdp/forward_prefetch", U::boolean, C::none, P::defaulted, R::iteration, "FSDP forward_prefetch: issue the next unit's all-gather before this unit's forward",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.forward_prefetch; }},
    {"/training/fsdp/limit_all_gathers", U::boolean, C::none, P::defaulted, R::iteration, "FSDP limit_all_gathers: the host waits for the oldest of 2 queued frees before another all-gather",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.limit_all_gathers; }},
  }};
  // clang-format on
  read_only_when(block, kReadUnderFsdp);
  return block;
}

}  // namespace ckptsim
