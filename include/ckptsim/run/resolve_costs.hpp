#pragma once
// Chooses where a run's costs come from: explicit scenario fields first, then the iteration
// model (checkpoint/iteration_costs.hpp) when the scenario gives no iteration time.
#include <optional>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// The iteration model's results when the run uses them, i.e. unless the scenario gives
/// training.iteration_time (a measured iteration needs no model).
std::optional<IterationCosts> iteration_costs_for(const Scenario& scenario);

/// compute_strategy_costs with the iteration model's results where iteration_costs_for uses them.
StrategyCosts resolve_strategy_costs(const Scenario& scenario);

}  // namespace ckptsim
