// The band's effect on a run (analysis/band_effect.hpp).
#include "ckptsim/analysis/band_effect.hpp"

#include "ckptsim/analysis/analytic_models.hpp"

namespace ckptsim {
namespace {

/// The closed form of `c` (ETTR, and whether the checkpoint completes within its period).
BandPoint point_of(const StrategyCosts& c, const AnalyticPrediction& closed) {
  BandPoint p;
  p.iteration_s = c.iteration_time.seconds();
  p.ettr = closed.ettr;
  if (takes_checkpoints(c.tier)) p.completes_within_period = c.completion <= c.iteration_time * c.every_iterations;
  return p;
}

/// The run's costs with T replaced, and nothing else.
BandPoint point_at(const Scenario& s, const StrategyCosts& run_costs, double iteration_s) {
  StrategyCosts c = run_costs;
  c.iteration_time = SimTime::from_seconds(iteration_s);
  return point_of(c, predict_run(s, c));
}

}  // namespace

BandEffect band_effect(const Scenario& s, const StrategyCosts& costs) {
  BandEffect e;
  e.view = band_view(s, costs.iteration_time.seconds(), false);
  if (!e.view.has_range()) return e;
  const AnalyticPrediction at_t = predict_run(s, costs);
  e.closed_form = at_t.available;
  e.closed_form_reason = at_t.reason;
  e.predicted = point_of(costs, at_t);
  e.low = point_at(s, costs, e.view.low_s());
  e.high = point_at(s, costs, e.view.high_s());
  return e;
}

}  // namespace ckptsim
