// The checks of a run before its replicas (run_checks.hpp).
#include "ckptsim/run/run_checks.hpp"

#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/run/work_estimate.hpp"

namespace ckptsim {

StrategyCosts checked_strategy_costs(const Scenario& s, const RunChecks& checks, const IterationCostsFn& model) {
  // An explicit iteration time means the user measured it: the iteration model is not run.
  if (s.training.iteration_time) return compute_strategy_costs(s, nullptr);
  enforce_work_limits(estimate_iteration_work(s), checks.force, checks.way_out);
  const IterationCosts iteration = model ? model(s) : compute_iteration_costs(s);
  return compute_strategy_costs(s, &iteration);
}

RunModel checked_run_model(const Scenario& s, const StrategyCosts& costs, int replicas, const RunChecks& checks) {
  enforce_work_limits(estimate_run_work(s, costs, replicas, checks.jobs), checks.force, checks.way_out);
  return RunModel(s, costs);
}

void check_closed_form_work(const Scenario& s, const RunChecks& checks) {
  enforce_work_limits(estimate_closed_form_work(s), checks.force, checks.way_out);
}

}  // namespace ckptsim
