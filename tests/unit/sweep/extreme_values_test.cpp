// The clock checks derived from the parameter table: every duration a scenario may hold, set
// alone to a month, a year or a century, is either refused by the loader (exit 2, naming the
// field) or answered by the models without leaving the simulated clock. Before, a
// `training.hook_host_time` of 100 days escaped every check and ended as "internal error (please
// report)" (ClockOverflow), and one of 30 days gave a 158-year iteration with exit 0, past the
// 100 years docs/limits.md promises. The list of durations comes from the table itself, so a
// duration added later is held to the same rule without anyone naming it here.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "../common/small_bases.hpp"

using namespace ckptsim;
using namespace ckptsim::test;
using nlohmann::json;

namespace {

/// What happened to one scenario: refused with a typed error (the user's input), answered, or an
/// internal error (a bug: the value reached the model unchecked).
enum class ExtremeOutcome { refused, answered, internal_error };

ExtremeOutcome run_extreme(const json& doc, std::string& detail) {
  try {
    const Scenario s = load_scenario_json(doc, "extreme.json", ".");
    const RunChecks checks;
    const StrategyCosts costs = checked_strategy_costs(s, checks);
    // The 100 years of docs/limits.md: an iteration beyond them must have been refused.
    if (costs.iteration_time > kMaxDuration) {
      detail = "iteration time " + std::to_string(costs.iteration_time.seconds()) + " s";
      return ExtremeOutcome::internal_error;
    }
    const RunModel model = checked_run_model(s, costs, 1, checks);
    MonteCarloOptions options;
    options.replicas = 1;
    options.jobs = 1;
    (void)run_replicas(model, options);
    return ExtremeOutcome::answered;
  } catch (const InputError&) {
  } catch (const ModelError&) {
  } catch (const LimitError&) {
  } catch (const std::exception& e) {
    detail = e.what();
    return ExtremeOutcome::internal_error;
  }
  return ExtremeOutcome::refused;
}

}  // namespace

TEST_CASE("extreme durations: every duration row, set alone to 30 d, 1 y or 100 y, is refused or answered on the clock") {
  int tried = 0;
  for (const json& written : {cost_key_deepspeed_fat_tree(), cost_key_megatron()}) {
    const json base = effective_scenario_json(load_scenario_json(written, "base.json", "."));
    for (const Field& f : scenario_fields()) {
      if (f.presence == Presence::alias || (f.unit != Unit::duration && f.unit != Unit::duration_or_never)) continue;
      for (const char* value : {"30d", "365d", "36500d"}) {
        json doc = base;
        doc[json::json_pointer(std::string(f.pointer))] = value;
        std::string detail;
        CAPTURE(f.pointer);
        CAPTURE(value);
        CAPTURE(detail);
        const ExtremeOutcome outcome = run_extreme(doc, detail);
        CHECK(outcome != ExtremeOutcome::internal_error);
        ++tried;
      }
    }
  }
  // Every duration row of the table, 3 values, 2 scenarios (the table has more than 30).
  CHECK(tried > 2 * 3 * 30);
}

TEST_CASE("extreme durations: hook_host_time's clock check names the field") {
  // 100 hooks per layer x 2 layers x 30 d = 6,000 d per iteration is within the clock, but 100
  // layers x 100 x 30 d = 822 years is not: the clock check blames the hook time (the layer
  // count, 100, is typical).
  json doc = cost_key_deepspeed_fat_tree();
  doc["model"]["layers"] = 100;
  doc["training"]["hook_host_time"] = "30d";
  try {
    (void)load_scenario_json(doc, "hook.json", ".");
    FAIL("a 30-day hook on 100 layers was accepted");
  } catch (const InputError& e) {
    REQUIRE(!e.problems().empty());
    CHECK(e.problems().front().pointer == "/training/hook_host_time");
  }
}
