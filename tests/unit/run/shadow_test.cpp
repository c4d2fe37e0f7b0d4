// The shadow strategy (run/strategies/shadow.cpp): its traffic and costs, the shadow tier's
// recoveries (src/run/recovery/policies/shadow.cpp) under failures placed by hand, the shadow
// cluster's own failures, and its closed form (analytic_models.cpp, shadow_analytic). Small
// scenario (tests/unit/common/test_scenarios.hpp: 16 machines, 1e9 parameters, C = 12 GB, shard
// c = 0.75 GB, NIC 1 GB/s, serialization 1 GB/s, storage 100 MB/s, T = 60 s, 10 h, detection
// 15 s, restart 60 s, replacement 5 min, persistent uploads every hour), with the achieved
// point-to-point efficiency f = 1 so that the transfer times are round.
#include <doctest/doctest.h>

#include <algorithm>
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

/// 4 shadow machines stepping 1 GB/s of state each, f = 1.
Scenario shadow_scenario() {
  Scenario s = test::small_scenario(StrategyKind::shadow);
  s.cluster.network.p2p_efficiency = 1.0;
  s.strategy.shadow_machines = 4;
  s.strategy.shadow_update_bandwidth = 1e9;
  s.strategy.shadow_machine_mtbf = days(10000);
  return s;
}

/// One replica of `s` with the training failures of `trace` (CSV rows after the header).
ReplicaResult shadow_run_trace(Scenario s, const std::string& trace) {
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = test::write_trace_file("ckptsim_shadow_trace.csv", "time,machine,type\n" + trace);
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  return r;
}

std::size_t tier_index(RecoveryTier tier) { return static_cast<std::size_t>(tier); }

}  // namespace

TEST_CASE("shadow: traffic bytes and the shadow-tier costs, by hand") {
  // Gradients multicast per step: G = P w_g = 1e9 x 2 B = 2 GB, G / M = 0.5 GB per shadow
  // machine: ingress 0.5 GB / (1 x 1 GB/s) = 0.5 s. Its optimizer update: C / M = 12 GB / 4 =
  // 3 GB at 1 GB/s = 3 s. Shadow step T_sh = max(0.5, 3) = 3 s < T = 60 s: no stall (S = 0),
  // completion 3 s, k = 1. Retrieval from the shadow: max(C / (M f B_sh) = 12 GB / 4 GB/s = 3 s,
  // c / (f B_n) = 0.75 s) + c / B_ser 0.75 s = 3.75 s. A shadow machine's outage: replacement
  // 5 min + its 3 GB at 1 GB/s = 303 s; the whole shadow's re-sync 3 s. Failure rate of the
  // shadow: 4 / 10^4 days = 4 / 8.64e8 s.
  const Scenario s = shadow_scenario();
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.tier == CheckpointTier::shadow);
  CHECK(c.every_iterations == 1);
  CHECK(c.shadow_machines == 4);
  CHECK(c.shadow_gradient_bytes == doctest::Approx(2e9));
  CHECK(c.shadow_step == seconds(3));
  CHECK(c.stall == SimTime::zero());
  CHECK(c.completion == seconds(3));
  CHECK(c.retrieval_peer == milliseconds(3750));
  CHECK(c.shadow_outage == seconds(303));
  CHECK(c.shadow_resync == seconds(3));
  CHECK(c.shadow_failure_rate == doctest::Approx(4.0 / 8.64e8));
  // Persistent uploads as GEMINI's: every round(1 h / 60 s) = 60 iterations, C / B_s = 120 s.
  CHECK(c.persistent_every_iterations == 60);
  CHECK(c.upload == seconds(120));
  // fp32 gradients double G: 4 GB, 1 GB per shadow machine, ingress 1 s; still T_sh = 3 s.
  Scenario fp32 = s;
  fp32.strategy.shadow_gradient_bytes = 4;
  CHECK(compute_strategy_costs(fp32, nullptr).shadow_gradient_bytes == doctest::Approx(4e9));
  CHECK(compute_strategy_costs(fp32, nullptr).shadow_step == seconds(3));
  // Without the field, the gradients are in the training's word: fp32 training (no mixed
  // precision) sends 4 bytes per parameter, 1e9 x 4 = 4 GB, as the explicit field above.
  Scenario fp32_training = s;
  fp32_training.training.mixed_precision = false;
  CHECK(compute_strategy_costs(fp32_training, nullptr).shadow_gradient_bytes == doctest::Approx(4e9));
  // A shadow NIC of 5 MB/s: ingress 0.5 GB / 5 MB/s = 100 s > the update's 3 s and > T: the
  // shadow sets the pace, S = 100 - 60 = 40 s per iteration, completion 100 s, and a warning says
  // training is throttled.
  Scenario slow = s;
  slow.strategy.shadow_network_bandwidth = 5e6;
  const StrategyCosts throttled = compute_strategy_costs(slow, nullptr);
  CHECK(throttled.shadow_step == seconds(100));
  CHECK(throttled.stall == seconds(40));
  CHECK(throttled.completion == seconds(100));
  CHECK(std::any_of(throttled.warnings.begin(), throttled.warnings.end(),
                    [](const std::string& w) { return w.find("training is throttled") != std::string::npos; }));
  // The hardware: 4 shadow machines beside 16: goodput per machine-hour x 16 / 20 = 0.8.
  CHECK(std::any_of(c.warnings.begin(), c.warnings.end(),
                    [](const std::string& w) { return w.find("16/20 = 0.8") != std::string::npos; }));
}

