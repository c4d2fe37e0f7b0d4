// The just-in-time strategy (run/strategies/just_in_time.cpp, the run model's just_in_time
// tier): a JIT recovery redoes exactly the interrupted minibatch; with every replica of a shard
// failed it falls back to the periodic checkpoint, and says so. Cases worked by hand on the small
// scenario (tests/unit/common/test_scenarios.hpp: 16 machines, C = 12 GB, storage 100 MB/s,
// serialization 1 GB/s, T = 60 s, 10 h, detection 15 s, restart 60 s, replacement 5 min), with
// 2 replica groups of 8 machines (machines j and j + 8 hold the same shard) and fallback
// checkpoints every 3 h.
//   periodic fallback: every round(3 h / 60 s) = 180 iterations, S = max(C / B_s, c / B_ser) =
//   max(120, 0.75) = 120 s; JIT save J = max(C / B_s, (C x 2 / 16) / B_ser) = max(120, 1.5) = 120 s;
//   retrieval from storage C / B_s + c / B_ser = 120.75 s.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <utility>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_run.hpp"

using namespace ckptsim;

namespace {

Scenario jit_scenario() {
  Scenario s = test::small_scenario(StrategyKind::just_in_time);
  s.strategy.replica_groups = 2;
  s.strategy.interval = hours(3);
  return s;
}

ReplicaResult run_jit_trace(Scenario s, const std::string& trace) {
  return test::simulate_trace(std::move(s), "ckptsim_jit_trace.csv", trace);
}

}  // namespace

TEST_CASE("just-in-time: costs are the periodic fallback plus the survivors' save") {
  const StrategyCosts c = compute_strategy_costs(jit_scenario(), nullptr);
  CHECK(c.tier == CheckpointTier::just_in_time);
  CHECK(c.every_iterations == 180);
  CHECK(c.stall == seconds(120));
  CHECK(c.jit_save == seconds(120));
  CHECK(c.retrieval_storage == SimTime::from_seconds(120.75));
}

TEST_CASE("just-in-time: a JIT recovery redoes exactly one minibatch") {
  // Software failure of machine 5 at 6030 s: iterations 1..100 are done (6000 s, no periodic
  // checkpoint before state 180); the surviving replicas save state 100 and the run redoes the
  // 30 s of iteration 101 only. Episode: detection to 6045, save to 6165, retrieval to 6285.75,
  // restart to 6345.75. Periodic checkpoints count k = 180 iterations from each restart (the
  // segment rule of run/segment_clock.hpp): states 280 and 460 stall 120 s each at segment times
  // 10800 and 21720 (the next would be at 32640, past the 29654.25 s left); compute
  // 29654.25 - 240 = 29414.25 s: 490 iterations (29400 s) and 14.25 s, so 590 iterations.
  const ReplicaResult r = run_jit_trace(jit_scenario(), "6030,5,software\n");
  CHECK(r.jit_recoveries == 1);
  CHECK(r.jit_fallbacks == 0);
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::storage)] == 1);
  CHECK(r.breakdown.lost_progress == seconds(30));
  CHECK(r.wasted_time == SimTime::from_seconds(30 + 120.75));
  CHECK(r.breakdown.detection == seconds(15));
  CHECK(r.breakdown.retrieval == SimTime::from_seconds(120.75));
  CHECK(r.breakdown.restart == seconds(60));
  CHECK(r.breakdown.checkpoint_stall == seconds(120 + 2 * 120));
  CHECK(r.iterations == 590);
  CHECK(r.breakdown.training == SimTime::from_seconds(590 * 60 + 14.25));
  CHECK(r.breakdown.total() == r.wall_time);
}

TEST_CASE("just-in-time: with a replica of every shard left, two failures still recover just in time") {
  // Hardware failures of machines 3 and 4 (different shards) at 6030 s and 6040 s: detection
  // 6030-6040 (cut by the second failure) and 6040-6055 = 25 s; save 6055-6175; both
  // replacements arrive 5 min after their detections, the later at 6355: 180 s of waiting.
  const ReplicaResult r = run_jit_trace(jit_scenario(), "6030,3,hardware\n6040,4,hardware\n");
  CHECK(r.jit_recoveries == 1);
  CHECK(r.jit_fallbacks == 0);
  CHECK(r.breakdown.detection == seconds(25));
  CHECK(r.breakdown.replacement_wait == seconds(180));
  CHECK(r.wasted_time == SimTime::from_seconds(30 + 120.75));
}

