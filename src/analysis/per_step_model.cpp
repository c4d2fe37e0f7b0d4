// First-order closed form of per-step fault tolerance (per_step_model.hpp).
#include "ckptsim/analysis/per_step_model.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/analysis/first_order.hpp"
#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/migration.hpp"
#include "ckptsim/failure/restart_tiers.hpp"

namespace ckptsim {

double mean_groups_hit(int machines, int per_group, int s) {
  if (s <= 1) return 1.0;
  const int domains = (machines + s - 1) / s;
  double total = 0;
  for (int d = 0; d < domains; ++d) {
    const int first = d * s;
    const int last = std::min(machines, first + s) - 1;
    total += last / per_group - first / per_group + 1;
  }
  return total / domains;
}

namespace {

struct Loss {
  double rate = 0;       ///< failures per second
  double wait = 0;       ///< sum lambda wait
  double out = 0;        ///< sum lambda share out
  double hardware = 0;   ///< hardware events per second (standby load)
};

}  // namespace

FailureMix replica_group_failure_mix(const Scenario& s, const StrategyCosts& c) {
  FailureMix mix = failure_mix(s);
  // A failed group's restart from the phases at its own ranks (torchft.cpp), where a class
  // takes the scenario's restart: cause_restart_under (strategy_costs.hpp), in seconds here.
  if (c.group_restart > SimTime::zero())
    for (auto& fc : mix.classes)
      if (fc.restart_s == s.failures.restart.seconds()) fc.restart_s = c.group_restart.seconds();
  apply_restart_tiers(mix, s, c.iteration_time.seconds());
  return mix;
}

AnalyticPrediction per_step_analytic(const Scenario& s, const StrategyCosts& c) {
  const FailureMix mix = replica_group_failure_mix(s, c);
  AnalyticPrediction p = first_order_start(mix, "torchft: first-order per-step model (analysis/per_step_model.hpp); "
                                                "overlapping outages and every group out at once are left out");
  if (!p.available) return p;
  if (silent_corruption_modelled(s.failures))
    p.omitted_terms.push_back("silent data corruption under per-step fault tolerance");
  if (migration_modelled(s.failures))
    p.omitted_terms.push_back("live migration (predicted failures averted by a standby)");

  const FailureSpec& f = s.failures;
  const int groups = std::max(1, c.replica_groups);
  const int per_group = std::max(1, s.cluster.machines / groups);
  const double t = c.iteration_time.seconds();
  const double heal = c.heal.seconds();
  const double hb = c.heartbeat_timeout.seconds();
  const double to = c.step_timeout.seconds();
  const double step = t + c.ft_step.seconds();
  const double reconfigure = 2.0 * c.reconfigure.seconds();
  const auto wait_after = [&](double detection) { return std::max(hb, std::min(detection, to)) + reconfigure; };
  const double hang_share = std::clamp(f.hangs.fraction, 0.0, 1.0);
  const double hang_wait = wait_after(first_order_hang_detection_s(f, c.iteration_time));
  if (f.restart_tiers.enabled && hang_share > 0)
    p.omitted_terms.push_back("restart tiers: a hang restarts at its class's crash latency here (the run model gives it "
                              "the hang tier's)");
  const double misdiagnosis = f.misdiagnosis.fraction > 0 && f.misdiagnosis.fraction < 1 ? 1.0 / (1.0 - f.misdiagnosis.fraction) : 1.0;

  struct Class {
    double rate;
    bool hardware;
    double wait;
    double restart;
    int machines;
    double restart_no_standby;
  };
  std::vector<Class> classes;
  for (const auto& fc : mix.classes)
    classes.push_back({fc.rate * (fc.hardware ? misdiagnosis : 1.0), fc.hardware,
                       (1.0 - hang_share) * wait_after(fc.detection_s) + hang_share * hang_wait, fc.restart_s, fc.machines,
                       fc.restart_no_standby_s()});
  // Stragglers (fault_model.hpp's closed form): the slow share of the time, and evictions.
  double slow_share = 0;
  if (stragglers_modelled(f)) {
    const double mu = f.stragglers.duration.seconds();
    const double onsets = s.cluster.machines * f.stragglers.rate;
    const double kept = f.stragglers.eviction ? std::exp(-f.stragglers.eviction->seconds() / mu) : 0.0;
    slow_share = 1.0 - std::exp(-onsets * mu * (1.0 - kept));
    if (f.stragglers.eviction) {
      // An eviction restarts like a hardware failure of the scenario's restart R.
      FailureMix eviction;
      eviction.available = true;
      eviction.classes.push_back({"straggler", onsets * kept, true, 0.0, f.restart.seconds(), 1, false, std::nullopt});
      apply_restart_tiers(eviction, s, t);
      const auto& e = eviction.classes.front();
      classes.push_back({e.rate, true, wait_after(0.0), e.restart_s, 1, e.restart_no_standby_s()});
    }
  }

  double hardware_load = 0;
  for (const auto& k : classes)
    if (k.hardware) hardware_load += k.rate * k.machines * (k.wait + mean_replacement_s(f.replacement));
  const double blocking = standby_blocking(s.cluster.standby_machines, hardware_load, 1);
  const double replacement = blocking * mean_replacement_s(f.replacement);

  Loss loss;
  for (const auto& k : classes) {
    const double hit = std::min<double>(groups, mean_groups_hit(s.cluster.machines, per_group, k.machines));
    const double share = groups - hit >= c.min_groups ? hit / groups : 1.0;
    loss.rate += k.rate;
    loss.wait += k.rate * k.wait;
    const double restart = k.hardware ? (1.0 - blocking) * k.restart + blocking * k.restart_no_standby : k.restart;
    loss.out += k.rate * share * ((k.hardware ? replacement : 0.0) + restart + heal);
  }
  const double speed = 1.0 - (1.0 - f.stragglers.speed) * slow_share;
  const double up = std::max(0.0, 1.0 - loss.wait - loss.out);
  const double ettr = std::max(0.0, (speed * up - loss.rate * step / 2.0) * (t / step));

  if (!first_order_finish(p, s, t, loss.rate, ettr, loss.wait, "per-step")) return p;
  const double w = p.wall_time_s;
  p.metrics["time_breakdown_s.detection"] = loss.wait * w;
  p.metrics["time_breakdown_s.lost_progress"] = loss.rate * t / 2.0 * w;
  p.metrics["time_breakdown_s.training"] = ettr * w;
  p.metrics["time_breakdown_s.degraded"] = (1.0 - loss.wait - speed * up) * w;
  p.metrics["wasted_time_per_failure_s"] = t / 2.0;
  return p;
}

}  // namespace ckptsim
