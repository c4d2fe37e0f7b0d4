// Per-step fault tolerance in the run model (TorchFT; run/group_outages.hpp): a failed replica
// group leaves the quorum and the others train on. Cases worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "ckptsim/run/goodput.hpp"
#include "ckptsim/run/group_outages.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;

namespace {

/// small_scenario without checkpoints, 16 machines in `groups` replica groups, T = 60 s, 10 h;
/// detection 15 s, restart 60 s, replacement 5 min; heal 30 s; one failure from `trace`.
ReplicaResult per_step_run(int groups, int min_groups, const std::string& trace) {
  Scenario s = test::small_scenario(StrategyKind::none);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = test::write_trace_file("ckptsim_per_step_trace.csv", "time,machine,type\n" + trace);
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  c.tier = CheckpointTier::per_step;
  c.replica_groups = groups;
  c.min_groups = min_groups;
  c.heal = seconds(30);
  const RunModel model(s, c);
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  return r;
}

}  // namespace

TEST_CASE("per-step: one group out for a known time loses exactly that group's share of samples") {
  // 4 groups of 4 machines; a software failure of machine 5 (group 1) at 6000 s, an iteration
  // boundary (100 x 60 s). Every group waits the 15 s detection; group 1 is out until
  // 6000 + 15 + 60 (restart) + 30 (heal) = 6105 s. Over [6015, 6105) the 3 others train at 3/4:
  // the group's share lost is 90 / 4 = 22.5 s of work. Work = 36000 - 15 - 22.5 = 35962.5 s:
  // 599 iterations and 22.5 s of a 600th. Nothing is rolled back (the failure hit a boundary).
  const ReplicaResult r = per_step_run(4, 1, "6000,5,software\n");
  CHECK(r.failures() == 1);
  CHECK(r.breakdown.detection == seconds(15));
  CHECK(r.breakdown.degraded == SimTime::from_seconds(22.5));
  CHECK(r.breakdown.training == SimTime::from_seconds(35962.5));
  CHECK(r.iterations == 599);
  CHECK(r.breakdown.lost_progress == SimTime::zero());
  CHECK(r.breakdown.total() == r.wall_time);
  CHECK(r.breakdown.retrieval == SimTime::zero());
  CHECK(r.breakdown.restart == SimTime::zero());
}

TEST_CASE("per-step: the step in flight is lost, a hardware failure waits for its replacement") {
  // Machine 15 (group 3) fails (hardware) at 6030 s, half-way through iteration 101: its 30 s of
  // work are discarded by every group. The group is out until 6030 + 15 + 300 (replacement) + 60
  // + 30 = 6435 s; over [6045, 6435) the others train at 3/4: 390 / 4 = 97.5 s lost.
  // Work = 36000 - 15 - 97.5 - 30 = 35857.5 s: 597 iterations (35820 s) and 37.5 s.
  const ReplicaResult r = per_step_run(4, 1, "6030,15,hardware\n");
  CHECK(r.hardware_failures == 1);
  CHECK(r.machines_replaced == 1);
  CHECK(r.breakdown.degraded == SimTime::from_seconds(97.5));
  CHECK(r.breakdown.lost_progress == seconds(30));
  CHECK(r.breakdown.training == SimTime::from_seconds(35857.5));
  CHECK(r.iterations == 597);
  CHECK(r.wasted_time == seconds(30));
  const Goodput g = goodput_of(r.breakdown, r.wall_time, r.episodes);
  CHECK(g.goodput == doctest::Approx(35857.5 / 36000));
  CHECK(g.badput_degraded_throughput == doctest::Approx(97.5 / 36000));
}

TEST_CASE("per-step: below the quorum's minimum every group waits") {
  // 2 groups, both needed (min 2): group 0 out over [6000, 6105) stops the job until it
  // rejoins: 90 s of no work after the 15 s detection.
  const ReplicaResult r = per_step_run(2, 2, "6000,1,software\n");
  CHECK(r.breakdown.degraded == seconds(90));
  CHECK(r.breakdown.training == seconds(36000 - 15 - 90));
}

TEST_CASE("group outages: overlapping outages of different groups add, of one group join") {
  GroupOutages out(4, 1);
  out.take_out(0, seconds(100), seconds(200));
  out.take_out(1, seconds(150), seconds(250));
  out.take_out(0, seconds(180), seconds(220));  // group 0 again while out: until 220
  // [0,100): 4/4 -> 100; [100,150): 3/4 -> 37.5; [150,220): 2/4 -> 35; [220,250): 3/4 -> 22.5;
  // [250,300): 50. Total 245 s.
  CHECK(out.work(SimTime::zero(), seconds(300)) == SimTime::from_seconds(245));
  CHECK(out.out_at(seconds(210)) == 2);
}

TEST_CASE("per-step: ETTR under Poisson failures matches the first-order closed form") {
  // Cluster failure rate L = 1 / 2 h; per failure the job loses the detection D = 15 s (every
  // group waits), the step in flight (T / 2 = 30 s on average: failures fall uniformly within an
  // iteration) and one group's share of the group's outage after detection,
  // (h x W + R + H) / G = (0.5 x 300 + 60 + 30) / 4 = 60 s: 105 s per failure.
  //   ETTR = 1 - L x 105 s = 1 - 105 / 7200 = 0.985417.
  // Second-order effects (two failures of one group overlapping, a failure during a wait) are
  // about 1e-4 here.
  Scenario s = test::small_scenario(StrategyKind::none);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (16 * 7200.0);
  s.run.duration = days(10);
  s.run.replicas = 200;
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  c.tier = CheckpointTier::per_step;
  c.replica_groups = 4;
  c.heal = seconds(30);
  const RunModel model(s, c);
  MonteCarloOptions o;
  o.replicas = s.run.replicas;
  o.jobs = 2;
  const RunSummary r = summarize(run_replicas(model, o));
  const double closed = 1.0 - 105.0 / 7200.0;
  const auto& ettr = r.at("ettr");
  CAPTURE(ettr.mean);
  CAPTURE(ettr.ci95);
  CHECK(std::fabs(ettr.mean - closed) < ettr.ci95 + 2e-4);
  CHECK(ettr.ci95 < 5e-4);
}
