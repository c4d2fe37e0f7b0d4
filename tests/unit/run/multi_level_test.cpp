// Multi-level checkpointing in the run model: the level clock against iteration-by-
// iteration stepping, recovery from the cheapest surviving level on a hand-built failure
// sequence, and the adaptive persistent interval converging to Daly's.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <utility>

#include "ckptsim/run/interval_policy.hpp"
#include "ckptsim/run/level_clock.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;
using ckptsim::test::small_scenario;
using ckptsim::test::write_trace_file;

namespace {

/// T = 10 s; level 1 every 2 iterations (stall 1 s), level 2 every 4 (3 s), level 3 every 8 (7 s).
SegmentPattern hand_pattern() {
  SegmentPattern p;
  p.iteration = seconds(10);
  p.every = 2;
  p.stall = seconds(1);
  p.completion = seconds(1);
  p.checkpoints = true;
  p.partner_every = 4;
  p.partner_stall = seconds(3);
  p.persistent_every = 8;
  p.persistent_stall = seconds(7);
  return p;
}

/// small_scenario with multi-level checkpoints every 2 / 6 / 12 iterations (2, 6, 12 min) and
/// failures from the trace at `trace`.
Scenario levels_every_2_6_12(SimTime duration, const std::string& trace) {
  Scenario s = small_scenario(StrategyKind::multi_level);
  s.strategy.local_interval = minutes(2);
  s.strategy.partner_interval = minutes(6);
  s.strategy.persistent_interval = minutes(12);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = trace;
  s.run.duration = duration;
  return s;
}

int tier(const ReplicaResult& r, RecoveryTier t) { return static_cast<int>(r.recoveries[static_cast<std::size_t>(t)]); }

}  // namespace

TEST_CASE("level clock: hand-computed block starts, stalls and latest checkpoints") {
  // From state 0: block b captures state 2b. Levels: 2 -> 1, 4 -> 2, 6 -> 1, 8 -> 3, with stalls
  // 1, 3, 1, 7 s. Captures: b1 at 20; b2 at 40 + 1 = 41; b3 at 60 + 1 + 3 = 64; b4 at 80 + 5 = 85.
  const LevelClock c(hand_pattern(), 0);
  // 9 iterations: 90 s plus the stalls of the 4 blocks before iteration 9 = 90 + 12 = 102 s.
  CHECK(c.time_to_complete(9) == seconds(102));
  CHECK(c.completed(seconds(102)) == 9);
  CHECK(c.completed(seconds(101.9)) == 8);
  // Stall by 86 s: blocks 1-3 (5 s) and 1 s of block 4's 7 s.
  CHECK(c.stall(seconds(86)) == seconds(6));
  // Level 2 at 44 s: block 2 (state 4) is usable at 41 + 3 = 44; a moment earlier only block 1
  // (state 2, level 1) is complete, so no level->=2 checkpoint exists yet.
  REQUIRE(c.latest_at_level(seconds(44), CheckpointLevel::partner).has_value());
  CHECK(c.latest_at_level(seconds(44), CheckpointLevel::partner)->version == 4);
  CHECK(c.latest_at_level(seconds(44), CheckpointLevel::partner)->captured_at == seconds(41));
  CHECK_FALSE(c.latest_at_level(seconds(43.9), CheckpointLevel::partner).has_value());
  CHECK(c.latest_at_level(seconds(43.9), CheckpointLevel::local)->version == 2);
  // Level 3: block 4 (state 8) is usable at 85 + 7 = 92.
  CHECK_FALSE(c.latest_persistent(seconds(91.9)).has_value());
  CHECK(c.latest_persistent(seconds(92))->version == 8);
  // At 92 s the newest level-1 checkpoint is the same state 8 (a level-3 one is a level-1 one too).
  CHECK(c.latest_checkpoint(seconds(92))->version == 8);
}

TEST_CASE("level clock: closed form equals iteration-by-iteration stepping") {
  // The same queries, from states of each level, at every 0.25 s over 600 s; with all three
  // levels, without level 2 and without level 3 (a level without a period has no checkpoint).
  for (const auto& periods : {std::pair{4, 8}, std::pair{0, 8}, std::pair{4, 0}}) {
    const int partner_every = periods.first;
    const int persistent_every = periods.second;
    SegmentPattern p = hand_pattern();
    p.stall = SimTime::from_seconds(0.5);
    p.partner_every = partner_every;
    p.persistent_every = persistent_every;
    CAPTURE(partner_every);
    CAPTURE(persistent_every);
    for (const std::int64_t n0 : {0, 2, 4, 6, 8, 14}) {
      const LevelClock fast(p, n0);
      const SteppedLevelClock slow(p, n0);
      for (int q = 0; q <= 2400; ++q) {
        const SimTime e = SimTime::from_seconds(0.25 * q);
        CAPTURE(n0);
        CAPTURE(q);
        REQUIRE(fast.completed(e) == slow.completed(e));
        REQUIRE(fast.stall(e) == slow.stall(e));
        // The three levels from one search (latest_by_level, index level - 1) answer as the
        // per-level queries of the stepping clock.
        const LatestByLevel by_level = fast.latest_by_level(e);
        for (const auto level : {CheckpointLevel::local, CheckpointLevel::partner, CheckpointLevel::persistent}) {
          const auto a = fast.latest_at_level(e, level);
          const auto b = slow.latest_at_level(e, level);
          const auto& c = by_level[static_cast<std::size_t>(level) - 1];
          REQUIRE(a.has_value() == b.has_value());
          REQUIRE(c.has_value() == b.has_value());
          if (a) {
            REQUIRE(a->version == b->version);
            REQUIRE(a->captured_at == b->captured_at);
            REQUIRE(c->version == b->version);
            REQUIRE(c->captured_at == b->captured_at);
          }
        }
      }
      for (std::int64_t j = 0; j < 60; ++j) REQUIRE(fast.time_to_complete(j) == slow.time_to_complete(j));
    }
  }
}

