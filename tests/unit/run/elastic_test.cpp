// Elastic restart (failure/elastic.hpp; the run model's shrink and grow, run/run_model.cpp).
// Cases worked by hand on the small scenario (tests/unit/common/test_scenarios.hpp: 16 machines,
// ZeRO-3 so every machine is its own unit, 12 GB of checkpoint, NIC 1 GB/s, T = 60 s, 10 h =
// 36,000 s, detection 15 s, restart 60 s, replacement 5 min fixed, no standby) with strategy
// `none` (no checkpoint: a failure rolls back to the initial state, nothing to retrieve), the
// smallest size 8 machines and a 10 s reshard unless a case says otherwise.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <utility>

#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/elastic.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_run.hpp"

using namespace ckptsim;

namespace {

Scenario elastic_scenario(StrategyKind kind = StrategyKind::none) {
  Scenario s = test::small_scenario(kind);
  s.failures.elastic.min_machines = 8;
  s.failures.elastic.reshard = seconds(10);
  return s;
}

ReplicaResult run_elastic_trace(Scenario s, const std::string& rows) {
  return test::simulate_trace(std::move(s), "ckptsim_elastic_trace.csv", rows);
}

}  // namespace

TEST_CASE("elastic: a lost machine with no standby shrinks the job, which grows back at the boundary after its replacement") {
  // Machine 3 fails (hardware) at 6,030 s; waiting would last until 6,045 + 300 = 6,345 s, longer
  // than the shrink's cost X(15) + X(16) + R = 10 + 10 + 60 = 80 s: the job shrinks. Detection to
  // 6,045, reshard to 6,055 (retrieval), restart to 6,115; everything since 0 is lost (6,030 s).
  // Then 15 of 16 machines: by the replacement at 6,345 s the work is 230 x 15/16 = 215.6 s, inside
  // iteration 4; it ends at work 240 s, wall 240 x 16/15 = 256 s later, 6,371 s (16 s degraded).
  // The grow: reshard 10 s + restart 60 s, to 6,441 s. Then 29,559 s at full size: 492 iterations
  // and 39 s. Training 496 x 60 + 39 = 29,799 s.
  const ReplicaResult r = run_elastic_trace(elastic_scenario(), "6030,3,hardware\n");
  CHECK(r.elastic);
  CHECK(r.elastic_shrinks == 1);
  CHECK(r.elastic_grows == 1);
  CHECK(r.hardware_failures == 1);
  CHECK(r.iterations == 496);
  CHECK(r.breakdown.replacement_wait == SimTime::zero());
  CHECK(r.breakdown.detection == seconds(15));
  CHECK(r.breakdown.retrieval == seconds(20));
  CHECK(r.breakdown.restart == seconds(120));
  CHECK(r.breakdown.degraded == seconds(16));
  CHECK(r.breakdown.lost_progress == seconds(6030));
  CHECK(r.breakdown.training == seconds(29799));
  CHECK(r.breakdown.total() == r.wall_time);
  CHECK(r.wall_time == hours(10));
}

TEST_CASE("elastic: a wait shorter than the shrink's cost is waited out") {
  // A 60 s replacement: waiting 60 s costs less than 10 + 10 + 60 = 80 s. The episode is the
  // ordinary one: detection 15 s, wait 60 s, restart 60 s, no reshard.
  Scenario s = elastic_scenario();
  s.failures.replacement.fixed = seconds(60);
  const ReplicaResult r = run_elastic_trace(s, "6030,3,hardware\n");
  CHECK(r.elastic_shrinks == 0);
  CHECK(r.elastic_grows == 0);
  CHECK(r.breakdown.replacement_wait == seconds(60));
  CHECK(r.breakdown.retrieval == SimTime::zero());
  CHECK(r.breakdown.degraded == SimTime::zero());
}

TEST_CASE("elastic: a failure that would shrink below min_machines waits, then the job grows at once") {
  // min 15: the first failure shrinks to 15 (as in the first case, restart done at 6,115 s). Machine
  // 5 fails at 6,200 s: 14 < 15, so its episode waits: detection to 6,215, its replacement at
  // 6,515, restart to 6,575 s. The first replacement arrived at 6,345 s, so the segment starts with
  // the grow: reshard and restart to 6,645 s. Then 29,355 s: 489 iterations and 15 s.
  // Lost: 6,030 s, then the 85 x 15/16 = 79.6875 s of work done while smaller (5.3125 s degraded).
  Scenario s = elastic_scenario();
  s.failures.elastic.min_machines = 15;
  const ReplicaResult r = run_elastic_trace(s, "6030,3,hardware\n6200,5,hardware\n");
  CHECK(r.elastic_shrinks == 1);
  CHECK(r.elastic_grows == 1);
  CHECK(r.breakdown.replacement_wait == seconds(300));
  CHECK(r.breakdown.detection == seconds(30));
  CHECK(r.breakdown.retrieval == seconds(20));
  CHECK(r.breakdown.restart == seconds(180));
  CHECK(r.breakdown.degraded == SimTime::from_seconds(5.3125));
  CHECK(r.breakdown.lost_progress == SimTime::from_seconds(6109.6875));
  CHECK(r.breakdown.training == seconds(489 * 60 + 15));
  CHECK(r.breakdown.total() == r.wall_time);
}

