// The shared start, finish and hang detection of the first-order closed forms (first_order.hpp).
#include "ckptsim/analysis/first_order.hpp"

#include <utility>

#include <fmt/format.h>

#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/restart_tiers.hpp"

namespace ckptsim {

AnalyticPrediction first_order_start(const FailureMix& mix, std::string model_note) {
  AnalyticPrediction p;
  if (!mix.available) {
    p.reason = mix.reason;
    return p;
  }
  p.available = true;
  p.notes = mix.notes;
  p.omitted_terms = mix.omitted;
  p.notes.push_back(std::move(model_note));
  return p;
}

bool first_order_wall_time(AnalyticPrediction& p, const Scenario& s, double iteration_s, double ettr,
                           std::string_view model) {
  if (s.run.duration) {
    p.wall_time_s = s.run.duration->seconds();
    return true;
  }
  if (ettr <= 0) {
    p.wall_time_s = 0;
    p.available = false;
    p.reason = fmt::format("the {} closed form gives no progress: the run.iterations target is never reached", model);
    return false;
  }
  p.wall_time_s = static_cast<double>(s.run.iterations.value_or(0)) * iteration_s / ettr;
  return true;
}

bool first_order_finish(AnalyticPrediction& p, const Scenario& s, double iteration_s, double rate, double ettr,
                        double downtime_share, std::string_view model) {
  p.failure_rate = rate;
  p.mtbf_s = rate > 0 ? 1.0 / rate : 0.0;
  p.ettr = ettr;
  p.ettr_asymptotic = ettr;
  p.mean_service_s = rate > 0 ? downtime_share / rate : 0.0;
  p.failures_per_episode = 1.0;
  p.episode_mean_s = p.mean_service_s;
  if (!first_order_wall_time(p, s, iteration_s, ettr, model)) return false;
  p.metrics["ettr"] = ettr;
  p.metrics["failures.total"] = rate * p.wall_time_s;
  return true;
}

double first_order_hang_detection_s(const FailureSpec& f, SimTime iteration) {
  const SimTime in_job = hang_detection(f.hangs, iteration);
  return (f.restart_tiers.enabled ? tiered_hang_detection(f.restart_tiers, in_job) : in_job).seconds();
}

}  // namespace ckptsim