TEST_CASE("multi-level: a failure recovers from the cheapest level that survived") {
  // 16 machines, T = 60 s, shard 0.75 GB, 2 replicas in groups {0,1}, {2,3}, ... (small_scenario).
  // Levels: local every 2 iterations (2 min), partners every 6 (6 min), storage every 12 (12 min).
  // Stalls: S1 = 0.75 GB / 1 GB/s = 0.75 s; S2 = S1 + 0.75 GB / 1 GB/s = 1.5 s; S3 = S2 + 12 GB /
  // 100 MB/s = 121.5 s. Retrieval: local 0.75 s, peer 1.5 s, storage 120.75 s. Detection 15 s,
  // restart 60 s, replacement 5 min, no standby.
  // 1. software at 500 s: state 8 (captured 483 s, usable 483.75 s) is in every machine's
  //    memory -> local; rollback 500 - 483 = 17 s, + 0.75 s retrieval; resumes at 575.75 s.
  // 2. hardware, machine 0, at 1200 s (segment time 624.25 s): the newest level-1 state (16) is
  //    gone with machine 0's memory; the newest level->=2 state is 12 (level 3, captured at
  //    segment time 240.75 s), whose copy survives on machine 1 -> peer; rollback 624.25 -
  //    240.75 = 383.5 s, + 1.5 s; replacement ready at 1200 + 15 + 300 = 1515 s, resumes at 1576.5 s.
  // 3. hardware, machine 2 at 2000 s and machine 3 at 2005 s, in the same episode: both
  //    holders of group {2,3} lose their memory -> level 2 lost -> storage, state 12 again
  //    (segment time 423.5 s lost), + 120.75 s; ready at 2005 + 15 + 300 = 2320 s, resumes at
  //    2320 + 120.75 + 60 = 2500.75 s.
  const std::string path = write_trace_file("ckptsim_multi_level_trace.csv",
                                            "time,machine,type\n500,5,software\n1200,0,hardware\n"
                                            "2000,2,hardware\n2005,3,hardware\n");
  const Scenario s = levels_every_2_6_12(seconds(3000), path);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  const ReplicaResult exact = model.simulate(0, AdvanceMode::exact);
  std::filesystem::remove(path);
  CHECK(model.costs().every_iterations == 2);
  CHECK(model.costs().partner_every_iterations == 6);
  CHECK(model.costs().persistent_every_iterations == 12);
  REQUIRE(r.failures() == 4);
  CHECK(tier(r, RecoveryTier::local) == 1);
  CHECK(tier(r, RecoveryTier::peer) == 1);
  CHECK(tier(r, RecoveryTier::storage) == 1);
  CHECK(tier(r, RecoveryTier::scratch) == 0);
  // Wasted = (17 + 0.75) + (383.5 + 1.5) + (423.5 + 120.75) = 947 s.
  CHECK(r.wasted_time == seconds(947));
  // From state 12 at 2500.75 s, 499.25 s remain: 8 iterations take 480 s + stalls of states 14,
  // 16 (level 1) and 18 (level 2) = 483 s; a ninth would end at 543 s. Final state 20.
  CHECK(r.iterations == 20);
  CHECK(exact.iterations == r.iterations);
  CHECK(exact.wasted_time == r.wasted_time);
  CHECK(exact.breakdown.checkpoint_stall == r.breakdown.checkpoint_stall);
}

TEST_CASE("multi-level: before the first level-3 checkpoint a lost partner level means scratch") {
  // Machines 0 and 1 (one group) both replaced at 300 s, before state 12's level-3 checkpoint:
  // levels 1 and 2 are gone, level 3 does not exist yet -> scratch.
  const std::string path =
      write_trace_file("ckptsim_multi_level_scratch.csv", "time,machine,type\n400,0,hardware\n401,1,hardware\n");
  const Scenario s = levels_every_2_6_12(seconds(1000), path);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(path);
  CHECK(tier(r, RecoveryTier::scratch) == 1);
  CHECK(tier(r, RecoveryTier::peer) + tier(r, RecoveryTier::local) + tier(r, RecoveryTier::storage) == 0);
  // Everything before 400 s is rolled back (the lineage of the initial state is 0).
  CHECK(r.wasted_time == seconds(400));
}

