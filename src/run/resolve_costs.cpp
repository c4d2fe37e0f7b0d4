#include "ckptsim/run/resolve_costs.hpp"

namespace ckptsim {

StrategyCosts resolve_strategy_costs(const Scenario& scenario) {
  // First-order formulas until the iteration model is wired in.
  return compute_strategy_costs(scenario, nullptr);
}

}  // namespace ckptsim
