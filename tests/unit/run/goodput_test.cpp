// Goodput as operators count it (run/goodput.hpp): the buckets on hand-worked cases.
#include <doctest/doctest.h>

#include <filesystem>

#include "ckptsim/run/goodput.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;

TEST_CASE("goodput: the buckets of a hand-made breakdown") {
  // Wall 1000 s: training 700, stall 50, lost 40, detection 10, replacement 20, retrieval 30,
  // restart 50, degraded 100 (sum 1000). Two episodes.
  TimeBreakdown b;
  b.training = seconds(700);
  b.checkpoint_stall = seconds(50);
  b.lost_progress = seconds(40);
  b.detection = seconds(10);
  b.replacement_wait = seconds(20);
  b.retrieval = seconds(30);
  b.restart = seconds(50);
  b.degraded = seconds(100);
  REQUIRE(b.total() == seconds(1000));
  const Goodput g = goodput_of(b, seconds(1000), 2);
  CHECK(g.goodput == doctest::Approx(0.70));
  CHECK(g.badput_initialization == doctest::Approx(0.05));
  CHECK(g.badput_checkpoint_save == doctest::Approx(0.05));
  CHECK(g.badput_checkpoint_restore == doctest::Approx(0.03));
  CHECK(g.badput_wasted_progress == doctest::Approx(0.04));
  CHECK(g.badput_infrastructure_recovery == doctest::Approx(0.03));  // (10 + 20) / 1000
  CHECK(g.badput_degraded_throughput == doctest::Approx(0.10));
  // Meta's ETTR keeps the slowed steps: (700 + 100) / 1000.
  CHECK(g.ettr_meta == doctest::Approx(0.80));
  // MTTR = downtime / episodes = (10 + 20 + 30 + 50) / 2 = 55 s.
  REQUIRE(g.mttr_s.has_value());
  CHECK(*g.mttr_s == doctest::Approx(55.0));
  // No episode: no MTTR; an empty wall time: every fraction 0, not a division by zero.
  CHECK_FALSE(goodput_of(b, seconds(1000), 0).mttr_s.has_value());
  CHECK(goodput_of(TimeBreakdown{}, SimTime::zero(), 0).goodput == 0.0);
}

TEST_CASE("goodput: one hardware failure of a remote-periodic run, worked by hand") {
  // small_scenario: T = 60 s, interval 1 h -> k = 60, stall S = C / B_s = 120 s, storage
  // retrieval 120 + 0.75 s; detection 15 s, replacement 300 s, restart 60 s; 10 h = 36000 s.
  // One hardware failure at 5000 s. Before it: 60 iterations (3600 s), then iteration 61
  // carries the checkpoint of state 60 (stall 120 s, usable at 3720 s). Rolled back: 5000 -
  // 3600 = 1400 s of lineage, of which 120 s stall -> lost progress 1280 s.
  // Episode: detected 5015, replaced 5315, retrieved 5435.75, restarted 5495.75 (downtime
  // 495.75 s). From state 60: 30504.25 s remain = 3600 s (60 iterations) + 7 blocks of 3720 s
  // (stall 120 + 60 iterations) + 864.25 s (stall 120 + 12 iterations + 24.25 s partial).
  // Training = (60 + 60 + 420 + 12) x 60 + 24.25 = 33144.25 s; stall = 120 + 8 x 120 = 1080 s.
  Scenario s = test::small_scenario(StrategyKind::remote_periodic);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = test::write_trace_file("ckptsim_goodput_trace.csv", "time,machine,type\n5000,0,hardware\n");
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  const ReplicaResult r = model.simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  REQUIRE(r.failures() == 1);
  CHECK(r.episodes == 1);
  CHECK(r.breakdown.training == SimTime::from_seconds(33144.25));
  CHECK(r.breakdown.checkpoint_stall == seconds(1080));
  CHECK(r.breakdown.lost_progress == seconds(1280));
  const Goodput g = goodput_of(r.breakdown, r.wall_time, r.episodes);
  CHECK(g.goodput == doctest::Approx(33144.25 / 36000));
  CHECK(g.badput_initialization == doctest::Approx(60.0 / 36000));
  CHECK(g.badput_checkpoint_save == doctest::Approx(1080.0 / 36000));
  CHECK(g.badput_checkpoint_restore == doctest::Approx(120.75 / 36000));
  CHECK(g.badput_wasted_progress == doctest::Approx(1280.0 / 36000));
  CHECK(g.badput_infrastructure_recovery == doctest::Approx(315.0 / 36000));
  CHECK(g.badput_degraded_throughput == 0.0);
  CHECK(g.ettr_meta == doctest::Approx(r.ettr()));
  REQUIRE(g.mttr_s.has_value());
  CHECK(*g.mttr_s == doctest::Approx(495.75));
}

TEST_CASE("goodput: goodput and the badput buckets add up to 1 in every replica") {
  // The buckets partition the wall time (goodput.hpp), whatever the failures.
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (16 * 3600.0);  // about one failure an hour in the cluster
  s.run.replicas = 20;
  const RunModel model(s, compute_strategy_costs(s, nullptr));
  MonteCarloOptions o;
  o.replicas = s.run.replicas;
  for (const ReplicaResult& r : run_replicas(model, o)) {
    const Goodput g = goodput_of(r.breakdown, r.wall_time, r.episodes);
    const double sum = g.goodput + g.badput_initialization + g.badput_checkpoint_save + g.badput_checkpoint_restore +
                       g.badput_wasted_progress + g.badput_infrastructure_recovery + g.badput_degraded_throughput;
    CHECK(sum == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(r.episodes <= r.failures());
    CHECK(r.episodes >= (r.failures() > 0 ? 1 : 0));
  }
}
