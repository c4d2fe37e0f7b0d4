// The async-two-phase strategy (run/strategies/async_two_phase.cpp): costs worked by hand on the
// small scenario (tests/unit/common/test_scenarios.hpp: 16 machines of 8 GPUs, C = 12 GB, shard
// c = 0.75 GB, PCIe 25 GB/s per GPU, storage 100 MB/s, serialization 1 GB/s, T = 60 s,
// persistent interval 1 h, detection 15 s, restart 60 s, replacement 5 min):
//   staging S_stage = c / (G B_pcie) = 0.75e9 / 200e9 = 3.75 ms;
//   without a local tier: B = max(C / B_s, c / B_ser) = max(120, 0.75) = 120 s, so
//     k = max(1, ceil(120 / 60)) = 2 and completion = 120.00375 s;
//   with a local tier of 2 GB/s: c / L = 0.375 s, B = max(0.375, 0.75) = 0.75 s, k = 1,
//     completion 0.75375 s, local retrieval c / L + c / B_ser = 1.125 s, uploads
//     U = max(120, 0.375) = 120 s every kp = max(round(3600 / 60.00375), ceil(120 / 60.00375))
//     = max(60, 2) = 60 iterations.
#include <doctest/doctest.h>

#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/closed_form_check.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_run.hpp"

using namespace ckptsim;

namespace {

Scenario async_scenario(std::optional<double> local_bandwidth, double phi = 0) {
  Scenario s = test::small_scenario(StrategyKind::async_two_phase);
  s.strategy.every_iterations = 1;
  s.strategy.local_bandwidth = local_bandwidth;
  s.strategy.persist_throughput_cost = phi;
  return s;
}

ReplicaResult run_async_trace(Scenario s, const std::string& rows) {
  return test::simulate_trace(std::move(s), "ckptsim_async_trace.csv", rows);
}

}  // namespace

TEST_CASE("async-two-phase: without a local tier the background phase writes to storage and sets the period") {
  const StrategyCosts c = compute_strategy_costs(async_scenario(std::nullopt), nullptr);
  CHECK(c.tier == CheckpointTier::storage);
  CHECK(c.staging == SimTime::from_seconds(0.00375));
  CHECK(c.background == seconds(120));
  CHECK(c.every_iterations == 2);
  CHECK(c.stall == SimTime::from_seconds(0.00375));
  CHECK(c.completion == SimTime::from_seconds(120.00375));
  CHECK(c.retrieval_storage == SimTime::from_seconds(120.75));
}

TEST_CASE("async-two-phase: the background phase's throughput cost is charged as stall") {
  // phi = 0.1 of the 120 s background phase: 12 s per checkpoint, on top of the 3.75 ms copy.
  const StrategyCosts c = compute_strategy_costs(async_scenario(std::nullopt, 0.1), nullptr);
  CHECK(c.stall == SimTime::from_seconds(12.00375));
  CHECK(c.completion == SimTime::from_seconds(120.00375));
  // With a local tier and phi = 0.2: 0.2 x 0.75 s per checkpoint, kp from the block 60.15375 s:
  // round(3600 / 60.15375) = 60 (59.85 rounds up), and the upload's 0.2 x 120 s spread over the
  // 60 checkpoints of one upload period: 0.4 s. S = 0.00375 + 0.15 + 0.4 = 0.55375 s.
  const StrategyCosts l = compute_strategy_costs(async_scenario(2e9, 0.2), nullptr);
  CHECK(l.persistent_every_iterations == 60);
  CHECK(l.stall == SimTime::from_seconds(0.55375));
  CHECK(l.completion == SimTime::from_seconds(0.75375));
}

TEST_CASE("async-two-phase: a local tier keeps the machine's own copy, uploaded on the persistent track") {
  const StrategyCosts c = compute_strategy_costs(async_scenario(2e9), nullptr);
  CHECK(c.tier == CheckpointTier::memory);
  CHECK(c.replicas == 1);
  CHECK(c.every_iterations == 1);
  CHECK(c.background == SimTime::from_seconds(0.75));
  CHECK(c.completion == SimTime::from_seconds(0.75375));
  CHECK(c.retrieval_local == SimTime::from_seconds(1.125));
  // No peer holds a copy: a machine that lost its own reads storage, C / B_s + c / B_ser.
  CHECK(c.retrieval_peer == SimTime::from_seconds(120.75));
  CHECK(c.persistent_every_iterations == 60);
  CHECK(c.upload == seconds(120));
}

