// The diloco strategy (run/strategies/diloco.cpp): its costs, the islands tier's rounds under
// failures (src/run/recovery/policies/islands.cpp), counted by hand, and its closed form
// (analysis/islands_model.hpp). Small scenario (tests/unit/common/test_scenarios.hpp: 16
// machines, 1e9 parameters, C = 12 GB, NIC 1 GB/s, 10 us latency, T = 60 s, 10 h, detection
// 15 s, restart 60 s, replacement 5 min).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;

namespace {

/// Two islands of 8 machines, rounds of H = 10 steps (L = 600 s).
Scenario diloco_scenario() {
  Scenario s = test::small_scenario(StrategyKind::diloco);
  s.strategy.replica_groups = 2;
  s.strategy.min_replica_groups = 1;
  s.strategy.sync_every = 10;
  return s;
}

/// The costs with round numbers for the cases worked by hand: the outer synchronization
/// A = 30 s and the heal 10 s (their own values are checked in the first case).
StrategyCosts diloco_round_costs(const Scenario& s) {
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  c.outer_sync = seconds(30);
  c.heal = seconds(10);
  return c;
}

/// One replica of `s` with the failures of `trace` (CSV rows after the header).
ReplicaResult diloco_run_trace(Scenario s, const std::string& trace) {
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = test::write_trace_file("ckptsim_diloco_trace.csv", "time,machine,type\n" + trace);
  const RunModel model(s, diloco_round_costs(s));
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  return r;
}

}  // namespace

TEST_CASE("diloco: costs are the islands tier with the outer all-reduce once per H steps, by hand") {
  // 2 islands of 8 machines: each machine holds 1/8 of its island's model, its share of the fp32
  // pseudo-gradient is g_o = 1e9 x 4 x 2 / 16 = 0.5 GB, all-reduced by a ring of 2:
  // 2 x 1/2 x 0.5 GB = 0.5 GB through its NIC at 1 GB/s = 0.5 s, + 2 x 1 latency of 10 us:
  // A = 0.50002 s. The heal: C G / N = 12 GB x 2 / 16 = 1.5 GB per machine at 1 GB/s = 1.5 s.
  Scenario s = diloco_scenario();
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.tier == CheckpointTier::islands);
  CHECK(c.replica_groups == 2);
  CHECK(c.sync_every == 10);
  CHECK(c.outer_sync == microseconds(500020));
  CHECK(c.heal == milliseconds(1500));
  CHECK(c.heartbeat_timeout == seconds(5));
  CHECK(c.step_timeout == seconds(60));
  // A bf16 outer gradient halves the bytes: 0.25 s + 20 us.
  s.strategy.outer_gradient_bytes = 2;
  CHECK(compute_strategy_costs(s, nullptr).outer_sync == microseconds(250020));
  // 4 islands of 4 machines: g_o = 1e9 x 4 x 4 / 16 = 1 GB, 2 x 3/4 x 1 GB = 1.5 s + 6 x 10 us.
  Scenario four = diloco_scenario();
  four.strategy.replica_groups = 4;
  CHECK(compute_strategy_costs(four, nullptr).outer_sync == microseconds(1500060));
}

TEST_CASE("diloco: two islands, one failing, steps counted by hand") {
  // Cycle P = L + A = 600 + 30 = 630 s; round k starts at 630 k. Without failures, 10 h =
  // 57 rounds (35910 s) and 90 s of inner steps of a 58th: training 57 x 600 + 90 = 34290 s.
  const ReplicaResult clean = diloco_run_trace(diloco_scenario(), "");
  CHECK(clean.breakdown.training == seconds(34290));
  CHECK(clean.breakdown.checkpoint_stall == seconds(57 * 30));
  CHECK(clean.iterations == 571);  // 34290 / 60 = 571.5
  // A software failure of machine 9 (island 1) at 6400 s, 100 s into round 10 (6300-6900 s):
  // island 1 loses its 100 s (50 s of the job's work: lost progress) and is out until
  // 6400 + 15 (detection) + 60 (restart) = 6475 s. Island 0 trains on: round 10 commits 600 s of
  // island 0 alone, 300 s of the job's work; island 1's other 500 s are its absent share, 250 s
  // degraded. It rejoins at round 10's synchronization (6900 s: the lighthouse dropped it long
  // before), which waits for its heal, 10 s, then A: the next round starts at 6940 s. Then
  // 46 rounds to 35920 s and 80 s of inner steps. Training = 10 x 600 + 300 + 46 x 600 + 80 =
  // 33980 s: 566 iterations (33960 s) and 20 s; checkpoint_stall = 57 x 30 s; retrieval = 10 s.
  // The parts: inner wall 34280 = 33980 + 50 + 250, + 1710 + 10 = 36000 s.
  const ReplicaResult r = diloco_run_trace(diloco_scenario(), "6400,9,software\n");
  CHECK(r.failures() == 1);
  CHECK(r.breakdown.training == seconds(33980));
  CHECK(r.breakdown.lost_progress == seconds(50));
  CHECK(r.breakdown.degraded == seconds(250));
  CHECK(r.breakdown.retrieval == seconds(10));
  CHECK(r.breakdown.detection == SimTime::zero());
  CHECK(r.breakdown.checkpoint_stall == seconds(1710));
  CHECK(r.iterations == 566);
  CHECK(r.breakdown.total() == r.wall_time);
  CHECK(r.wall_time == hours(10));
}