TEST_CASE("adaptive interval converges to Daly's interval under constant-rate failures") {
  // remote-periodic, stall delta = C / B_s = 120 s, cluster MTBF M = 6 h = 21600 s. Daly (FGCS
  // 2006): tau = sqrt(2 delta M)(1 + sqrt(x)/3 + x/9) - delta, x = delta/(2M) = 1/360:
  // sqrt(5184000) = 2276.84; x-terms 1.017883 -> tau = 2197.54 s = 36.63 iterations of 60 s.
  // Over W = 200 d a replica sees n ~ 800 failures; the estimate (n+1)/(t+M0) has relative sd
  // 1/sqrt(n), tau (~ rate^-1/2) half that, 1.8% = 0.65 iterations, plus rounding to a whole
  // iteration (sd 0.29): sd ~ 0.72 iterations per replica. Mean of 40 replicas: sd 0.11;
  // tolerance 5 sd = 0.57 (false alarm ~ 6e-7), plus 0.05 for the mean of rounded values.
  Scenario s = small_scenario(StrategyKind::remote_periodic);
  s.strategy.adaptive_interval = true;
  s.strategy.adaptive_prior_mtbf = days(1);  // deliberately 4x off: the data must win
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (21600.0 * s.cluster.machines);
  s.run.duration = days(200);
  s.run.replicas = 40;
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  double sum = 0;
  for (int i = 0; i < s.run.replicas; ++i) {
    const ReplicaResult r = model.simulate(static_cast<std::uint64_t>(i));
    CHECK(std::fabs(static_cast<double>(r.final_persistent_every) - 36.63) < 5 * 0.72 + 0.5);
    sum += static_cast<double>(r.final_persistent_every);
  }
  CHECK(std::fabs(sum / s.run.replicas - 36.63) < 0.62);
  // Without failures seen, the policy uses the prior alone: Daly(120 s, 1 d) = 4474.0 s = 74.57 iterations -> 75.
  CHECK(adaptive_period_iterations(seconds(120), seconds(60), 1, 0, SimTime::zero(), days(1), days(7)) == 75);
  // A run that ends after 30 min caps the period at the 30 iterations it can reach (a longer one
  // never checkpoints within the run, and its product with T stays on the clock).
  CHECK(adaptive_period_iterations(seconds(120), seconds(60), 1, 0, SimTime::zero(), days(1), minutes(30)) == 30);
  // Units of 4 iterations (the lower level's period): floor(1800 s / 240 s) = 7 units = 28 iterations.
  CHECK(adaptive_period_iterations(seconds(120), seconds(60), 4, 0, SimTime::zero(), days(1), minutes(30)) == 28);
}

TEST_CASE("multi-level: after a peer recovery the replaced machine has no level-1 copy until the next one") {
  // Costs as in the case above (16 machines, groups {0,1}, ...; S1 = 0.75 s, retrieval local
  // 0.75 s, peer 1.5 s; detection 15 s, restart 60 s, replacement 5 min, T = 60 s).
  // 1. hardware, machine 0, at 2000 s: machine 0's CPU memory is gone -> peer; replacement ready
  //    at 2000 + 15 + 300 = 2315 s, retrieval to 2316.5 s, restart to 2376.5 s.
  // 2. software, machine 1, at 2450 s (segment time 73.5 s < 2 T = 120 s: the first level-1
  //    checkpoint after the restart is captured at 2496.5 s): machine 0 got its shard from machine
  //    1 and has stored nothing in its own CPU memory since the latest level-1 completion
  //    (docs/models.md; GEMINI's rule) -> peer, not local. Resumes at 2450 + 15 + 1.5 + 60 =
  //    2526.5 s.
  // 3. software, machine 1, at 2800 s: the level-1 checkpoint captured at 2526.5 + 120 = 2646.5 s
  //    completed 0.75 s later, every machine holds its own copy again -> local.
  const std::string path = write_trace_file("ckptsim_multi_level_peer_after_hw.csv",
                                            "time,machine,type\n2000,0,hardware\n2450,1,software\n2800,1,software\n");
  const Scenario s = levels_every_2_6_12(seconds(3000), path);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  const ReplicaResult exact = model.simulate(0, AdvanceMode::exact);
  std::filesystem::remove(path);
  REQUIRE(r.failures() == 3);
  CHECK(tier(r, RecoveryTier::peer) == 2);
  CHECK(tier(r, RecoveryTier::local) == 1);
  CHECK(tier(r, RecoveryTier::storage) + tier(r, RecoveryTier::scratch) == 0);
  CHECK(tier(exact, RecoveryTier::peer) == 2);
  CHECK(tier(exact, RecoveryTier::local) == 1);
}
