// The run model under the fault-model features (failure/fault_model.hpp): stragglers slow the
// job, hangs wait for timeouts, silent corruption rolls back past itself.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>

#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/run/goodput.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;

TEST_CASE("stragglers without failures: training is wall time minus (1 - speed) x slow time") {
  // No checkpoints, no failures: the only loss is the slowed part of the run. The slow time is
  // the union of the straggler windows (SlowWindows, checked against an oracle in the failure
  // tests); the run must turn exactly (1 - speed) of it into degraded throughput.
  Scenario s = test::small_scenario(StrategyKind::none);
  s.failures.stragglers.rate = 0.01 / 3600;  // 0.16 stragglers an hour in 16 machines
  s.failures.stragglers.speed = 0.25;
  s.failures.stragglers.duration = minutes(45);
  s.failures.stragglers.eviction = std::nullopt;
  s.run.duration = days(20);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  for (std::uint64_t replica = 0; replica < 3; ++replica) {
    const ReplicaResult r = model.simulate(replica);
    SlowWindows slow(s.failures, s.cluster.machines, s.run.seed, replica);
    const SimTime slowed = slow.slow_time(SimTime::zero(), days(20));
    REQUIRE(slowed > hours(10));
    CHECK(r.failures() == 0);
    CHECK(std::llabs((r.breakdown.degraded - SimTime::from_seconds(0.75 * slowed.seconds())).ns()) <= 1);
    CHECK(r.breakdown.training + r.breakdown.degraded == days(20));
    // Progress: whole iterations of 60 s of healthy work.
    CHECK(r.iterations == r.breakdown.training.ns() / seconds(60).ns());
    const Goodput g = goodput_of(r.breakdown, r.wall_time, r.episodes);
    CHECK(g.ettr_meta == doctest::Approx(1.0));
    CHECK(g.goodput == doctest::Approx(1.0 - 0.75 * slowed.seconds() / days(20).seconds()));
  }
}

TEST_CASE("stragglers: an iteration target takes longer in wall time, and is still reached exactly") {
  Scenario s = test::small_scenario(StrategyKind::none);
  s.failures.stragglers.rate = 0.02 / 3600;
  s.failures.stragglers.speed = 0.5;
  s.failures.stragglers.eviction = std::nullopt;
  s.run.duration.reset();
  s.run.iterations = 10000;  // 600,000 s of healthy work
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  CHECK(r.finished);
  CHECK(r.iterations == 10000);
  CHECK(r.breakdown.training == seconds(600000));
  CHECK(r.wall_time == r.breakdown.training + r.breakdown.degraded);
  CHECK(r.breakdown.degraded > SimTime::zero());
}

TEST_CASE("stragglers: evictions are failures of their own cause, and the run stays consistent") {
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.failures.stragglers.rate = 0.05 / 3600;
  s.failures.stragglers.duration = hours(2);
  s.failures.stragglers.eviction = minutes(10);
  s.run.duration = days(10);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const int cause = straggler_cause(s.failures);
  REQUIRE(cause == 2);  // after "software" and "hardware"
  // Evictions = stragglers outliving 10 min: P(D > E) = e^{-10/120} = 0.92 of 0.05 x 16 x 240 h
  // = 192 onsets: about 177 a replica.
  double evictions = 0;
  for (std::uint64_t replica = 0; replica < 10; ++replica) {
    const ReplicaResult r = model.simulate(replica);
    CHECK(r.breakdown.total() == r.wall_time);
    CHECK(r.hardware_failures == r.failures_by_cause[static_cast<std::size_t>(cause)]);
    CHECK(r.breakdown.degraded > SimTime::zero());
    // No straggler lasts longer than its eviction: slowed time at most 10 min per straggler.
    CHECK(r.breakdown.degraded <= minutes(5) * (r.hardware_failures + 60));
    evictions += static_cast<double>(r.hardware_failures);
  }
  // Mean of 10 replicas of a Poisson(177): sd 4.2; 5 sd = 21.
  CHECK(std::fabs(evictions / 10 - 192 * std::exp(-1.0 / 12)) < 21);
}