TEST_CASE("diloco: a failure during the synchronization discards every island's round") {
  // Machine 9 fails at 6910 s, inside round 10's synchronization (6900-6930 s): should_commit
  // fails for both islands, which restore the last synchronization's parameters: 2 x 600 s of
  // island-time, 600 s of the job's work, lost. They resume at 6910 + max(5 s heartbeat,
  // min(15 s detection, 60 s timeout)) = 6925 s (25 s of detection from 6900 s). Island 1 is
  // ready at 6910 + 75 = 6985 s and rejoins at round 11's synchronization (7525 s; heal 10 s,
  // A 30 s, next round at 7565 s), so round 11 keeps 300 s and island 1's absence is 300 s
  // degraded. Then 45 rounds to 35915 s and 85 s of inner steps. Training = 6000 + 300 + 27000
  // + 85 = 33385 s; checkpoint_stall = (10 + 1 + 45) x 30 = 1680 s.
  const ReplicaResult r = diloco_run_trace(diloco_scenario(), "6910,9,software\n");
  CHECK(r.breakdown.training == seconds(33385));
  CHECK(r.breakdown.lost_progress == seconds(600));
  CHECK(r.breakdown.degraded == seconds(300));
  CHECK(r.breakdown.detection == seconds(25));
  CHECK(r.breakdown.retrieval == seconds(10));
  CHECK(r.breakdown.checkpoint_stall == seconds(1680));
  CHECK(r.breakdown.total() == r.wall_time);
}

TEST_CASE("diloco: the synchronization waits for the lighthouse to drop a fresh failure, and for a quorum") {
  // Machine 9 fails at 6898 s, 2 s before round 10's synchronization: the lighthouse still sees
  // its heartbeat until 6903 s, so the quorum forms then (3 s of detection). Island 1 is ready at
  // 6973 s, after that quorum: the synchronization ends at 6933 s without it, and it rejoins at
  // round 11's (7533 s; heal 10 s). Of round 10 island 1 did 598 s (299 s of the job's work,
  // lost); it is absent for the last 2 s of round 10 and all 600 s of round 11 (301 s degraded).
  const ReplicaResult r = diloco_run_trace(diloco_scenario(), "6898,9,software\n");
  CHECK(r.breakdown.detection == seconds(3));
  CHECK(r.breakdown.lost_progress == seconds(299));
  CHECK(r.breakdown.degraded == seconds(301));
  CHECK(r.breakdown.retrieval == seconds(10));
  CHECK(r.breakdown.total() == r.wall_time);
  // With a quorum of both islands, a failure at 6850 s (ready at 6925 s) holds round 10's
  // synchronization until 6925 s: 25 s of detection for every island, then the heal (10 s) and
  // A; island 1's absence is 50 s of round 10 (25 s degraded) and its 550 s done are lost (275 s).
  Scenario both = diloco_scenario();
  both.strategy.min_replica_groups = 2;
  const ReplicaResult q = diloco_run_trace(both, "6850,9,software\n");
  CHECK(q.breakdown.detection == seconds(25));
  CHECK(q.breakdown.degraded == seconds(25));
  CHECK(q.breakdown.lost_progress == seconds(275));
  CHECK(q.breakdown.retrieval == seconds(10));
  CHECK(q.breakdown.total() == q.wall_time);
}

TEST_CASE("diloco: the closed form adds each failure's missed rounds and every island's waits") {
  // L = 600, A = 30, P = 630, G = 2, software failures at Lambda = 1 / 2 h, D = 15 s, R = 60 s:
  // out = 75 s; missed rounds n = 1 + (75 + 30) / 630 = 7/6; share 1/2; lost work per failure
  // 600 x (1/2 x 7/6 + 30/630 x 1/2) = 364.2857 s. Waits per failure: heal 10 s, the heartbeat
  // window 5^2 / (2 x 630) = 0.0198 s, a failed commit 30/630 x (15 + 15) = 1.4286 s: 11.4484 s.
  // ETTR = 600/630 x (1 - 11.4484 / 7200) - 364.2857 / 7200 = 0.900272.
  Scenario s = diloco_scenario();
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (16 * 7200.0);
  s.failures.hardware_fraction = 0;
  s.run.duration = days(10);
  const StrategyCosts c = diloco_round_costs(s);
  const AnalyticPrediction p = predict_run(s, c);
  REQUIRE(p.available);
  const double wait = 10.0 + 25.0 / 1260.0 + 30.0 / 630.0 * 30.0;
  const double lost = 600.0 * (0.5 * 7.0 / 6.0 + 30.0 / 630.0 * 0.5);
  CHECK(p.ettr == doctest::Approx(600.0 / 630.0 * (1.0 - wait / 7200.0) - lost / 7200.0).epsilon(1e-12));
  CHECK(p.ettr == doctest::Approx(0.900272).epsilon(1e-5));
}

TEST_CASE("diloco: fault mechanisms the islands model does not simulate are refused by name") {
  // Stragglers would slow one island and the synchronization would wait for it: not simulated,
  // so refused (exit 2), not ignored.
  Scenario s = diloco_scenario();
  s.failures.stragglers.rate = 1e-6;
  s.failures.stragglers.speed = 0.5;
  CHECK_THROWS_AS(compute_strategy_costs(s, nullptr), ModelError);
}
