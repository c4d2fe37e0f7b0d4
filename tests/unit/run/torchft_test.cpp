// The torchft strategy (run/strategies/torchft.cpp): its costs from the scenario fields, the
// per_step tier's waits (heartbeat and step timeouts), and its closed form
// (analysis/per_step_model.hpp). Cases worked by hand on the small scenario
// (tests/unit/common/test_scenarios.hpp: 16 machines, C = 12 GB, NIC 1 GB/s, T = 60 s, 10 h,
// detection 15 s, restart 60 s, replacement 5 min).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;

namespace {

Scenario torchft_scenario(int groups) {
  Scenario s = test::small_scenario(StrategyKind::torchft);
  s.strategy.replica_groups = groups;
  s.strategy.min_replica_groups = 1;
  return s;
}

/// The costs of `s` without torchft's cost per step: the cases on outages below are worked by
/// hand for steps of T alone (the per-step cost F has cases of its own at the end).
StrategyCosts costs_without_step_cost(const Scenario& s) {
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  c.ft_step = SimTime::zero();
  return c;
}

/// One replica of `s` with the failures of `trace` (CSV rows after the header); `step_cost`
/// false leaves F out (costs_without_step_cost).
ReplicaResult run_trace(Scenario s, const std::string& trace, bool step_cost = false) {
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = test::write_trace_file("ckptsim_torchft_trace.csv", "time,machine,type\n" + trace);
  const RunModel model(s, step_cost ? compute_strategy_costs(s, nullptr) : costs_without_step_cost(s));
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  return r;
}

}  // namespace

TEST_CASE("torchft: costs are the per-step tier with the heal of one group's state over the NIC") {
  // 4 groups of 4 machines: each machine of a healing group receives C / 4 machines = 3 GB
  // from its counterpart at 1 GB/s: 3 s. TorchFT's defaults: step timeout 60 s, heartbeat 5 s.
  Scenario s = torchft_scenario(4);
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.tier == CheckpointTier::per_step);
  CHECK(c.replica_groups == 4);
  CHECK(c.min_groups == 1);
  CHECK(c.heal == seconds(3));
  CHECK(c.step_timeout == seconds(60));
  CHECK(c.heartbeat_timeout == seconds(5));
  CHECK(c.stall == SimTime::zero());
  // At half the bandwidth (heal_bandwidth 500 MB/s) the heal takes twice as long; 8 groups of 2
  // machines hold 6 GB each: 6 s at 1 GB/s.
  s.strategy.heal_bandwidth = 0.5e9;
  CHECK(compute_strategy_costs(s, nullptr).heal == seconds(6));
  Scenario eight = torchft_scenario(8);
  CHECK(compute_strategy_costs(eight, nullptr).heal == seconds(6));
  // Without heal_bandwidth the heal goes at the achieved point-to-point rate f B_n
  // (network/achieved_bandwidth.hpp): f = 0.5 halves 1 GB/s, so 3 GB take 6 s.
  Scenario slow = torchft_scenario(4);
  slow.cluster.network.p2p_efficiency = 0.5;
  CHECK(compute_strategy_costs(slow, nullptr).heal == seconds(6));
}

TEST_CASE("torchft: one group lost for a known time loses exactly that group's share of samples") {
  // Software failure of machine 5 (group 1 of 4) at 6000 s, an iteration boundary. Every group
  // waits max(5 s heartbeat, min(15 s detection, 60 s timeout)) = 15 s; group 1 is out until
  // 6000 + 15 + 60 (restart) + 3 (heal) = 6078 s, so over [6015, 6078) the 3 others train at 3/4:
  // 63 / 4 = 15.75 s of the job's work is the group's share of samples lost. Nothing is rolled
  // back. Work = 36000 - 15 - 15.75 = 35969.25 s: 599 iterations and 29.25 s of a 600th.
  const ReplicaResult r = run_trace(torchft_scenario(4), "6000,5,software\n");
  CHECK(r.failures() == 1);
  CHECK(r.breakdown.detection == seconds(15));
  CHECK(r.breakdown.degraded == SimTime::from_seconds(15.75));
  CHECK(r.breakdown.training == SimTime::from_seconds(35969.25));
  CHECK(r.iterations == 599);
  CHECK(r.breakdown.lost_progress == SimTime::zero());
  CHECK(r.breakdown.total() == r.wall_time);
}

