// Every registered strategy's closed form (analysis/analytic_models.hpp) against its own Monte
// Carlo on one small case: a strategy added to the table (run/strategy.hpp) is held to it too.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <doctest/doctest.h>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/just_in_time_model.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/closed_form_check.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;

// The shared small scenario (tests/unit/common/test_scenarios.hpp): 16 machines, 0.75 GB shard,
// T = 60 s; retrievals local 0.75 s, peer 1.5 s, storage 120.75 s. 1.5 % failures per machine
// per day (Lambda = 0.24 / day, about 7.2 failures in 30 days), half of them hardware. Coding
// groups of 4 with 1 parity; multi-level levels every 2 and 10 minutes, storage every hour.
//
// Tolerance: the closed-form ETTR must lie within 1.68 x ci95 (about a 99.9 % interval) of the
// mean of 1000 replicas, the wider interval because seven strategies are compared at once (at
// 95 % an exact closed form would fail one strategy in three runs of this test), plus the error
// each closed form states. The renewal closed forms of analytic_models.hpp are exact for this
// case (exponential failures); the multi-level one is first order in lambda P
// (multi_level_model.hpp: a second failure within one period and restarts resetting the phase
// are dropped), so its lost fraction 1 - ETTR may be off by Lambda P_max of itself, P_max its
// longest period (the storage level, 1 h): 0.24/day x 1 h = 1 %.
namespace {

/// The shared small scenario with the fields every strategy needs (coding groups of 4 with 1
/// parity, levels every 2 and 10 minutes) under 1.5 % exponential failures per machine-day, 30 days.
Scenario closed_form_scenario(StrategyKind kind) {
  Scenario s = test::small_scenario(kind);
  s.strategy.group_size = 4;
  s.strategy.parity = 1;
  s.strategy.local_interval = minutes(2);
  s.strategy.partner_interval = minutes(10);
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.015 / 86400.0;
  s.run.duration = SimTime::from_seconds(30 * 86400.0);
  return s;
}

}  // namespace

TEST_CASE("strategy contract: every closed form agrees with its Monte Carlo on a small case") {
  for (const auto& entry : strategy_registry().entries()) {
    CAPTURE(entry.name);
    Scenario s = closed_form_scenario(entry.factory->kind());
    s.run.seed = 11;
    const auto [costs, closed, simulated] = test::closed_form_and_monte_carlo(s, 1000);
    REQUIRE(closed.available);
    // The failure model is exponential and homogeneous: nothing left out, but for just-in-time's
    // fallback to its periodic checkpoint, which its closed form does not model
    // (just_in_time_model.hpp; about lambda L = 0.015 / day x 7 min per failure here, 1e-4).
    if (costs.tier == CheckpointTier::just_in_time) {
      CHECK(closed.omitted_terms == std::vector<std::string>{kJitFallbackOmitted});
    } else if (costs.tier == CheckpointTier::shadow) {
      // shadow: its closed form leaves out the shadow machines' own failures (analytic_models.hpp),
      // here one per 10^4 days per shadow machine: a training failure finds a shadow machine out
      // (W = 5 min + 3 GB / (f x 1 GB/s)) with probability about 4 x 303 s / 10^4 days = 1.4e-6,
      // far below the Monte Carlo's interval.
      CHECK(closed.omitted_terms == std::vector<std::string>{kShadowFailuresOmitted});
    } else {
      CHECK(closed.omitted_terms.empty());
    }
    const Summary& ettr = simulated.at("ettr");
    MESSAGE(entry.name << ": closed " << closed.ettr << ", simulated " << ettr.mean << " +- " << ettr.ci95);
    // The islands' closed form is first order in Lambda P too (islands_model.hpp: a second
    // failure of an island within its round or outage is dropped), P = H T + A its round (8.3 h
    // at the default H = 500): Lambda P = 0.24/day x 8.3 h = 8 % of 1 - ETTR.
    const double first_order =
        costs.tier == CheckpointTier::multi_level
            ? closed.failure_rate * static_cast<double>(costs.persistent_every_iterations) * costs.iteration_time.seconds()
        : costs.tier == CheckpointTier::islands
            ? closed.failure_rate * (static_cast<double>(costs.sync_every) * costs.iteration_time.seconds() + costs.outer_sync.seconds())
            : 0.0;
    CHECK(std::abs(closed.ettr - ettr.mean) <= test::kWideCi95 * ettr.ci95 + first_order * (1.0 - closed.ettr));
    // Lambda W = 16 x 0.015 x 30 = 7.2 failures, whatever the strategy.
    CHECK(closed.metrics.at("failures.total") == doctest::Approx(7.2).epsilon(1e-9));
  }
}

