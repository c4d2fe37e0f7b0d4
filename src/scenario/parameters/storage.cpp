// Parameters owned by storage: remote persistent storage. Read by run/strategy_costs.hpp. Rows of the
// parameter table (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock storage_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  return {"storage", {
    {"/storage/bandwidth", U::bandwidth, C::positive, P::required, R::costs, "remote persistent storage bandwidth, aggregate",
     [](Scenario& s) -> FieldRef { return &s.storage.bandwidth; }},
  }};
  // clang-format on
}

}  // namespace ckptsim
