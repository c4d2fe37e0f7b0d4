// The checks of a run before its replicas (run_checks.hpp).
#include "ckptsim/run/run_checks.hpp"

#include <string>

#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/work_estimate.hpp"

namespace ckptsim {

namespace {

/// `work()`, with a ModelError that names a field but not the scenario's file (the iteration
/// model's, the run model's own checks) given the file too, as the loader's errors are.
template <class F>
auto naming_the_file(const Scenario& s, F&& work) {
  try {
    return work();
  } catch (const ModelError& e) {
    const std::string prefix = s.source_file + ": ";
    if (s.source_file.empty() || e.parameter().rfind(prefix, 0) == 0) throw;
    throw ModelError(prefix + e.parameter(), e.message());
  }
}

StrategyCosts costs_of(const Scenario& s, const RunChecks& checks, const IterationCostsFn& model) {
  // An explicit iteration time means the user measured it: the iteration model is not run.
  if (s.training.iteration_time) return compute_strategy_costs(s, nullptr);
  enforce_work_limits(estimate_iteration_work(s), checks.force, checks.way_out);
  const IterationCosts iteration = model ? model(s) : compute_iteration_costs(s);
  StrategyCosts costs = compute_strategy_costs(s, &iteration);
  // A job that does not fit its GPUs does not run: it has no ETTR to report (the GPU-fit rule,
  // checkpoint/iteration_costs.hpp, as `optimize` and `iteration` apply it).
  if (const auto problem = gpu_fit_problem(s, iteration)) {
    if (s.training.known_to_run) {
      costs.warnings.push_back("GPU memory: " + *problem + "; priced because training.known_to_run says the job runs");
    } else if (checks.force) {
      costs.warnings.push_back("priced although it does not fit (--force): " + *problem);
    } else {
      throw ModelError((s.source_file.empty() ? "" : s.source_file + ": ") + "/cluster/gpu_memory",
                       *problem + "; change the parallelism, the micro-batch or the GPU, or set training.known_to_run "
                                  "if the job is known to run on these GPUs (" + checks.way_out + ")");
    }
  }
  return costs;
}

}  // namespace

StrategyCosts checked_strategy_costs(const Scenario& s, const RunChecks& checks, const IterationCostsFn& model) {
  return naming_the_file(s, [&] { return costs_of(s, checks, model); });
}

RunModel checked_run_model(const Scenario& s, const StrategyCosts& costs, int replicas, const RunChecks& checks) {
  enforce_work_limits(estimate_run_work(s, costs, replicas, checks.jobs), checks.force, checks.way_out);
  return naming_the_file(s, [&] { return RunModel(s, costs); });
}

void check_closed_form_work(const Scenario& s, const RunChecks& checks) {
  enforce_work_limits(estimate_closed_form_work(s), checks.force, checks.way_out);
}

}  // namespace ckptsim
