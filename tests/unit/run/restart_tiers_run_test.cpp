// The run model under restart tiers (failure/restart_tiers.hpp): the tier's detection and
// latency replace the cause's, every completed restart is counted by tier. Cases worked by hand
// on the small scenario (tests/unit/common/test_scenarios.hpp: 16 machines, T = 60 s, detection
// 15 s, restart R = 60 s, replacement 5 min; remote-periodic retrieves from storage in 120.75 s).
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_run.hpp"

using namespace ckptsim;

namespace {

Scenario tiered(StrategyKind kind = StrategyKind::remote_periodic) {
  Scenario s = test::small_scenario(kind);
  s.failures.restart_tiers.enabled = true;
  return s;
}

ReplicaResult run_tiers_trace(Scenario s, const std::string& rows) {
  return test::simulate_trace(std::move(s), "ckptsim_restart_tiers_trace.csv", rows);
}

using Counts = std::array<std::int64_t, 3>;

}  // namespace

TEST_CASE("restart tiers: a hang found at the soft timeout restarts in-process for timeout + in-process latency") {
  // Every failure a hang. The in-process Wrapper finds it after soft_timeout 60 s + monitor
  // interval 1 s = 61 s, before the heartbeat rule min(600, 5 x 60) + 2.5 = 302.5 s; the restart
  // is 2.5 s + one iteration (60 s) = 62.5 s instead of R. Retrieval from storage is unchanged.
  Scenario s = tiered();
  s.failures.hangs.fraction = 1.0;
  const ReplicaResult r = run_tiers_trace(s, "5000,3,software\n");
  CHECK(r.breakdown.detection == seconds(61));
  CHECK(r.breakdown.restart == SimTime::from_seconds(62.5));
  CHECK(r.breakdown.detection + r.breakdown.restart == SimTime::from_seconds(123.5));
  CHECK(r.breakdown.retrieval == SimTime::from_seconds(120.75));
  CHECK(r.restarts_by_tier == Counts{1, 0, 0});
  CHECK(r.breakdown.total() == r.wall_time);
  // With a timeout of 30 s (monitor interval 0) the hang costs exactly 30 s + 62.5 s.
  s.failures.restart_tiers.soft_timeout = seconds(30);
  s.failures.restart_tiers.monitor_interval = SimTime::zero();
  const ReplicaResult quick = run_tiers_trace(s, "5000,3,software\n");
  CHECK(quick.breakdown.detection + quick.breakdown.restart == SimTime::from_seconds(92.5));
}

TEST_CASE("restart tiers: a hang the in-job heartbeat finds first restarts in-job, with the cause's restart") {
  // safety factor 0.5: the heartbeat rule fires at min(600, 0.5 x 60) + 2.5 = 32.5 s < 61 s, so
  // the launcher restarts every worker: R = 60 s.
  Scenario s = tiered();
  s.failures.hangs.fraction = 1.0;
  s.failures.hangs.heartbeat_safety_factor = 0.5;
  const ReplicaResult r = run_tiers_trace(s, "5000,3,software\n");
  CHECK(r.breakdown.detection == SimTime::from_seconds(32.5));
  CHECK(r.breakdown.restart == seconds(60));
  CHECK(r.restarts_by_tier == Counts{0, 1, 0});
  // Hangs sent to the in-job tier never start the in-process Wrapper: the 302.5 s rule stands.
  Scenario in_job = tiered();
  in_job.failures.hangs.fraction = 1.0;
  in_job.failures.restart_tiers.hang = RestartTier::in_job;
  const ReplicaResult j = run_tiers_trace(in_job, "5000,3,software\n");
  CHECK(j.breakdown.detection == SimTime::from_seconds(302.5));
  CHECK(j.restarts_by_tier == Counts{0, 1, 0});
}

TEST_CASE("restart tiers: a crash keeps its detection and restarts in-process") {
  const ReplicaResult r = run_tiers_trace(tiered(), "5000,3,software\n");
  CHECK(r.breakdown.detection == seconds(15));
  CHECK(r.breakdown.restart == SimTime::from_seconds(62.5));
  CHECK(r.restarts_by_tier == Counts{1, 0, 0});
}