TEST_CASE("async-two-phase: a software failure recovers from the local tier, losing less than one iteration") {
  // Every iteration after the first carries a 3.75 ms stall: iteration n ends at
  // 60 + (n - 1) x 60.00375 s, so iterations 1..100 are done at 6000.37125 s, and state 100's
  // checkpoint is usable 0.75375 s after iteration 101 starts, before the failure at 6030 s.
  // The recovery reads the local copy (1.125 s) and loses only the 29.6 s of iteration 101.
  const ReplicaResult r = run_async_trace(async_scenario(2e9), "6030,3,software\n");
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::local)] == 1);
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::storage)] == 0);
  CHECK(r.breakdown.retrieval == SimTime::from_seconds(1.125));
  CHECK(r.breakdown.lost_progress > seconds(29));
  CHECK(r.breakdown.lost_progress < seconds(30));
}

TEST_CASE("async-two-phase: a hardware failure loses the local copy and recovers from storage") {
  // Machine 3 replaced at 6030 s: its local disk is gone, so the newest uploaded state is used.
  // Uploads every 60 iterations: state 60 (done at 60 + 59 x 60.00375 = 3600.22 s, in storage
  // 120.75 s later); state 120 is not reached. Lost: the 40 iterations after state 60 and the
  // 29.6 s of iteration 101, about 2,429.8 s (stalls aside); retrieval from storage 120.75 s.
  const ReplicaResult r = run_async_trace(async_scenario(2e9), "6030,3,hardware\n");
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::storage)] == 1);
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::local)] == 0);
  CHECK(r.breakdown.retrieval == SimTime::from_seconds(120.75));
  CHECK(r.breakdown.lost_progress > seconds(2429));
  CHECK(r.breakdown.lost_progress < seconds(2431));
}

TEST_CASE("async-two-phase: without a local tier a software failure also recovers from storage") {
  // The staging copy lives in the training process and dies with it: k = 2, so the newest
  // checkpoint usable at 6030 s is from storage, 120.00375 s after its carrying iteration starts.
  const ReplicaResult r = run_async_trace(async_scenario(std::nullopt), "6030,3,software\n");
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::storage)] == 1);
  CHECK(r.recoveries[static_cast<std::size_t>(RecoveryTier::local)] == 0);
  CHECK(r.breakdown.retrieval == SimTime::from_seconds(120.75));
}

TEST_CASE("async-two-phase: the staging copy needs a GPU-to-CPU bandwidth") {
  Scenario s = async_scenario(std::nullopt);
  s.cluster.gpu_cpu_bandwidth = 0;
  CHECK_THROWS_WITH_AS((void)compute_strategy_costs(s, nullptr), doctest::Contains("/cluster/gpu_cpu_bandwidth"), ModelError);
}

TEST_CASE("async-two-phase: with a local tier the memory tier's closed form (m = 1) agrees with its Monte Carlo") {
  // The closed-form contract case (tests/unit/analysis/strategy_closed_form_test.cpp: 1.5 %
  // exponential failures per machine-day, half hardware, 30 days) with the 2 GB/s local tier:
  // a software failure recovers from the machine's own copy, a hardware one from the hourly
  // upload. Exact renewal closed form for exponential failures: within 1.68 x ci95 of 1000 replicas.
  Scenario s = async_scenario(2e9, 0.05);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.015 / 86400.0;
  s.run.duration = SimTime::from_seconds(30 * 86400.0);
  s.run.seed = 11;
  const auto [costs, closed, simulated] = test::closed_form_and_monte_carlo(s, 1000);
  REQUIRE(closed.available);
  const Summary& ettr = simulated.at("ettr");
  MESSAGE("closed " << closed.ettr << ", simulated " << ettr.mean << " +- " << ettr.ci95);
  CHECK(std::abs(closed.ettr - ettr.mean) <= test::kWideCi95 * ettr.ci95);
  // Half the 7.2 expected failures are software: about 3.6 local recoveries per run.
  CHECK(closed.metrics.at("recoveries.local") == doctest::Approx(3.6).epsilon(0.05));
}

TEST_CASE("async-two-phase: a staging rate of its own (DCP's pageable copy) sets the stall") {
  // strategy.staging_bandwidth 5 GB/s per machine (a pageable copy, slower than 8 x 25 GB/s
  // pinned): S_stage = 0.75e9 / 5e9 = 150 ms, the whole stall without a throughput cost, and the
  // completion 120.15 s; the period (set by the background phase) does not move: k = 2.
  Scenario s = async_scenario(std::nullopt);
  s.strategy.staging_bandwidth = 5e9;
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.staging == milliseconds(150));
  CHECK(c.stall == milliseconds(150));
  CHECK(c.completion == SimTime::from_seconds(120.15));
  CHECK(c.every_iterations == 2);
}
