// The live-migration pause of failure/migration.hpp.
#include "ckptsim/failure/migration.hpp"

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"

namespace ckptsim {

bool migration_modelled(const FailureSpec& spec) { return spec.migration.fraction > 0; }

SimTime migration_pause(const Scenario& s) {
  if (s.failures.migration.pause) return *s.failures.migration.pause;
  const SimTime copy = checked_transfer_time(s.checkpoint_bytes_per_machine(), p2p_machine_send_bandwidth(s.cluster),
                                             "/failures/migration/pause", "moving a machine's state to a standby");
  return checked_add(copy, s.failures.restart_tiers.in_process_latency, "/failures/migration/pause",
                     "the state's copy and the in-process restart");
}

}  // namespace ckptsim
