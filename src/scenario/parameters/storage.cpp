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
    {"/storage/client_bandwidth", U::bandwidth, C::positive, P::optional, R::costs, "what one machine (a storage client) reads or writes at most: a checkpoint's upload or load then takes max(C / bandwidth, shard / client_bandwidth), so that when every machine reads at once the aggregate limits beyond bandwidth / client_bandwidth machines (data sheets give both: e.g. FSx for Lustre's per-TiB aggregate and its per-client figure); absent: the aggregate alone",
     [](Scenario& s) -> FieldRef { return &s.storage.client_bandwidth; }},
  }};
  // clang-format on
}

}  // namespace ckptsim
