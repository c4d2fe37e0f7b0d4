#include "ckptsim/run/resolve_costs.hpp"

namespace ckptsim {

std::optional<IterationCosts> iteration_costs_for(const Scenario& scenario) {
  // An explicit iteration time means the user measured it: the iteration model is not needed,
  // and the strategy's costs come from explicit fields or the first-order formulas.
  if (scenario.training.iteration_time) return std::nullopt;
  return compute_iteration_costs(scenario);
}

StrategyCosts resolve_strategy_costs(const Scenario& scenario) {
  const auto iteration = iteration_costs_for(scenario);
  return compute_strategy_costs(scenario, iteration ? &*iteration : nullptr);
}

}  // namespace ckptsim
