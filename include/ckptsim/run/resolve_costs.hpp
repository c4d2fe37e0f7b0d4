#pragma once
// Chooses where a run's costs come from: explicit scenario fields first, then the iteration
// model (checkpoint/iteration_costs.hpp) when the scenario gives no iteration time.
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

StrategyCosts resolve_strategy_costs(const Scenario& scenario);

}  // namespace ckptsim
