// Eq. 1 by recovery tier (analysis/eq1_by_tier.hpp), worked by hand on small_scenario.
#include <doctest/doctest.h>

#include "ckptsim/analysis/eq1_by_tier.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using namespace ckptsim::test;

TEST_CASE("Eq. 1 by tier: GEMINI every iteration with no stall, and its persistent fallback") {
  // small_scenario: T = 60 s, shard c = 0.75 GB, B_n = B_ser = 1 GB/s, C = 12 GB at B_s = 100 MB/s.
  Scenario s = small_scenario(StrategyKind::gemini);
  s.strategy.checkpoint_stall = SimTime::zero();
  const Eq1ByTier e = eq1_by_tier(compute_strategy_costs(s, nullptr));
  // Track: completion k T + S = 60 s, half the block (60 + 0) / 2 = 30 s: 90 s lost.
  // local: + c / B_ser = 0.75 s -> 90.75 s; peer: + c / B_n + c / B_ser = 1.5 s -> 91.5 s.
  REQUIRE(e.local);
  REQUIRE(e.peer);
  CHECK(*e.local == doctest::Approx(90.75));
  CHECK(*e.peer == doctest::Approx(91.5));
  // Persistent track: kp = max(round(1 h / 60 s), ceil(120 s / 60 s)) = 60 iterations, upload
  // U = C / B_s = 120 s; fallback 120 + 60 x 60 / 2 + (120 + 0.75) = 2,040.75 s.
  REQUIRE(e.storage);
  CHECK(*e.storage == doctest::Approx(2040.75));
}

TEST_CASE("Eq. 1 by tier: remote-periodic recovers from storage only; none and multi-level have none") {
  // Remote-periodic: k = round(1 h / 60 s) = 60, S = max(C / B_s, c / B_ser) = 120 s = completion;
  // 120 + (60 x 60 + 120) / 2 + (120 + 0.75) = 120 + 1,860 + 120.75 = 2,100.75 s.
  const Eq1ByTier e = eq1_by_tier(compute_strategy_costs(small_scenario(StrategyKind::remote_periodic), nullptr));
  CHECK_FALSE(e.local);
  CHECK_FALSE(e.peer);
  REQUIRE(e.storage);
  CHECK(*e.storage == doctest::Approx(2100.75));
  const Eq1ByTier none = eq1_by_tier(compute_strategy_costs(small_scenario(StrategyKind::none), nullptr));
  CHECK_FALSE((none.local || none.peer || none.storage));
}
