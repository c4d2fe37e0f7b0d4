// The detection and restart times of run/recovery/restart_model.hpp.
#include "ckptsim/run/recovery/restart_model.hpp"

#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/restart_tiers.hpp"

namespace ckptsim {

RestartModel::RestartModel(const Scenario& s, const StrategyCosts& c, const std::vector<FailureCause>& causes)
    : causes_(causes),
      tiers_(s.failures.restart_tiers.enabled ? &s.failures.restart_tiers : nullptr),
      iteration_time_(c.iteration_time),
      in_job_hang_detection_(hang_detection(s.failures.hangs, c.iteration_time)),
      hang_detection_(tiers_ != nullptr ? tiered_hang_detection(*tiers_, in_job_hang_detection_) : in_job_hang_detection_) {}

RestartModel::Restart RestartModel::tiered_restart(const FailureEvent& f, bool spare, SimTime cause_restart) const {
  const RestartTier tier = restart_tier(*tiers_, fault_class(f.type == FailureType::hardware, f.hang), spare,
                                        in_process_hang_detection(*tiers_), in_job_hang_detection_);
  return {tier, restart_latency(*tiers_, tier, cause_restart, iteration_time_)};
}

}  // namespace ckptsim
