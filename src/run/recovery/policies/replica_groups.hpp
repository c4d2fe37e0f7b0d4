#pragma once
// What the replica-group policies share (per_step.cpp: torchft; islands.cpp: diloco): a failure
// takes its replica groups out until their machines are replaced and they have restarted, and
// the survivors' wait in a failed collective. Private to the recovery policies.
#include <algorithm>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/run/recovery/replica_state.hpp"
#include "ckptsim/run/recovery/restart_model.hpp"

namespace ckptsim {

/// How long the surviving groups wait after failure f of `detection` in a collective it breaks:
/// until the collective errors out (the detection) or times out (step_timeout), and the
/// lighthouse has dropped the failed group (heartbeat_timeout), whichever is later:
/// max(heartbeat_timeout, min(detection, step_timeout)) (run/strategies/torchft.cpp).
inline SimTime quorum_wait(const StrategyCosts& c, SimTime detection) {
  return std::max(c.heartbeat_timeout, std::min(detection, c.step_timeout));
}

/// Counts failure f (already pulled from the source) and returns when its groups have restarted:
/// the replacement of a hardware failure's machines requested at `detected` (a free standby at
/// once), then the restart model's restart. The heal from a live peer comes after.
inline SimTime group_restarted_at(ReplicaState& st, const RestartModel& restarts, const FailureEvent& f, SimTime detected) {
  ++st.result.episodes;
  ++st.result.failures_by_cause[static_cast<std::size_t>(f.cause)];
  SimTime ready = detected;
  bool spare = true;
  if (f.type == FailureType::hardware) {
    ++st.result.hardware_failures;
    st.episode.replacements_ready = SimTime::zero();
    for (int j = f.machine; j < f.machine + f.machines; ++j) spare = st.replace_machine(j, f.time, detected) && spare;
    ready = std::max(ready, st.episode.replacements_ready);
  } else {
    ++st.result.software_failures;
  }
  const RestartModel::Restart restart = restarts.restart(f, spare);
  if (restarts.tiered()) ++st.result.restarts_by_tier[static_cast<std::size_t>(restart.tier)];
  ++st.result.recoveries[static_cast<std::size_t>(RecoveryTier::peer)];
  return saturating_add(ready, restart.latency);
}

}  // namespace ckptsim
