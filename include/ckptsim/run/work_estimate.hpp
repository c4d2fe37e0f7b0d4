#pragma once
// Up-front estimates of what a Monte Carlo run asks for (core/work_limits.hpp, docs/limits.md).
#include <vector>

#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Memory for `replicas` results and `jobs` replicas in flight, and the simulated failure events
/// of all replicas: expected failures per replica = rate x machines x failure-free run length
/// (exponential) or machines x run length / mean life, mean life = scale x Gamma(1 + 1/shape)
/// (Weibull); trace-driven runs replay a file already in memory.
std::vector<WorkEstimate> estimate_run_work(const Scenario& scenario, const StrategyCosts& costs, int replicas,
                                            int jobs);

}  // namespace ckptsim
