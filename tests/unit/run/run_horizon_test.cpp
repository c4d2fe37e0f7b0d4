// The run's worst-case horizon (run/run_horizon.hpp) and the run end it starts from: refused
// exactly when the sum of its terms leaves the int64-ns clock, naming the terms.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/level_clock.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using ckptsim::test::small_scenario;

namespace {

/// No checkpoints, no replacement wait: the horizon is E + D + R + T exactly.
Scenario bare_run() {
  Scenario s = small_scenario(StrategyKind::none);
  s.failures.replacement.fixed = SimTime::zero();
  s.run.duration = kMaxDuration;                 // E = 100 years
  s.failures.detection = kMaxDuration;           // D = 100 years
  return s;
}

}  // namespace

TEST_CASE("the horizon is refused exactly when E + D + R + T exceeds 2^63 - 1 ns") {
  // 2^63 - 1 ns = 9,223,372,036.854775807 s; E + D = 6,311,520,000 s and T = 60 s leave
  // R = 2,911,851,976.854775807 s: a restart of 2,911,851,976 s fits, one second more does not.
  Scenario s = bare_run();
  const std::int64_t room = std::numeric_limits<std::int64_t>::max() - 2 * kMaxDuration.ns() - seconds(60).ns();
  s.failures.restart = SimTime::from_ns(room);
  CHECK_NOTHROW((void)compute_strategy_costs(s, nullptr));
  s.failures.restart = SimTime::from_ns(room + 1);
  try {
    (void)compute_strategy_costs(s, nullptr);
    FAIL("no error");
  } catch (const ModelError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    // The largest term leads (E and D tie at 36525 d; E is listed first), every term is named.
    CHECK(e.parameter() == "/run/duration");
    CHECK(what.find("/run/duration 36525 d") != std::string::npos);
    CHECK(what.find("/failures/detection 36525 d") != std::string::npos);
    CHECK(what.find("/failures/restart 33702") != std::string::npos);  // 2,911,851,977 s = 33,701.99 d
    CHECK(what.find("292.3 years") != std::string::npos);
  }
}

TEST_CASE("the horizon lists a cause's own restart and the uniform replacement's high end") {
  Scenario s = bare_run();
  s.failures.detection = seconds(15);
  s.failures.replacement.distribution = ReplacementDistribution::uniform;
  s.failures.replacement.low = minutes(1);
  s.failures.replacement.high = kMaxDuration;
  s.failures.causes.causes = {FailureCauseSpec{"gpu", 1, true, std::nullopt, kMaxDuration}};
  // 100 + 100 + 100 years > 292.3 years: refused, naming the cause's row and the high end.
  try {
    (void)compute_strategy_costs(s, nullptr);
    FAIL("no error");
  } catch (const ModelError& e) {
    const std::string what = e.what();
    CHECK(what.find("/failures/causes/0/restart 36525 d") != std::string::npos);
    CHECK(what.find("/failures/replacement/high 36525 d") != std::string::npos);
  }
}

TEST_CASE("a run.iterations target ends at 100x its failure-free length, at most 100 years") {
  Scenario s = small_scenario(StrategyKind::none);
  s.run.duration.reset();
  // 1000 iterations of 60 s, no checkpoints: 60,000 s failure-free, the run ends by 6,000,000 s.
  s.run.iterations = 1000;
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(failure_free_length(s, c) == seconds(60'000));
  CHECK(run_end_bound(s, failure_free_length(s, c)) == seconds(6'000'000));
  // 36,000 iterations of a day: 98.6 years failure-free; 100x that is beyond 100 years: capped.
  s.training.iteration_time = days(1);
  s.run.iterations = 36'000;
  const StrategyCosts daily = compute_strategy_costs(s, nullptr);
  CHECK(failure_free_length(s, daily) == days(36'000));
  CHECK(run_end_bound(s, failure_free_length(s, daily)) == kMaxDuration);
}

TEST_CASE("the multi-level clock's searches stay exact when one stall is 90 years") {
  // T = 60 s, level 1 every iteration with a stall of 90 years: time_to_complete(1) = 60 s,
  // (2) = 120 s + 90 y, (3) = 180 s + 180 y. Within 100 years two iterations complete; the
  // searches probe far beyond (e / T = 5e7 iterations) without leaving the clock.
  SegmentPattern p;
  p.iteration = seconds(60);
  p.every = 1;
  p.checkpoints = true;
  p.stall = days(90 * 365);
  p.partner_stall = p.stall;
  p.persistent_stall = p.stall;
  const LevelClock clock(p, 0);
  const SteppedLevelClock stepped(p, 0);
  CHECK(clock.completed(kMaxDuration) == 2);
  CHECK(stepped.completed(kMaxDuration) == 2);
  CHECK(clock.stall(kMaxDuration) == stepped.stall(kMaxDuration));
  const auto latest = clock.latest_checkpoint(kMaxDuration);
  REQUIRE(latest.has_value());
  CHECK(latest->version == 1);  // state 1, captured at 60 s, usable when its stall ends at 60 s + 90 y
}

TEST_CASE("remote-periodic rounds an interval of 100 years at a 100-year iteration without overflow (fuzz finding)") {
  // periods_nearest = floor((2 I + P) / (2 P)) with I = P = 100 years: 2 I + P = 300 years of ns,
  // beyond int64 (fuzz/fuzz_time_edges found the signed overflow); in 128 bits it is floor(1.5) = 1.
  Scenario s = small_scenario(StrategyKind::remote_periodic);
  s.training.iteration_time = kMaxDuration;
  s.strategy.interval = kMaxDuration;
  s.run.duration = days(1);
  CHECK(compute_strategy_costs(s, nullptr).every_iterations == 1);
}