TEST_CASE("just-in-time: every replica of a shard lost falls back to the periodic checkpoint and counts it") {
  // Machines 3 and 11 hold the same shard. Failing together at 6030 s and 6040 s, before any
  // periodic checkpoint: back to the initial state (scratch, nothing to retrieve), all 6030 s of
  // work lost; no save, so the wait for the replacement runs from the detection at 6055 s to 6355 s.
  const ReplicaResult early = run_jit_trace(jit_scenario(), "6030,3,hardware\n6040,11,hardware\n");
  CHECK(early.jit_recoveries == 0);
  CHECK(early.jit_fallbacks == 1);
  CHECK(early.recoveries[static_cast<std::size_t>(RecoveryTier::scratch)] == 1);
  CHECK(early.wasted_time == seconds(6030));
  CHECK(early.breakdown.replacement_wait == seconds(300));
  // At 12030 s and 12040 s the periodic checkpoint of state 180 (captured at 10800 s, complete at
  // 10920 s after its 120 s stall) is the fallback: 12030 - 10800 = 1230 s rolled back, plus the
  // retrieval from storage.
  const ReplicaResult late = run_jit_trace(jit_scenario(), "12030,3,hardware\n12040,11,hardware\n");
  CHECK(late.jit_fallbacks == 1);
  CHECK(late.recoveries[static_cast<std::size_t>(RecoveryTier::storage)] == 1);
  CHECK(late.wasted_time == SimTime::from_seconds(1230 + 120.75));
}

TEST_CASE("just-in-time: one machine failing twice in one episode is one holder lost, not every holder") {
  // Machines 3 and 11 hold shard position 3. Only machine 3 fails, twice within one episode
  // (software, at 12868.6 s and 12878.6 s): machine 11's replica is intact, so the survivors'
  // save still recovers the interrupted minibatch (issue 38, item 5: the run model counted
  // failures per position, so the second failure of machine 3 made it fall back).
  // Timeline: states 1..180 by 10800 s, the periodic checkpoint of state 180 stalls to 10920 s;
  // 12868.6 - 10920 = 1948.6 s = 32 iterations (states 181..212, done by 12840 s) + 28.6 s into
  // iteration 213. Just in time: state 212 is saved, lost progress 28.6 s (a fallback to state
  // 180 would lose the whole 1948.6 s). Episode: detection 12868.6-12878.6 (cut by the second
  // failure) and 12878.6-12893.6, 25 s; save 120 s to 13013.6; no replacement (software);
  // retrieval 120.75 s to 13134.35; restart 60 s to 13194.35. Periodic checkpoints count from the
  // restart: stalls at 13194.35 + 10800 = 23994.35 and 23994.35 + 10920 = 34914.35 (its 120 s end
  // before 36000 s). Stall 120 (state 180) + 120 (save) + 2 x 120 = 480 s. Iterations: 212, then
  // 36000 - 13194.35 - 240 = 22565.65 s = 376 iterations + 5.65 s: 588.
  const ReplicaResult r = run_jit_trace(jit_scenario(), "12868.6,3,software\n12878.6,3,software\n");
  CHECK(r.episodes == 1);
  CHECK(r.jit_recoveries == 1);
  CHECK(r.jit_fallbacks == 0);
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::storage)] == 1);
  CHECK(r.breakdown.lost_progress == SimTime::from_seconds(28.6));
  CHECK(r.breakdown.detection == seconds(25));
  CHECK(r.breakdown.checkpoint_stall == seconds(480));
  CHECK(r.breakdown.replacement_wait == SimTime::zero());
  CHECK(r.iterations == 588);
  CHECK(r.breakdown.total() == r.wall_time);
  // The same machine failing twice, hardware then software (its replacement failing during the
  // retrieval), is still one holder: failures at 12868.6 s (hardware: the replacement arrives at
  // 12868.6 + 15 + 300 = 13183.6 s, the save ended at 13003.6 s) and at 13200 s (software,
  // during the retrieval to 13304.35 s) recover just in time, 28.6 s lost.
  const ReplicaResult again = run_jit_trace(jit_scenario(), "12868.6,3,hardware\n13200,3,software\n");
  CHECK(again.episodes == 1);
  CHECK(again.jit_recoveries == 1);
  CHECK(again.jit_fallbacks == 0);
  CHECK(again.breakdown.lost_progress == SimTime::from_seconds(28.6));
}

TEST_CASE("just-in-time: the closed form adds each failure's downtime and half a minibatch") {
  // Lambda = 1 / 2 h, half hardware. Down per failure: detection 15 + save 120 + the
  // replacement's excess over the save 0.5 x (300 - 120) + retrieval 120.75 + restart 60 =
  // 405.75 s; a share e^{-405.75 / 7200} of the wall time is training segments (M/G/inf busy
  // periods), each Exp(7200 s) long, ending in a redone half minibatch (30 s per 7200 s), and
  // stalling 120 s at segment times 10800 + n 10920: a compute share
  // u = 1 - (1 - e^{-120/7200}) e^{-10800/7200} / (1 - e^{-10920/7200}).
  Scenario s = jit_scenario();
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (16 * 7200.0);
  s.run.duration = days(10);
  const AnalyticPrediction p = predict_run(s, compute_strategy_costs(s, nullptr));
  REQUIRE(p.available);
  const double u = 1.0 - (1.0 - std::exp(-120.0 / 7200)) * std::exp(-10800.0 / 7200) / (1.0 - std::exp(-10920.0 / 7200));
  CHECK(p.ettr == doctest::Approx(std::exp(-405.75 / 7200) * u * (1.0 - 30.0 / 7200)).epsilon(1e-12));
  // 10 days / 2 h = 120 failures.
  CHECK(p.metrics.at("failures.total") == doctest::Approx(120.0));
}