TEST_CASE("shadow: a field it requires is named when absent") {
  Scenario s = shadow_scenario();
  s.strategy.shadow_update_bandwidth.reset();
  CHECK_THROWS_WITH_AS(compute_strategy_costs(s, nullptr), doctest::Contains("/strategy/shadow_update_bandwidth"), ModelError);
  Scenario m = shadow_scenario();
  m.strategy.shadow_machines.reset();
  CHECK_THROWS_WITH_AS(compute_strategy_costs(m, nullptr), doctest::Contains("/strategy/shadow_machines"), ModelError);
  Scenario f = shadow_scenario();
  f.strategy.shadow_machine_mtbf.reset();
  CHECK_THROWS_WITH_AS(compute_strategy_costs(f, nullptr), doctest::Contains("/strategy/shadow_machine_mtbf"), ModelError);
}

TEST_CASE("shadow: a training failure recovers the previous step from the shadow") {
  // k = 1, S = 0: iteration n ends at 60 n s; the shadow holds state n from 60 n + 3 s. A software
  // failure at 3630 s: state 60 (reached at 3600 s, in the shadow at 3603 s) is the newest, 30 s
  // rolled back; the episode: detection 15 s, retrieval from the shadow 3.75 s, restart 60 s.
  const ReplicaResult r = shadow_run_trace(shadow_scenario(), "3630,3,software\n");
  CHECK(r.failures() == 1);
  CHECK(r.breakdown.lost_progress == seconds(30));
  CHECK(r.breakdown.retrieval == milliseconds(3750));
  CHECK(r.recoveries[tier_index(RecoveryTier::peer)] == 1);
  CHECK(r.recoveries[tier_index(RecoveryTier::storage)] == 0);
  // At 3602 s state 60 is not yet in the shadow (3603 s): state 59, 3540 s, 62 s rolled back.
  const ReplicaResult early = shadow_run_trace(shadow_scenario(), "3602,3,software\n");
  CHECK(early.breakdown.lost_progress == seconds(62));
  CHECK(early.recoveries[tier_index(RecoveryTier::peer)] == 1);
}

TEST_CASE("shadow: the shadow cluster's own failures") {
  // Shadow machines failing once a second each (4 per second together), each out for W = 303 s:
  // a shadow machine is out at any instant after the first second but with probability
  // exp(-4 x 303) ~ 1e-527, i.e. never in practice.
  Scenario failing = shadow_scenario();
  failing.strategy.shadow_machine_mtbf = seconds(1);
  // (1) A shadow machine failing while training runs loses nothing: without training failures
  // the run is the failure-free one, 10 h / 60 s = 600 iterations, nothing lost.
  const ReplicaResult alone = shadow_run_trace(failing, "");
  CHECK(alone.iterations == 600);
  CHECK(alone.breakdown.lost_progress == SimTime::zero());
  CHECK(alone.wall_time == hours(10));
  // (2) Both fail: a training failure at 7300 s while a shadow machine is out falls back to the
  // persistent checkpoint. Uploads every 60 iterations: state 60 (3600 s) is in the shadow at
  // 3603 s and in storage at 3603 + 120 = 3723 s; state 120 would be there at 7323 s > 7300 s.
  // So state 60: 7300 - 3600 = 3700 s rolled back, retrieved from storage in C / B_s + c / B_ser
  // = 120 + 0.75 = 120.75 s. (With the shadow whole, state 121, 40 s rolled back, as above.)
  const ReplicaResult both = shadow_run_trace(failing, "7300,3,software\n");
  CHECK(both.breakdown.lost_progress == seconds(3700));
  CHECK(both.breakdown.retrieval == milliseconds(120750));
  CHECK(both.recoveries[tier_index(RecoveryTier::storage)] == 1);
  CHECK(both.recoveries[tier_index(RecoveryTier::peer)] == 0);
  // The same with a shadow machine failing every nanosecond (4e9 failures a second): the
  // outages are drawn in O(1) per question (policies/shadow.cpp), so this ends, with the same
  // answer.
  Scenario storm = failing;
  storm.strategy.shadow_machine_mtbf = SimTime::from_ns(1);
  CHECK(shadow_run_trace(storm, "7300,3,software\n").breakdown.lost_progress == seconds(3700));
  const ReplicaResult whole = shadow_run_trace(shadow_scenario(), "7300,3,software\n");
  CHECK(whole.breakdown.lost_progress == seconds(40));
  CHECK(whole.recoveries[tier_index(RecoveryTier::peer)] == 1);
}

