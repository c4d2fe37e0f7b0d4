// First-order closed form of asynchronous islands (islands_model.hpp).
#include "ckptsim/analysis/islands_model.hpp"

#include <algorithm>

#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/analysis/first_order.hpp"
#include "ckptsim/analysis/per_step_model.hpp"
#include "ckptsim/failure/fault_model.hpp"

namespace ckptsim {

AnalyticPrediction islands_analytic(const Scenario& s, const StrategyCosts& c) {
  // An island restarts as torchft's group does.
  const FailureMix mix = replica_group_failure_mix(s, c);
  AnalyticPrediction p = first_order_start(mix, "diloco: first-order islands model (analysis/islands_model.hpp); "
                                                "overlapping outages are left out; the staleness's effect on the loss "
                                                "is not modelled");
  if (!p.available) return p;
  if (silent_corruption_modelled(s.failures))
    p.omitted_terms.push_back("silent data corruption under asynchronous islands");

  const FailureSpec& f = s.failures;
  const int groups = std::max(1, c.replica_groups);
  const int per_group = std::max(1, s.cluster.machines / groups);
  const double t = c.iteration_time.seconds();
  const double inner = t * static_cast<double>(std::max<std::int64_t>(1, c.sync_every));
  const double sync = c.outer_sync.seconds();
  const double cycle = inner + sync;
  const double hb = c.heartbeat_timeout.seconds();
  const double to = c.step_timeout.seconds();
  const double hang_share = std::clamp(f.hangs.fraction, 0.0, 1.0);
  const double hang_detect = first_order_hang_detection_s(f, c.iteration_time);
  const double misdiagnosis =
      f.misdiagnosis.fraction > 0 && f.misdiagnosis.fraction < 1 ? 1.0 / (1.0 - f.misdiagnosis.fraction) : 1.0;

  double hardware_load = 0;
  for (const auto& fc : mix.classes)
    if (fc.hardware) hardware_load += fc.rate * misdiagnosis * fc.machines * (fc.detection_s + mean_replacement_s(f.replacement));
  const double blocking = standby_blocking(s.cluster.standby_machines, hardware_load, 1);
  const double replacement = blocking * mean_replacement_s(f.replacement);

  double rate = 0, wait = 0, lost = 0;
  const double hb_wait = std::min(hb, inner) * std::min(hb, inner) / (2.0 * cycle);
  for (const auto& fc : mix.classes) {
    const double lambda = fc.rate * (fc.hardware ? misdiagnosis : 1.0);
    const double detection = (1.0 - hang_share) * fc.detection_s + hang_share * hang_detect;
    const double restart = fc.hardware ? (1.0 - blocking) * fc.restart_s + blocking * fc.restart_no_standby_s() : fc.restart_s;
    const double out = detection + (fc.hardware ? replacement : 0.0) + restart;
    const double hit = std::min<double>(groups, mean_groups_hit(s.cluster.machines, per_group, fc.machines));
    const double share = groups - hit >= c.min_groups ? hit / groups : 1.0;
    const double missed = 1.0 + (out + sync) / cycle;
    const double quorum = (1.0 - hang_share) * std::max(hb, std::min(fc.detection_s, to)) + hang_share * std::max(hb, std::min(hang_detect, to));
    rate += lambda;
    wait += lambda * (2.0 * c.reconfigure.seconds() + c.heal.seconds() + hb_wait + sync / cycle * (sync / 2.0 + quorum));
    lost += lambda * inner * (share * missed + sync / cycle * (1.0 - share));
  }
  const double ettr = std::max(0.0, inner / cycle * std::max(0.0, 1.0 - wait) - lost);

  if (!first_order_finish(p, s, t, rate, ettr, wait, "islands")) return p;
  const double w = p.wall_time_s;
  p.metrics["time_breakdown_s.training"] = ettr * w;
  p.metrics["time_breakdown_s.checkpoint_stall"] = sync / cycle * std::max(0.0, 1.0 - wait) * w;
  return p;
}

}  // namespace ckptsim