TEST_CASE("restart tiers: a lost machine restarts in-job on a free standby, else in a new job after its replacement") {
  // in-job latency 100 s, a new job 200 s more. With one standby the machine is replaced at
  // detection (no wait) and the job restarts in-job: 100 s.
  Scenario s = tiered();
  s.failures.restart_tiers.in_job_latency = seconds(100);
  s.failures.restart_tiers.new_job_overhead = seconds(200);
  s.cluster.standby_machines = 1;
  const ReplicaResult spare = run_tiers_trace(s, "5000,3,hardware\n");
  CHECK(spare.breakdown.replacement_wait == SimTime::zero());
  CHECK(spare.breakdown.restart == seconds(100));
  CHECK(spare.restarts_by_tier == Counts{0, 1, 0});
  // No standby: the 5 min replacement, then a new job of 100 + 200 s.
  s.cluster.standby_machines = 0;
  const ReplicaResult none = run_tiers_trace(s, "5000,3,hardware\n");
  CHECK(none.breakdown.replacement_wait == minutes(5));
  CHECK(none.breakdown.restart == seconds(300));
  CHECK(none.restarts_by_tier == Counts{0, 0, 1});
  // A reserve worker (hardware tier in-process) on the free standby: 2.5 + 60 s.
  s.cluster.standby_machines = 1;
  s.failures.restart_tiers.hardware = RestartTier::in_process;
  const ReplicaResult reserve = run_tiers_trace(s, "5000,3,hardware\n");
  CHECK(reserve.breakdown.restart == SimTime::from_seconds(62.5));
  CHECK(reserve.restarts_by_tier == Counts{1, 0, 0});
}

TEST_CASE("restart tiers: an episode of several failures restarts once, at its highest tier") {
  // A crash at 5000 s, then machine 7 lost at 5010 s during its detection, no standby: one
  // restart, a new job of R = 60 s + 200 s; the crash's in-process restart (62.5 s) is not paid.
  Scenario s = tiered();
  s.failures.restart_tiers.new_job_overhead = seconds(200);
  const ReplicaResult r = run_tiers_trace(s, "5000,3,software\n5010,7,hardware\n");
  CHECK(r.episodes == 1);
  CHECK(r.breakdown.restart == seconds(260));
  CHECK(r.restarts_by_tier == Counts{0, 0, 1});
  CHECK(r.breakdown.total() == r.wall_time);
}

TEST_CASE("restart tiers: per-step fault tolerance restarts the failed group at the tier's latency") {
  // torchft, 4 groups: machine 5 crashes at 6000 s; every group waits 15 s; group 1 is out until
  // 6000 + 15 + 62.5 (in-process) + 3 (heal) = 6080.5 s, so (6080.5 - 6015) / 4 = 16.375 s of
  // the job's work is lost to degraded throughput (torchft_test's case with R = 60 s gave 15.75).
  Scenario s = tiered(StrategyKind::torchft);
  s.strategy.replica_groups = 4;
  s.strategy.min_replica_groups = 1;
  const ReplicaResult r = run_tiers_trace(s, "6000,5,software\n");
  CHECK(r.breakdown.degraded == SimTime::from_seconds(16.375));
  CHECK(r.restarts_by_tier == Counts{1, 0, 0});
}

TEST_CASE("restart tiers: the counts are run columns only when the tiers are on") {
  const auto has = [](const ReplicaResult& r, const std::string& name) {
    const auto m = replica_metrics(r);
    return std::any_of(m.begin(), m.end(), [&](const auto& kv) { return kv.first == name; });
  };
  const ReplicaResult on = run_tiers_trace(tiered(), "5000,3,software\n");
  CHECK(has(on, "restarts.in_process"));
  CHECK(has(on, "restarts.new_job"));
  Scenario off = tiered();
  off.failures.restart_tiers.enabled = false;
  const ReplicaResult flat = run_tiers_trace(off, "5000,3,software\n");
  CHECK_FALSE(has(flat, "restarts.in_process"));
  // Without tiers the restart is the cause's R = 60 s.
  CHECK(flat.breakdown.restart == seconds(60));
}
