// The ETTR closed form (analysis/analytic_models.hpp, 3e) for erasure-coded groups against the
// run model's Monte Carlo estimates.
#include <cmath>
#include <string>

#include <doctest/doctest.h>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "../common/closed_form_check.hpp"
#include "../common/test_scenarios.hpp"

namespace ckptsim {

TEST_CASE("run model agrees with the ETTR closed form: erasure-coded g = 8, p = 1 and 2") {
  // 16 machines in two groups of 8, every failure hardware at 0.2 per machine per day over 10
  // days: a group falls back to storage when a second member is replaced within the window
  // before the next checkpoint, p_loss = P(Binomial(7, q_W) >= p).
  for (const int parity : {1, 2}) {
    CAPTURE(parity);
    Scenario s = test::small_scenario(StrategyKind::erasure_coded);
    s.strategy.group_size = 8;
    s.strategy.parity = parity;
    s.failures.process = FailureProcessKind::exponential;
    s.failures.rate = 0.2 / 86400.0;
    s.failures.hardware_fraction = 1.0;
    s.run.duration = days(10);
    s.run.seed = 11;
    const auto [costs, closed, sim] = test::closed_form_and_monte_carlo(s, 2000);
    REQUIRE(closed.available);
    const Summary& ettr = sim.at("ettr");
    MESSAGE("ETTR closed " << closed.metrics.at("ettr") << ", simulated " << ettr.mean << " +- " << ettr.ci95);
    CHECK(std::abs(closed.metrics.at("ettr") - ettr.mean) <= ettr.ci95);
    // The storage fallbacks are first order in the window (3e): within 3 intervals.
    const Summary& storage = sim.at("recoveries.storage");
    MESSAGE("storage recoveries closed " << closed.metrics.at("recoveries.storage") << ", simulated " << storage.mean
                                         << " +- " << storage.ci95);
    CHECK(std::abs(closed.metrics.at("recoveries.storage") - storage.mean) <= 3 * storage.ci95);
  }
}

}  // namespace ckptsim
