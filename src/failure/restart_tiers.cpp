// The restart tiers of restart_tiers.hpp; the model is in the header.
#include "ckptsim/failure/restart_tiers.hpp"

#include <algorithm>

#include "ckptsim/core/checked_time.hpp"

namespace ckptsim {

FaultClass fault_class(bool hardware, bool hang) {
  if (hardware) return FaultClass::hardware;
  return hang ? FaultClass::hang : FaultClass::software;
}

SimTime in_process_hang_detection(const RestartTierSpec& spec) {
  return saturating_add(spec.soft_timeout, spec.monitor_interval);
}

RestartTier restart_tier(const RestartTierSpec& spec, FaultClass k, bool spare, SimTime in_process_detection,
                         SimTime in_job_detection) {
  switch (k) {
    case FaultClass::software: return spec.software;
    case FaultClass::hang:
      // The in-job heartbeat firing first means the launcher restarts every worker.
      if (spec.hang == RestartTier::in_process && in_job_detection < in_process_detection) return RestartTier::in_job;
      return spec.hang;
    case FaultClass::hardware: return spare ? spec.hardware : RestartTier::new_job;
  }
  return RestartTier::new_job;
}

SimTime tiered_hang_detection(const RestartTierSpec& spec, SimTime in_job_detection) {
  if (spec.hang != RestartTier::in_process) return in_job_detection;
  return std::min(in_process_hang_detection(spec), in_job_detection);
}

SimTime restart_latency(const RestartTierSpec& spec, RestartTier tier, SimTime cause_restart, SimTime iteration_time) {
  const SimTime in_job = spec.in_job_latency.value_or(cause_restart);
  switch (tier) {
    case RestartTier::in_process:
      return saturating_add(saturating_add(spec.in_process_latency, spec.communicator_rebuild), iteration_time);
    case RestartTier::in_job: return in_job;
    case RestartTier::new_job: return saturating_add(in_job, spec.new_job_overhead);
  }
  return in_job;
}

}  // namespace ckptsim