TEST_CASE("shadow: after a recovery from scratch the shadow re-syncs before it serves again") {
  // A shadow NIC of 10 MB/s: re-sync of C / M = 3 GB takes 300 s; ingress 0.5 GB / 10 MB/s = 50 s
  // is the shadow step (T_sh = 50 s < T, no stall): state n of a segment is in the shadow 50 s
  // after it is reached. Shadow machines themselves never fail in practice (10^4 days each).
  Scenario s = shadow_scenario();
  s.strategy.shadow_network_bandwidth = 1e7;
  REQUIRE(compute_strategy_costs(s, nullptr).shadow_resync == seconds(300));
  // Failure 1 at 30 s: no state yet, scratch, 30 s rolled back; training resumes at 30 + 15 + 60
  // = 105 s, the shadow re-syncing to the initial state until 105 + 300 = 405 s.
  // Failure 2 at 400 s, 295 s into the segment: the shadow would hold state 4 (240 s, in the
  // shadow at 290 s) but is re-syncing: scratch again, 295 s rolled back: 325 s in all.
  const ReplicaResult during = shadow_run_trace(s, "30,3,software\n400,5,software\n");
  CHECK(during.breakdown.lost_progress == seconds(325));
  CHECK(during.recoveries[tier_index(RecoveryTier::scratch)] == 2);
  // Failure 2 at 410 s (305 s into the segment), after the re-sync: state 4 from the shadow,
  // 305 - 240 = 65 s rolled back: 95 s in all, retrieved in max(3 GB / 10 MB/s, 0.75 s) + 0.75 s
  // = 300.75 s.
  const ReplicaResult after = shadow_run_trace(s, "30,3,software\n410,5,software\n");
  CHECK(after.breakdown.lost_progress == seconds(95));
  CHECK(after.recoveries[tier_index(RecoveryTier::scratch)] == 1);
  CHECK(after.recoveries[tier_index(RecoveryTier::peer)] == 1);
  CHECK(after.breakdown.retrieval == milliseconds(300750));
}

TEST_CASE("shadow: its closed form names the shadow's own failures and agrees without them") {
  // The renewal model with a checkpoint every iteration: under 1.5 % failures per machine-day
  // the closed-form ETTR lies within the Monte Carlo's interval (strategy_closed_form_test.cpp
  // holds every strategy to that); here, that it lists the term it leaves out while shadow
  // machines fail, and that it is available (so analyze prints it).
  Scenario s = shadow_scenario();
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.015 / 86400.0;
  const AnalyticPrediction closed = predict_run(s, compute_strategy_costs(s, nullptr));
  REQUIRE(closed.available);
  CHECK(std::find(closed.omitted_terms.begin(), closed.omitted_terms.end(), std::string(kShadowFailuresOmitted)) !=
        closed.omitted_terms.end());
  // Every recovery is the shadow's: the closed form counts them as peer recoveries, none from
  // storage; Lambda W = 16 x 0.015 / day x 10 h = 0.1 failures, each one recovery.
  CHECK(closed.metrics.at("recoveries.storage") == 0.0);
  CHECK(closed.metrics.at("recoveries.peer") > 0.0);
  CHECK(closed.metrics.at("failures.total") == doctest::Approx(0.1).epsilon(1e-9));
}
