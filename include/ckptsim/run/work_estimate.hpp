#pragma once
// Up-front estimates of what a Monte Carlo run asks for (core/work_limits.hpp, docs/limits.md).
#include <vector>

#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Failure events one replica may draw (over the run's end, run_horizon.hpp) before the run is
/// refused: beyond it a single replica takes minutes.
inline constexpr double kMaxFailureEventsPerReplica = 1e7;

/// Memory for `replicas` results and `jobs` replicas in flight, and the simulated failure events:
/// of all replicas over the failure-free length (limit kMaxSimulatedEvents), and of one replica
/// over the run's end (limit kMaxFailureEventsPerReplica). Expected failures per replica over a
/// length t (expected_failure_events, failure_process.hpp) = rate x machines x t (exponential)
/// or machines x t / mean life, mean life = scale x Gamma(1 + 1/shape) (Weibull), times the
/// lemons' mean rate multiplier, plus each domain kind's rate x domains x t; trace-driven runs
/// replay a file already in memory. Each estimate names the scenario file, the fields of its
/// product and their values.
std::vector<WorkEstimate> estimate_run_work(const Scenario& scenario, const StrategyCosts& costs, int replicas,
                                            int jobs);

/// Memory of the closed forms (analysis/analytic_models.hpp, `predict_run`): they build the
/// strategy's placement once, the per-machine state of one replica in flight.
std::vector<WorkEstimate> estimate_closed_form_work(const Scenario& scenario);

}  // namespace ckptsim
