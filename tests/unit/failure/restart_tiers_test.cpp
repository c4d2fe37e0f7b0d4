// The restart-tier rules of failure/restart_tiers.hpp, checked against the header's table by hand.
#include <doctest/doctest.h>

#include "ckptsim/failure/restart_tiers.hpp"

using namespace ckptsim;

TEST_CASE("restart tiers: a lost machine is hardware whatever found it; a hang without one is a hang") {
  CHECK(fault_class(true, true) == FaultClass::hardware);
  CHECK(fault_class(true, false) == FaultClass::hardware);
  CHECK(fault_class(false, true) == FaultClass::hang);
  CHECK(fault_class(false, false) == FaultClass::software);
}

TEST_CASE("restart tiers: each class goes to its tier; a lost machine without a free standby needs a new job") {
  RestartTierSpec spec;  // software and hang in-process, hardware in-job
  const SimTime ip = seconds(61);
  const SimTime ij = SimTime::from_seconds(302.5);
  CHECK(restart_tier(spec, FaultClass::software, false, ip, ij) == RestartTier::in_process);
  CHECK(restart_tier(spec, FaultClass::hang, false, ip, ij) == RestartTier::in_process);
  CHECK(restart_tier(spec, FaultClass::hardware, true, ip, ij) == RestartTier::in_job);
  CHECK(restart_tier(spec, FaultClass::hardware, false, ip, ij) == RestartTier::new_job);
  // A reserve worker (in-process for hardware) still needs the standby to be free.
  spec.hardware = RestartTier::in_process;
  CHECK(restart_tier(spec, FaultClass::hardware, true, ip, ij) == RestartTier::in_process);
  CHECK(restart_tier(spec, FaultClass::hardware, false, ip, ij) == RestartTier::new_job);
  // The in-job heartbeat firing first (30 s < 61 s) hands the hang to the launcher.
  CHECK(restart_tier(spec, FaultClass::hang, false, ip, seconds(30)) == RestartTier::in_job);
  // A tie goes to the in-process rule (it fires no later).
  CHECK(restart_tier(spec, FaultClass::hang, false, ip, ip) == RestartTier::in_process);
}

TEST_CASE("restart tiers: hang detection is the first timeout to fire among those in force") {
  RestartTierSpec spec;
  // Wrapper defaults: soft_timeout 60 s + monitor_process_interval 1 s.
  CHECK(in_process_hang_detection(spec) == seconds(61));
  CHECK(tiered_hang_detection(spec, SimTime::from_seconds(302.5)) == seconds(61));
  CHECK(tiered_hang_detection(spec, seconds(30)) == seconds(30));
  // Without the in-process wrapper for hangs only the in-job rule is in force.
  spec.hang = RestartTier::in_job;
  CHECK(tiered_hang_detection(spec, SimTime::from_seconds(302.5)) == SimTime::from_seconds(302.5));
}

TEST_CASE("restart tiers: latencies (in-process 2.5 s + one iteration, in-job the cause's restart, new job + overhead)") {
  RestartTierSpec spec;
  const SimTime cause_restart = seconds(253);
  const SimTime t = seconds(12);
  // 0.5 + 1 + 0.5 + 0.5 s of the usage guide's table, plus one iteration of pending kernels.
  CHECK(restart_latency(spec, RestartTier::in_process, cause_restart, t) == SimTime::from_seconds(14.5));
  CHECK(restart_latency(spec, RestartTier::in_job, cause_restart, t) == seconds(253));
  CHECK(restart_latency(spec, RestartTier::new_job, cause_restart, t) == seconds(253));
  spec.in_job_latency = seconds(100);
  spec.new_job_overhead = seconds(200);
  CHECK(restart_latency(spec, RestartTier::in_job, cause_restart, t) == seconds(100));
  CHECK(restart_latency(spec, RestartTier::new_job, cause_restart, t) == seconds(300));
}