TEST_CASE("elastic: a failure of a machine already out costs no reshard and moves the grow to its replacement") {
  // Machine 3 again at 6,200 s: its unit is out, the job stays at 15 machines: detection to
  // 6,215, restart to 6,275 s, no wait, no reshard. The grow now waits for 6,215 + 300 = 6,515 s:
  // by then the work since 6,275 is 240 x 15/16 = 225 s, inside iteration 4, which ends at wall
  // 256 s later, 6,531 s; the grow's pause takes it to 6,601 s. Then 29,399 s: 489 iterations and
  // 59 s. Degraded 5.3125 + 16 s; lost 6,030 + 79.6875 s.
  const ReplicaResult r = run_elastic_trace(elastic_scenario(), "6030,3,hardware\n6200,3,hardware\n");
  CHECK(r.elastic_shrinks == 1);
  CHECK(r.elastic_grows == 1);
  CHECK(r.breakdown.replacement_wait == SimTime::zero());
  CHECK(r.breakdown.retrieval == seconds(20));
  CHECK(r.breakdown.restart == seconds(180));
  CHECK(r.breakdown.degraded == SimTime::from_seconds(21.3125));
  CHECK(r.breakdown.lost_progress == SimTime::from_seconds(6109.6875));
  CHECK(r.iterations == 4 + 489);
  CHECK(r.breakdown.total() == r.wall_time);
}

TEST_CASE("elastic: a free standby replaces the machine and nothing shrinks") {
  Scenario s = elastic_scenario();
  s.cluster.standby_machines = 1;
  const ReplicaResult r = run_elastic_trace(s, "6030,3,hardware\n");
  CHECK(r.elastic_shrinks == 0);
  CHECK(r.breakdown.replacement_wait == SimTime::zero());
  CHECK(r.breakdown.degraded == SimTime::zero());
}

TEST_CASE("elastic: the default reshard receives a machine's new share at the point-to-point rate") {
  // 12 GB over 15 machines = 0.8 GB at f B_n = 1 GB/s: 0.8 s; over 16: 0.75 s; over 8: 1.5 s.
  Scenario s = elastic_scenario();
  s.failures.elastic.reshard.reset();
  CHECK(reshard_time(s, 15) == SimTime::from_seconds(0.8));
  CHECK(reshard_time(s, 16) == SimTime::from_seconds(0.75));
  CHECK(reshard_time(s, 8) == SimTime::from_seconds(1.5));
  // The plan keeps X(N), the reshard back to all 16 machines, for every shrink and grow.
  CHECK(elastic_plan(s).grow_reshard == SimTime::from_seconds(0.75));
  s.failures.elastic.reshard = seconds(7);
  CHECK(reshard_time(s, 8) == seconds(7));
}

TEST_CASE("elastic: ZeRO-3 units are single machines; a minimum leaving no room for one is refused") {
  Scenario s = elastic_scenario();
  const ElasticPlan plan = elastic_plan(s);
  REQUIRE(plan.unit_of.size() == 16);
  CHECK(plan.unit_of[5] == 5);
  CHECK(plan.smallest_unit() == 1);
  // 16 - 1 = 15 is the largest minimum that still lets one machine leave.
  s.failures.elastic.min_machines = 15;
  CHECK_NOTHROW((void)elastic_plan(s));
}

TEST_CASE("elastic: refused under per-step fault tolerance, which trains on without the failed group") {
  Scenario s = elastic_scenario(StrategyKind::torchft);
  s.strategy.replica_groups = 4;
  s.strategy.min_replica_groups = 1;
  CHECK_THROWS_WITH_AS(RunModel(s, compute_strategy_costs(s, nullptr)), doctest::Contains("/failures/elastic/min_machines"),
                       ModelError);
}

TEST_CASE("elastic: the columns appear only when elastic restart is on, and the closed forms say they leave it out") {
  Scenario s = elastic_scenario(StrategyKind::gemini);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 1.0 / (16.0 * 3.0 * 3600.0);
  const auto summary = [](const Scenario& sc) {
    const RunModel model(sc, compute_strategy_costs(sc, nullptr));
    MonteCarloOptions options;
    options.replicas = 4;
    return summarize(run_replicas(model, options));
  };
  CHECK(summary(s).metrics.count("elastic.shrinks") == 1);
  const auto terms = fault_model_terms_left_out(s.failures);
  CHECK(std::any_of(terms.begin(), terms.end(), [](const std::string& t) { return t.find("elastic restart") == 0; }));
  s.failures.elastic.min_machines.reset();
  CHECK(summary(s).metrics.count("elastic.shrinks") == 0);
  CHECK(fault_model_terms_left_out(s.failures).empty());
}