TEST_CASE("torchft: a hang is cut short by the step timeout, a quick crash waits for the heartbeat") {
  // Every failure a hang: NVRx/NCCL would find it after min(600 s, 5 x 60 s) + 5 s / 2 = 302.5 s,
  // but the surviving groups' collective times out after TorchFT's 60 s: they wait 60 s. The
  // group is out until 6000 + 60 + 60 + 3 = 6123 s: (6123 - 6060) / 4 = 15.75 s degraded.
  Scenario hang = torchft_scenario(4);
  hang.failures.hangs.fraction = 1.0;
  const ReplicaResult h = run_trace(hang, "6000,5,software\n");
  CHECK(h.breakdown.detection == seconds(60));
  CHECK(h.breakdown.degraded == SimTime::from_seconds(15.75));
  // A crash detected in 2 s still waits for the lighthouse to drop the group: 5 s.
  Scenario quick = torchft_scenario(4);
  quick.failures.detection = seconds(2);
  const ReplicaResult q = run_trace(quick, "6000,5,software\n");
  CHECK(q.breakdown.detection == seconds(5));
  // Out until 6000 + 5 + 60 + 3 = 6068 s: 63 / 4 = 15.75 s degraded.
  CHECK(q.breakdown.degraded == SimTime::from_seconds(15.75));
}

TEST_CASE("torchft: the closed form adds each failure's wait, half a step and one group's share") {
  // Lambda = 1 / 2 h over the cluster, half hardware. Per failure: wait 15 s, half a step 30 s,
  // and the hit group's outage after the wait over G = 4: (0.5 x 300 + 60 + 3) / 4 = 53.25 s;
  // ETTR = 1 - (15 + 30 + 53.25) / 7200 = 1 - 98.25 / 7200.
  Scenario s = torchft_scenario(4);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (16 * 7200.0);
  s.run.duration = days(10);
  const StrategyCosts c = costs_without_step_cost(s);
  const AnalyticPrediction p = predict_run(s, c);
  REQUIRE(p.available);
  CHECK(p.ettr == doctest::Approx(1.0 - 98.25 / 7200.0).epsilon(1e-12));
  // 10 days / 2 h = 120 failures; 120 x 15 s waiting.
  CHECK(p.metrics.at("failures.total") == doctest::Approx(120.0));
  CHECK(p.metrics.at("time_breakdown_s.detection") == doctest::Approx(1800.0));
  // With both groups needed (quorum 4 of 4) a group's outage stops every group: the share is 1,
  // 15 + 30 + 213 = 258 s per failure.
  s.strategy.min_replica_groups = 4;
  const AnalyticPrediction all = predict_run(s, costs_without_step_cost(s));
  CHECK(all.ettr == doctest::Approx(1.0 - 258.0 / 7200.0).epsilon(1e-12));
  // And the Monte Carlo agrees (first order: overlaps of 213 s outages at 1 / 2 h shift the
  // lost time by about 213 / 7200 = 3% of itself, 1e-3 of ETTR at most).
  s.strategy.min_replica_groups = 1;
  s.run.replicas = 200;
  MonteCarloOptions o;
  o.replicas = s.run.replicas;
  o.jobs = 2;
  const RunSummary r = summarize(run_replicas(RunModel(s, c), o));
  const auto& ettr = r.at("ettr");
  CAPTURE(ettr.mean);
  CAPTURE(ettr.ci95);
  CHECK(std::fabs(ettr.mean - p.ettr) < ettr.ci95 + 2e-4);
}

