// Live migration (failure/migration.hpp; the run model's migration path, run/run_model.cpp).
// Cases worked by hand on the small scenario (tests/unit/common/test_scenarios.hpp: 16 machines,
// 0.75 GB of checkpoint per machine, NIC 1 GB/s, T = 60 s, 10 h = 36,000 s, detection 15 s,
// restart 60 s, replacement 5 min fixed) with strategy `none` (no checkpoint, no stall), so
// iteration n ends at 60 n s from the state training resumed at.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include "ckptsim/failure/migration.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_run.hpp"

using namespace ckptsim;

namespace {

/// Every single-machine hardware failure announced (fraction 1), one standby, a 30 s pause.
Scenario migrating_scenario(StrategyKind kind = StrategyKind::none) {
  Scenario s = test::small_scenario(kind);
  s.failures.migration.fraction = 1.0;
  s.failures.migration.pause = seconds(30);
  s.cluster.standby_machines = 1;
  return s;
}

ReplicaResult run_migration_trace(Scenario s, const std::string& rows) {
  return test::simulate_trace(std::move(s), "ckptsim_migration_trace.csv", rows);
}

}  // namespace

TEST_CASE("migration: a predicted failure pauses the job at the iteration boundary and loses nothing") {
  // The failure at 6,030 s is announced: the job stops at the boundary of iteration 100 (6,000 s),
  // pauses 30 s and resumes at 6,030 s from state 100. Then (36,000 - 6,030) / 60 = 499.5
  // iterations: 599 whole ones and 30 s of the next. Nothing fails, nothing is redone:
  // training = 599 x 60 + 30 = 35,970 s, the pause 30 s, and the two fill the 36,000 s.
  const ReplicaResult r = run_migration_trace(migrating_scenario(), "6030,3,hardware\n");
  CHECK(r.migrations == 1);
  CHECK(r.failures() == 0);
  CHECK(r.machines_replaced == 0);
  CHECK(r.iterations == 599);
  CHECK(r.breakdown.migration == seconds(30));
  CHECK(r.breakdown.training == seconds(35970));
  CHECK(r.breakdown.lost_progress == SimTime::zero());
  CHECK(r.breakdown.total() == r.wall_time);
  CHECK(r.wall_time == hours(10));
}

TEST_CASE("migration: without a free standby the predicted failure happens as any other") {
  // The pool is empty: the failure at 6,030 s stops the job and (no checkpoint) everything is
  // lost: 6,030 s of progress, then detection 15 s + replacement 300 s + restart 60 s.
  Scenario s = migrating_scenario();
  s.cluster.standby_machines = 0;
  const ReplicaResult r = run_migration_trace(s, "6030,3,hardware\n");
  CHECK(r.migrations == 0);
  CHECK(r.hardware_failures == 1);
  CHECK(r.breakdown.migration == SimTime::zero());
  CHECK(r.breakdown.lost_progress == seconds(6030));
  CHECK(r.breakdown.replacement_wait == seconds(300));
}

TEST_CASE("migration: the standby comes back one replacement delay after the migration") {
  // First migration at 6,000 s: the pool is empty until 6,000 + 300 = 6,300 s.
  // A second announced failure at 6,130 s finds no standby and fails (hardware, 1).
  const ReplicaResult early = run_migration_trace(migrating_scenario(), "6030,3,hardware\n6130,5,hardware\n");
  CHECK(early.migrations == 1);
  CHECK(early.hardware_failures == 1);
  // At 6,400 s: training resumed at 6,030 s, so its boundaries are 6,030 + 60 n; the last before
  // 6,400 is 6,390 s, after the standby's return at 6,300 s: a second migration, 60 s paused.
  const ReplicaResult late = run_migration_trace(migrating_scenario(), "6030,3,hardware\n6400,5,hardware\n");
  CHECK(late.migrations == 2);
  CHECK(late.failures() == 0);
  CHECK(late.breakdown.migration == seconds(60));
  CHECK(late.breakdown.total() == late.wall_time);
}

TEST_CASE("migration: a failure during the pause is taken at the pause's end") {
  // Pause 60 s from the 6,000 s boundary: the software failure at 6,040 s happens at 6,060 s,
  // found 15 s later, restart 60 s: the episode is detection 15 s + restart 60 s, and the
  // progress since 0 (6,000 s: no checkpoint) is lost.
  Scenario s = migrating_scenario();
  s.failures.migration.pause = seconds(60);
  const ReplicaResult r = run_migration_trace(s, "6030,3,hardware\n6040,5,software\n");
  CHECK(r.migrations == 1);
  CHECK(r.software_failures == 1);
  CHECK(r.breakdown.migration == seconds(60));
  CHECK(r.breakdown.detection == seconds(15));
  CHECK(r.breakdown.restart == seconds(60));
  CHECK(r.breakdown.lost_progress == seconds(6000));
  CHECK(r.breakdown.total() == r.wall_time);
}

TEST_CASE("migration: under per-step fault tolerance only the machine's group pauses") {
  // torchft with 4 groups: the announced failure's group leaves the quorum for the 30 s pause and
  // the other three train on at 3/4 of the healthy rate: degraded = 30 x 1/4 = 7.5 s; no step is
  // discarded and nobody waits for a timeout.
  Scenario s = migrating_scenario(StrategyKind::torchft);
  s.strategy.replica_groups = 4;
  s.strategy.min_replica_groups = 1;
  const ReplicaResult r = run_migration_trace(s, "6030,3,hardware\n");
  CHECK(r.migrations == 1);
  CHECK(r.failures() == 0);
  CHECK(r.breakdown.degraded == SimTime::from_seconds(7.5));
  CHECK(r.breakdown.lost_progress == SimTime::zero());
  CHECK(r.breakdown.detection == SimTime::zero());
}

TEST_CASE("migration: the default pause moves the machine's checkpoint state and restarts in process") {
  // 0.75 GB per machine at f B_n = 1 x 1 GB/s = 0.75 s, plus the in-process restart 2.5 s.
  Scenario s = migrating_scenario();
  s.failures.migration.pause.reset();
  CHECK(migration_pause(s) == SimTime::from_seconds(3.25));
  s.failures.migration.pause = seconds(7);
  CHECK(migration_pause(s) == seconds(7));
}

TEST_CASE("migration: domain failures and hangs are never announced") {
  // A hang is found by timeouts, not foreseen: with every failure hanging, the hardware failure
  // at 6,030 s is a failure even though the fraction is 1 and a standby is free.
  Scenario s = migrating_scenario();
  s.failures.hangs.fraction = 1.0;
  const ReplicaResult r = run_migration_trace(s, "6030,3,hardware\n");
  CHECK(r.migrations == 0);
  CHECK(r.hardware_failures == 1);
}

TEST_CASE("migration: runs with it carry its columns, runs without it do not") {
  Scenario s = test::small_scenario(StrategyKind::none);
  const RunModel plain(s, compute_strategy_costs(s, nullptr));
  bool has_column = false;
  for (const auto& [name, value] : replica_metrics(plain.simulate(0))) has_column = has_column || name == "migrations";
  CHECK_FALSE(has_column);
  s = migrating_scenario();
  const RunModel with(s, compute_strategy_costs(s, nullptr));
  for (const auto& [name, value] : replica_metrics(with.simulate(0))) has_column = has_column || name == "migrations";
  CHECK(has_column);
}