TEST_CASE("strategy contract: a closed form names each fault-model feature it leaves out") {
  // Hangs, stragglers, misdiagnosis and silent corruption are modelled by the run only
  // (failure/fault_model.hpp). Turning one on must add exactly its entry to the omitted terms of
  // every closed form that leaves it out: every registered strategy but torchft, whose per-step
  // model handles stragglers and hangs as group outages (analysis/per_step_model.hpp), and
  // diloco, whose islands model handles hangs (their detection) and misdiagnosis the same way
  // (analysis/islands_model.hpp) and refuses stragglers.
  for (const auto& entry : strategy_registry().entries()) {
    if (entry.factory->kind() == StrategyKind::torchft || entry.factory->kind() == StrategyKind::diloco) continue;
    CAPTURE(entry.name);
    Scenario s = closed_form_scenario(entry.factory->kind());
    s.failures.hangs.fraction = 0.1;
    s.failures.misdiagnosis.fraction = 0.05;
    const AnalyticPrediction closed = predict_run(s, compute_strategy_costs(s, nullptr));
    REQUIRE(closed.available);
    const auto has = [&](const std::string& term) {
      return std::find(closed.omitted_terms.begin(), closed.omitted_terms.end(), term) != closed.omitted_terms.end();
    };
    CHECK(has("hangs (their timeout detection)"));
    CHECK(has("misdiagnosis"));
    CHECK_FALSE(has("fail-slow stragglers"));
    CHECK_FALSE(has("silent data corruption"));
    CHECK_FALSE(has("live migration (predicted failures averted by a standby)"));
  }
}

TEST_CASE("strategy contract: every closed form names live migration when it is on") {
  // Live migration is modelled by the run only (failure/migration.hpp), torchft's per-step model
  // included: each registered strategy's closed form must say it leaves it out. diloco refuses
  // it (its costs throw ModelError: tests/unit/run/diloco_test.cpp), so it is not asked.
  for (const auto& entry : strategy_registry().entries()) {
    if (entry.factory->kind() == StrategyKind::diloco) continue;
    CAPTURE(entry.name);
    Scenario s = closed_form_scenario(entry.factory->kind());
    s.cluster.standby_machines = 1;
    s.failures.migration.fraction = 0.2;
    const AnalyticPrediction closed = predict_run(s, compute_strategy_costs(s, nullptr));
    REQUIRE(closed.available);
    CHECK(std::find(closed.omitted_terms.begin(), closed.omitted_terms.end(),
                    "live migration (predicted failures averted by a standby)") != closed.omitted_terms.end());
  }
}

TEST_CASE("strategy contract: every closed form but the per-step one names elastic restart when it is on") {
  // Elastic restart is modelled by the run only (failure/elastic.hpp); per-step fault tolerance
  // refuses it (its groups train on already), as diloco does (its islands), so their closed
  // forms are not asked.
  for (const auto& entry : strategy_registry().entries()) {
    if (entry.factory->kind() == StrategyKind::torchft || entry.factory->kind() == StrategyKind::diloco) continue;
    CAPTURE(entry.name);
    Scenario s = closed_form_scenario(entry.factory->kind());
    s.failures.elastic.min_machines = 1;
    const AnalyticPrediction closed = predict_run(s, compute_strategy_costs(s, nullptr));
    REQUIRE(closed.available);
    CHECK(std::find(closed.omitted_terms.begin(), closed.omitted_terms.end(),
                    "elastic restart (training at a smaller size while replacements arrive)") != closed.omitted_terms.end());
  }
}
