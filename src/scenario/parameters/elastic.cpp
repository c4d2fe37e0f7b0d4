// Parameters owned by elastic restart: restarting on fewer machines while a replacement is awaited.
// Read by failure/elastic.hpp. Rows of the parameter table (parameters.hpp): each says which models
// read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock elastic_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"elastic restart", {
    // Elastic restart (failure/elastic.hpp, docs/models.md "Elastic restart").
    {"/failures/elastic/min_machines", U::integer, C::at_least_one, P::optional, R::run, "restart without a lost machine's data-parallel replica when no standby is free, down to this many machines, and grow back when the replacement arrives (torchrun --nnodes MIN; absent = wait for the replacement)",
     [](Scenario& s) -> FieldRef { return &s.failures.elastic.min_machines; }},
    {"/failures/elastic/reshard", U::duration, C::positive, P::optional, R::run, "time of one resharding of the training state to a new machine count (default: a machine's new share of the checkpoint state received at the achieved point-to-point rate)",
     [](Scenario& s) -> FieldRef { return &s.failures.elastic.reshard; }},
  }};
  // clang-format on
  static constexpr ReadCondition kElastic{[](const Scenario& s) { return s.failures.elastic.min_machines.has_value(); },
                                          "failures.elastic.min_machines is given"};
  row_of(block, "/failures/elastic/reshard").read_when = &kElastic;
  return block;
}

}  // namespace ckptsim
