#pragma once
// The closed form (analysis/analytic_models.hpp) and the run model's Monte Carlo of one scenario,
// for the tests that hold one against the other: the strategy contract, and each strategy's
// own agreement case.
#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"

namespace ckptsim::test {

/// About a 99.9 % interval in units of ci95 (z = 3.2905 against 1.96): for tests that compare
/// several closed forms at once, where a 95 % interval would fail one of them too often.
inline constexpr double kWideCi95 = 3.2905 / 1.96;

struct ClosedFormAndMonteCarlo {
  StrategyCosts costs;
  AnalyticPrediction closed;
  RunSummary simulated;
};

/// The strategy's costs (no iteration model: the scenario gives its iteration time), its closed
/// form, and `replicas` Monte Carlo replicas on two threads (the output does not depend on them).
inline ClosedFormAndMonteCarlo closed_form_and_monte_carlo(const Scenario& s, int replicas) {
  ClosedFormAndMonteCarlo out;
  out.costs = compute_strategy_costs(s, nullptr);
  out.closed = predict_run(s, out.costs);
  MonteCarloOptions options;
  options.replicas = replicas;
  options.jobs = 2;
  out.simulated = summarize(run_replicas(RunModel(s, out.costs), options));
  return out;
}

}  // namespace ckptsim::test