TEST_CASE("hangs: detected by the heartbeat timeout instead of failures.detection") {
  // One software failure at 5000 s of a remote-periodic run (T = 60 s). As a hang it is found
  // after min(600, 5 x 60) + 2.5 = 302.5 s instead of 15 s; every hang in the run is one.
  Scenario s = test::small_scenario(StrategyKind::remote_periodic);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = test::write_trace_file("ckptsim_hang_trace.csv", "time,machine,type\n5000,3,software\n");
  const ReplicaResult crash = RunModel(s, compute_strategy_costs(s, nullptr)).simulate(0);
  s.failures.hangs.fraction = 1.0;
  const ReplicaResult hang = RunModel(s, compute_strategy_costs(s, nullptr)).simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  CHECK(crash.breakdown.detection == seconds(15));
  CHECK(hang.breakdown.detection == SimTime::from_seconds(302.5));
  // The later restart costs the same wall time in training: 287.5 s less of it.
  CHECK(crash.breakdown.training - hang.breakdown.training == SimTime::from_seconds(287.5));
}

TEST_CASE("silent corruption: the run rolls back to the newest checkpoint captured before it") {
  // remote-periodic, T = 60 s, k = 60, stall 120 s: the checkpoint of state 60j completes at
  // 3720 j s (j >= 1) and was captured at lineage 3720 j - 120 s. A corruption starting at t_c
  // and found 1 h later (no other failure) rolls back to the newest j with 3720 j <= t_c; the
  // work rolled back is t_d - (3720 j - 120) with t_d = t_c + 3600, plus the storage retrieval
  // of 120.75 s: the wasted time of the episode.
  Scenario s = test::small_scenario(StrategyKind::remote_periodic);
  s.failures.silent_corruption.rate = 1.0 / (16 * 20000.0);  // one every 20,000 s in the cluster
  s.failures.silent_corruption.detection = hours(1);
  s.run.duration = hours(10);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  int checked = 0;
  for (std::uint64_t replica = 0; replica < 60; ++replica) {
    CorruptionOnsets onsets(s.failures.silent_corruption, s.cluster.machines, s.run.seed, replica);
    const double t1 = onsets.next().first.seconds();
    const double t2 = onsets.next().first.seconds();
    // Cases worked by hand: one corruption, detected within the run, the next one after the run.
    if (!(t1 + 3600 < 36000 && t2 > 36000)) continue;
    const ReplicaResult r = model.simulate(replica);
    const double j = std::floor(t1 / 3720);
    const double captured = j >= 1 ? 3720 * j - 120 : 0;
    const double retrieval = j >= 1 ? 120.75 : 0;
    CAPTURE(t1);
    REQUIRE(r.failures() == 1);
    CHECK(r.wasted_time.seconds() == doctest::Approx(t1 + 3600 - captured + retrieval).epsilon(1e-9));
    CHECK(r.recoveries[static_cast<std::size_t>(j >= 1 ? RecoveryTier::storage : RecoveryTier::scratch)] == 1);
    ++checked;
  }
  CHECK(checked >= 5);
}

TEST_CASE("silent corruption: in-memory checkpoints taken after it are useless") {
  // GEMINI checkpoints to CPU memory every iteration; a corruption found 1 h later has been in
  // every in-memory copy since: the recovery must come from storage (persistent every 1 h) or
  // the initial state, never from memory.
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.strategy.checkpoint_stall = SimTime::zero();
  s.failures.silent_corruption.rate = 1.0 / (16 * 20000.0);
  s.failures.silent_corruption.detection = hours(1);
  s.run.duration = hours(10);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  std::int64_t episodes = 0;
  for (std::uint64_t replica = 0; replica < 30; ++replica) {
    const ReplicaResult r = model.simulate(replica);
    CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::local)] == 0);
    CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::peer)] == 0);
    CHECK(r.breakdown.total() == r.wall_time);
    // A lone detection rolls back at least the hour of training since its corruption.
    if (r.failures() == 1) CHECK(r.wasted_time >= hours(1));
    episodes += r.episodes;
  }
  CHECK(episodes > 10);
}