TEST_CASE("torchft: the cost per step is the gradient all-reduce across groups and the commit vote, by hand") {
  // 16 machines, 1e9 parameters, mixed precision (2-byte gradients), 4 groups: a machine holds
  // 1/(16/4) of its group's model, g_m = 1e9 x 2 x 4 / 16 = 0.5 GB of gradients, all-reduced
  // by a ring of 4: 2 x 3/4 x 0.5 GB = 0.75 GB through its NIC at 1 GB/s (collective efficiency
  // 1) = 0.75 s, plus 2 x 3 latencies of 10 us = 60 us: A = 0.75006 s. K = 0: F = A.
  Scenario s = torchft_scenario(4);
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.ft_step == microseconds(750060));
  // The commit vote adds itself: K = 2 ms.
  s.strategy.ft_commit_latency = milliseconds(2);
  CHECK(compute_strategy_costs(s, nullptr).ft_step == microseconds(752060));
  // Gloo copies the 0.5 GB to and from host memory over 8 GPUs' PCIe links at 25 GB/s each:
  // 2 x 0.5 GB / 200 GB/s = 5 ms more.
  s.strategy.ft_transport = FtTransport::gloo;
  CHECK(compute_strategy_costs(s, nullptr).ft_step == microseconds(757060));
  // Twice the groups, the same 16 machines: g_m = 1 GB, 2 x 7/8 x 1 GB = 1.75 s + 14 x 10 us.
  Scenario eight = torchft_scenario(8);
  CHECK(compute_strategy_costs(eight, nullptr).ft_step == microseconds(1750140));
}

TEST_CASE("torchft: every step takes T + F, and F is fault-tolerance time, not training") {
  // No failure in 10 h: F = 0.75006 s (above), a step P = 60.75006 s. 36000 / P = 592.59...:
  // 592 whole steps and 36000 - 592 P = 35.96448 s of a 593rd. Of the wall time, F / P is
  // checkpoint_stall (the breakdown's fault-tolerance bucket) and T / P training:
  // training = 36000 x 60 / 60.75006 = 35555.5198... s, so ETTR = 60 / 60.75006.
  const ReplicaResult r = run_trace(torchft_scenario(4), "", true);
  CHECK(r.iterations == 592);
  CHECK(r.breakdown.training + r.breakdown.checkpoint_stall == seconds(36000));
  CHECK(r.breakdown.lost_progress == SimTime::zero());
  CHECK(r.breakdown.training.seconds() == doctest::Approx(36000.0 * 60.0 / 60.75006).epsilon(1e-12));
  CHECK(r.breakdown.checkpoint_stall.seconds() == doctest::Approx(36000.0 * 0.75006 / 60.75006).epsilon(1e-9));
  // A software failure of machine 5 at 6000 s: the step in flight is discarded (6000 - 98 P =
  // 46.49412 s of lost progress, its F share included), every group waits 15 s, and group 1 is
  // out 63 s after that (3/4 of the rate: 15.75 s degraded). The steps kept take
  // 36000 - 46.49412 - 15 - 15.75 = 35922.75588 s: 591 steps (591 P = 35903.28546 s) and
  // 19.47042 s of a 592nd.
  const ReplicaResult f = run_trace(torchft_scenario(4), "6000,5,software\n", true);
  CHECK(f.iterations == 591);
  CHECK(f.breakdown.lost_progress.seconds() == doctest::Approx(46.49412).epsilon(1e-12));
  CHECK(f.breakdown.degraded == SimTime::from_seconds(15.75));
  CHECK((f.breakdown.training + f.breakdown.checkpoint_stall).seconds() == doctest::Approx(35922.75588).epsilon(1e-12));
  CHECK(f.breakdown.total() == f.wall_time);
  // The closed form: (1 - 0) x T / P without failures.
  Scenario s = torchft_scenario(4);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0;
  const AnalyticPrediction p = predict_run(s, compute_strategy_costs(s, nullptr));
  REQUIRE(p.available);
  CHECK(p.ettr == doctest::Approx(60.0 / 60.75006).epsilon(1e-12));
}

