#include "ckptsim/run/resolve_costs.hpp"

#include "ckptsim/checkpoint/iteration_costs.hpp"

namespace ckptsim {

StrategyCosts resolve_strategy_costs(const Scenario& scenario) {
  // An explicit iteration time means the user measured it: the iteration model is not needed,
  // and the strategy's costs come from explicit fields or the first-order formulas.
  if (scenario.training.iteration_time) return compute_strategy_costs(scenario, nullptr);
  const IterationCosts iteration = compute_iteration_costs(scenario);
  return compute_strategy_costs(scenario, &iteration);
}

}  // namespace ckptsim
