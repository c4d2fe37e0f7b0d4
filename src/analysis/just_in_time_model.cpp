// First-order closed form of just-in-time checkpointing (just_in_time_model.hpp).
#include "ckptsim/analysis/just_in_time_model.hpp"

#include <algorithm>
#include <cmath>

#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/analysis/first_order.hpp"
#include "ckptsim/failure/fault_model.hpp"

namespace ckptsim {

AnalyticPrediction just_in_time_analytic(const Scenario& s, const StrategyCosts& c) {
  FailureMix mix = failure_mix(s);
  apply_restart_tiers(mix, s, c.iteration_time.seconds());
  AnalyticPrediction p = first_order_start(mix, "just-in-time: first-order model (analysis/just_in_time_model.hpp); the "
                                                "fallback to the periodic checkpoint and failures during an episode are left out");
  if (!p.available) return p;
  const FailureSpec& f = s.failures;
  // Listed, so that `optimize` ranks by Monte Carlo: where fallbacks are frequent they decide
  // the best fallback interval, which this form (no rollback past the minibatch) cannot see.
  if (mix.total_rate > 0) p.omitted_terms.emplace_back(kJitFallbackOmitted);
  for (std::string& term : fault_model_terms_left_out(f)) p.omitted_terms.push_back(std::move(term));

  const double t = c.iteration_time.seconds();
  const double k = static_cast<double>(std::max<std::int64_t>(1, c.every_iterations));
  const double stall = c.stall.seconds();
  const double save = c.jit_save.seconds();
  const double retrieval = c.retrieval_storage.seconds();
  double hardware_load = 0;
  for (const auto& fc : mix.classes)
    if (fc.hardware) hardware_load += fc.rate * fc.machines * (fc.detection_s + mean_replacement_s(f.replacement));
  const double blocking = standby_blocking(s.cluster.standby_machines, hardware_load, 1);
  const double excess = blocking * replacement_excess_s(f.replacement, save);
  double rate = 0;
  double down = 0;  // sum lambda L
  double detection = 0;
  for (const auto& fc : mix.classes) {
    rate += fc.rate;
    const double restart =
        fc.hardware ? (1.0 - blocking) * fc.restart_s + blocking * fc.restart_no_standby_s() : fc.restart_s;
    down += fc.rate * (fc.detection_s + save + (fc.hardware ? excess : 0.0) + retrieval + restart);
    detection += fc.rate * fc.detection_s;
  }
  // Segments are Exp(Lambda) and restart the periodic phase; episodes are M/G/inf busy periods.
  const double compute_share =
      rate > 0 ? 1.0 - (-std::expm1(-rate * stall)) * std::exp(-rate * k * t) / (-std::expm1(-rate * (k * t + stall)))
               : k * t / (k * t + stall);
  const double in_segments = std::exp(-down);
  const double ettr = std::max(0.0, in_segments * compute_share * (1.0 - rate * t / 2.0));
  p.checkpoint_cost_s = stall;
  if (rate > 0 && stall > 0) {  // the fallback's interval, as for any periodic checkpoint
    p.young_interval_s = young_interval(stall, 1.0 / rate);
    p.daly_interval_s = daly_interval(stall, 1.0 / rate);
    p.young_every_iterations = p.young_interval_s / t;
    p.daly_every_iterations = p.daly_interval_s / t;
  }
  p.eq1_wasted_time_s = t / 2.0 + save + retrieval;
  if (!first_order_finish(p, s, t, rate, ettr, down, "just-in-time")) return p;
  const double w = p.wall_time_s;
  p.metrics["recoveries.just_in_time"] = rate * w * in_segments;
  p.metrics["time_breakdown_s.detection"] = detection * w;
  p.metrics["time_breakdown_s.retrieval"] = rate * retrieval * w * in_segments;
  p.metrics["time_breakdown_s.lost_progress"] = in_segments * compute_share * rate * t / 2.0 * w;
  // Rolled back per failure: the segment time since the last whole iteration, stall included,
  // ((k - 1) T^2 + (T + S)^2) / (2 (k T + S)), plus the retrieval.
  p.metrics["wasted_time_per_failure_s"] = ((k - 1.0) * t * t + (t + stall) * (t + stall)) / (2.0 * (k * t + stall)) + retrieval;
  return p;
}

}  // namespace ckptsim