TEST_CASE("torchft: its cost per step turns the ranking against checkpoint-restart on a slow network") {
  // No failure in 10 h (what is compared is what each strategy costs while nothing fails).
  // remote-periodic, a checkpoint every hour: 60 steps of 60 s, then C / B_storage = 12 GB /
  // 100 MB/s = 120 s of stall, cycles of 3720 s: 9 cycles (33480 s) and 2520 s of training,
  // ETTR = (9 x 3600 + 2520) / 36000 = 0.97.
  Scenario periodic = test::small_scenario(StrategyKind::remote_periodic);
  const StrategyCosts pc = compute_strategy_costs(periodic, nullptr);
  REQUIRE(pc.stall == seconds(120));
  const RunModel periodic_model(periodic, pc);
  const ReplicaResult rp = periodic_model.simulate(0);
  CHECK(rp.breakdown.training == seconds(34920));
  // torchft with 4 groups on the 1 GB/s NIC: F = 0.75006 s, ETTR = 60 / 60.75006 = 0.98765:
  // torchft first. Left out F (the model before it), 1.0: first as well.
  const ReplicaResult fast = run_trace(torchft_scenario(4), "", true);
  CHECK(fast.breakdown.training > rp.breakdown.training);
  // On a 100 MB/s NIC (the iteration time is given, so only F and the heal change): the
  // all-reduce moves 0.75 GB at 100 MB/s, 7.5 s, + 60 us: P = 67.50006 s, ETTR = 60 / 67.50006
  // = 0.8889 < 0.97: checkpoint-restart first. Without F torchft would still rank first (1.0).
  Scenario slow = torchft_scenario(4);
  slow.cluster.network_bandwidth = 1e8;
  REQUIRE(compute_strategy_costs(slow, nullptr).ft_step == microseconds(7500060));
  const ReplicaResult r = run_trace(slow, "", true);
  CHECK(r.breakdown.training.seconds() == doctest::Approx(36000.0 * 60.0 / 67.50006).epsilon(1e-12));
  CHECK(r.breakdown.training < rp.breakdown.training);
  CHECK(run_trace(slow, "", false).breakdown.training > rp.breakdown.training);
}

TEST_CASE("torchft: a group restarts at its own ranks when the restart phases are in effect") {
  // 16 machines x 8 GPUs, 4 groups: a group is 32 ranks. Phases (defaults): process start 5 s,
  // rendezvous 32 x 1.017 ms = 32.544 ms, communicator init 0.66 s + 3 x 31 x 0.896 ms =
  // 0.743328 s, warm-up 253 s: 258.775872 s; and the communicator across the 4 groups,
  // 0.66 + 3 x 3 x 0.896 ms = 0.668064 s: group restart 259.443936 s. (The whole job, 128
  // ranks: 5 + 0.130176 + 0.66 + 3 x 127 x 0.000896 + 253 = 259.131552 s.)
  Scenario s = torchft_scenario(4);
  s.failures.restart_phases = RestartPhasesSpec{};
  s.failures.restart = microseconds(259131552);
  s.failures.restart_from_phases = true;
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.reconfigure == microseconds(668064));
  CHECK(c.group_restart == microseconds(259443936));
  // A software failure of machine 5 at 6000 s: every group waits 15 s + the two reconfigurations
  // (2 x 0.668064 s) = 16.336128 s; group 1 is out until then + 259.443936 + 3 s (heal), so
  // (259.443936 + 3) / 4 = 65.610984 s of the job's work is degraded.
  const ReplicaResult r = run_trace(s, "6000,5,software\n");
  CHECK(r.breakdown.detection == microseconds(16336128));
  CHECK(r.breakdown.degraded == microseconds(65610984));
  // A restart written by the user is the group's restart as written: no phases, no reconfiguring.
  Scenario written = torchft_scenario(4);
  const StrategyCosts w = compute_strategy_costs(written, nullptr);
  CHECK(w.group_restart == SimTime::zero());
  CHECK(w.reconfigure == SimTime::zero());
}
