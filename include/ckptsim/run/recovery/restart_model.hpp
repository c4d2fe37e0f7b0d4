#pragma once
// How long a failure takes to be detected and a restart to warm up: the one place of the run
// model that says so (docs/models.md, "Run model" and "Restart tiers"). The recovery policies and
// the replica loop ask it; nothing else computes a detection or a restart.
//   detection(f)  a hang: the hang rule in force (fault_model.hpp's heartbeat / watchdog rule,
//                 or with restart tiers the first of it and the in-process rule,
//                 restart_tiers.hpp); otherwise the failure's cause's detection D_cause
//                 (failures.detection, or the cause table's own);
//   restart(f)    without restart tiers: the tier in_job and the cause's restart R_cause
//                 (failures.restart, or the cause table's own); with restart tiers
//                 (failures.restart_tiers): the tier of the failure's fault class (software, hang,
//                 hardware; a hardware failure whose lost machines did not all find a free
//                 standby is a new job) and that tier's latency:
//                   in-process  L_ip + T,   in-job  L_ij (default R_cause),   new job  L_ij + O_nj.
// An episode of several failures restarts once, at the highest tier and the longest latency
// among its failures (the replica loop keeps both). Units: SimTime (ns).
// A model of restarts as a sum of phases replaces restart() here, and nowhere else.
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

class RestartModel {
 public:
  /// `causes` as failure_causes() lists them, alive as long as the model.
  RestartModel(const Scenario& s, const StrategyCosts& c, const std::vector<FailureCause>& causes);

  /// Time from failure f until it is detected.
  [[nodiscard]] SimTime detection(const FailureEvent& f) const {
    return f.hang ? hang_detection_ : causes_[static_cast<std::size_t>(f.cause)].detection;
  }

  struct Restart {
    RestartTier tier = RestartTier::in_job;
    SimTime latency;
  };
  /// The restart after failure f; `spare`: every machine it lost found a free standby.
  [[nodiscard]] Restart restart(const FailureEvent& f, bool spare) const {
    const SimTime cause_restart = causes_[static_cast<std::size_t>(f.cause)].restart;
    if (tiers_ == nullptr) return {RestartTier::in_job, cause_restart};
    return tiered_restart(f, spare, cause_restart);
  }

  /// Restart tiers are modelled: the run counts restarts by tier.
  [[nodiscard]] bool tiered() const { return tiers_ != nullptr; }

 private:
  [[nodiscard]] Restart tiered_restart(const FailureEvent& f, bool spare, SimTime cause_restart) const;
  const std::vector<FailureCause>& causes_;
  const RestartTierSpec* tiers_;  ///< nullptr: the causes' flat restart
  SimTime iteration_time_;
  SimTime in_job_hang_detection_;  ///< the heartbeat / watchdog rule (fault_model.hpp)
  SimTime hang_detection_;         ///< the rule in force
};

}  // namespace ckptsim
