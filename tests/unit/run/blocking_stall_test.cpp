// The stall of an in-memory checkpoint planned by a scheduler that makes training wait
// (run/strategies/common.cpp, interleaved_stall): no number of iterations hides a blocking plan.
#include <doctest/doctest.h>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "../workload/paper_scenario.hpp"

using namespace ckptsim;

namespace {

/// The paper's machines and model shape with 12 layers (4 machines), GEMINI's strategy with
/// `scheduler`, a checkpoint every `k` iterations.
StrategyCosts gemini_costs(SchedulerKind scheduler, int k) {
  Scenario s = testing::paper_scenario(4);
  s.model.layers = 12;
  s.model.parameters = 0;  // from the shape
  s.strategy.kind = StrategyKind::gemini;
  s.strategy.scheduler = scheduler;
  s.strategy.every_iterations = k;
  const IterationCosts iteration = compute_iteration_costs(s);
  return compute_strategy_costs(s, &iteration);
}

}  // namespace

TEST_CASE("gemini with the blocking scheduler stalls at every checkpoint, however far apart") {
  // The blocking plan sends every copy at the iteration's start while training waits, so each
  // checkpoint costs the same stall whatever k is; it was taken as hidden from gemini's smallest
  // hiding k on (the blocking scheduler's k is gemini's partition's), and printed "no stall".
  const StrategyCosts gemini = gemini_costs(SchedulerKind::gemini, 1);
  const StrategyCosts one = gemini_costs(SchedulerKind::blocking, 1);
  REQUIRE(one.stall > SimTime::zero());
  // A k far beyond gemini's own hiding k: gemini's plan is hidden there, the blocking one is not.
  const int far = 1000;
  CHECK(gemini_costs(SchedulerKind::gemini, far).stall == SimTime::zero());
  CHECK(gemini_costs(SchedulerKind::blocking, far).stall == one.stall);
  CHECK(one.stall >= gemini.stall);
}
