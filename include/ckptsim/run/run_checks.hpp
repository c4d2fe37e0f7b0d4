#pragma once
// The checks a run goes through before any replica is simulated, in one place for `ckptsim
// run`, `analyze`, `optimize` and the points of `ckptsim sweep` (docs/limits.md), so that a
// sweep point is refused exactly when its command would refuse it:
//   1. the iteration model's work (checkpoint/iteration_work.hpp), for scenarios without an
//      explicit training.iteration_time;
//   2. the strategy's costs (strategy_costs.hpp): every derived duration within the clock's
//      range, and the run's worst-case horizon within the clock (run_horizon.hpp); and the
//      GPU-fit rule (checkpoint/iteration_costs.hpp): a job that does not fit its GPUs is
//      refused (ModelError at /cluster/gpu_memory), or with `force` priced with a warning in
//      StrategyCosts::warnings;
//   3. the run's memory and failure events for its replicas (work_estimate.hpp), and the
//      memory of the closed forms where a command computes them (analyze, optimize).
// Work limits (1 and 3) and the GPU-fit rule give way to `force`; the clock checks (2) never do.
#include <functional>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct RunChecks {
  int jobs = 1;                          ///< replicas simulated at once (memory in flight)
  bool force = false;                    ///< --force: skip the work limits, price a job that does not fit
  const char* way_out = kForceRunsIt;    ///< what a LimitError tells the user to do
};

/// The iteration model's results for a scenario (compute_iteration_costs, or a cache of them).
using IterationCostsFn = std::function<IterationCosts(const Scenario&)>;

/// Checks 1 and 2: the strategy's costs, from `model` (default: compute_iteration_costs) when
/// the scenario has no explicit iteration time.
StrategyCosts checked_strategy_costs(const Scenario& scenario, const RunChecks& checks, const IterationCostsFn& model = {});

/// Check 3 for `replicas` replicas, then the run model.
RunModel checked_run_model(const Scenario& scenario, const StrategyCosts& costs, int replicas, const RunChecks& checks);

/// The memory of the closed forms (estimate_closed_form_work), before `predict_run`: `analyze`
/// and `optimize` compute them first, so they are checked like the run (a limit that --force
/// lifts).
void check_closed_form_work(const Scenario& scenario, const RunChecks& checks);

}  // namespace ckptsim
