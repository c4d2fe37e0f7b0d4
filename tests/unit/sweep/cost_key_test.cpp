// The sweep's cost cache is keyed by every field the iteration model reads, and that list comes
// from the parameter table (each row's ReadBy). This property test holds the table to it: every
// row of the table is changed alone, in four small scenarios that between them exercise every
// engine, topology, placement and checkpoint layout whose fields the iteration model reads; when
// the iteration model's costs change, the cache key must change too. Otherwise the sweep would
// hand one point the costs of another (issue: `/training/hook_host_time` 0 s and 50 ms both
// reported 23.117 s). The same for the strategy's costs: a row whose change moves them must say
// the iteration model or the costs read it.
//
// How each row is changed: the member the row fills is edited in a copy of the loaded scenario
// (integers +1, x2 and -1, numbers x1.5 and /1.5, durations x2 + 1 ms and /2, booleans flipped,
// an unset optional set to a small value and a set one unset, a name to every other name), its
// new value is written at the row's pointer into the scenario document (so the loader reads
// it as a user would write it: presets, derived values such as Megatron's data-parallel size, and
// cross-field checks included), and a value the loader
// or the model refuses is skipped. Each row must be changed successfully in at least one
// scenario, so that no row escapes the property.
#include <doctest/doctest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/sweep/evaluate.hpp"
#include "../common/small_bases.hpp"
#include "../common/row_edits.hpp"

using namespace ckptsim;
using namespace ckptsim::test;
using nlohmann::json;

namespace {

}  // namespace

namespace {

/// What one base scenario's pass found, for the checks and the coverage below.
struct CostKeyPass {
  std::set<std::string> changed;  ///< rows changed successfully at least once (loaded and evaluated)
};

/// The iteration costs and strategy costs of a scenario as the sweep writes them; nullopt when
/// the model refuses the scenario (a typed error: the edit made a job the model cannot answer for).
std::optional<std::pair<std::string, std::string>> evaluated(const Scenario& s) {
  try {
    const IterationCosts iteration = compute_iteration_costs(s);
    const StrategyCosts costs = compute_strategy_costs(s, &iteration);
    json costs_doc = costs_json(costs);
    costs_doc.erase("warnings");  // a warning about the edited field is no cost
    return std::pair{sweep::iteration_costs_json(iteration).dump(), costs_doc.dump()};
  } catch (const ModelError&) {
  } catch (const LimitError&) {
  } catch (const InputError&) {
  }
  return std::nullopt;
}

/// The megatron base without experts: fp16, which Megatron-LM refuses with expert parallelism,
/// changes alone here.
json cost_key_megatron_dense() {
  json doc = cost_key_megatron();
  doc["model"].erase("experts");
  doc["model"].erase("experts_per_token");
  doc["training"]["megatron"]["ep"] = 1;
  doc["training"]["megatron"].erase("moe_capacity_factor");
  return doc;
}

/// The megatron base under moe-partial (2 of its 4 experts per checkpoint), whose two rows are
/// written into the effective scenario only under that strategy.
json cost_key_moe_partial() {
  json doc = cost_key_megatron();
  doc["strategy"] = {{"kind", "moe-partial"}, {"replicas", 2}, {"placement", "group"}, {"moe_experts_per_checkpoint", 2}};
  return doc;
}

CostKeyPass check_every_row(const json& base_doc) {
  CostKeyPass pass;
  const Scenario base = load_scenario_json(base_doc, "base.json", ".");
  const std::string base_key = sweep::iteration_cost_key(base);
  const auto base_results = evaluated(base);
  REQUIRE(base_results);
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias) continue;
    for (const json& doc : edited_documents(f, base, base_doc)) {
      Scenario s;
      try {
        s = load_scenario_json(doc, "base.json", ".");
      } catch (const InputError&) {
        continue;  // a value the loader refuses here (out of range, or against another field)
      }
      const auto results = evaluated(s);
      if (!results) continue;
      pass.changed.insert(std::string(f.pointer));
      const json::json_pointer at{std::string(f.pointer)};
      CAPTURE(f.pointer);
      CAPTURE(doc.contains(at) ? doc.at(at).dump() : std::string("(unset)"));
      // The property: costs that differ must have keys that differ.
      if (results->first != base_results->first) CHECK(sweep::iteration_cost_key(s) != base_key);
      // The table's word for the strategy's costs: only rows the iteration model or the costs
      // read may move them.
      if (results->second != base_results->second)
        CHECK((includes(f.reads, ReadBy::iteration) || includes(f.reads, ReadBy::costs)));
    }
  }
  return pass;
}

}  // namespace

TEST_CASE("cost key: every parameter row, changed alone, changes the key whenever it changes the iteration costs") {
  std::set<std::string> changed;
  for (const json& base : {cost_key_deepspeed_fat_tree(), cost_key_fsdp_leaf_spine(), cost_key_megatron(),
                           cost_key_megatron_dense(), cost_key_random_placement(), cost_key_moe_partial()}) {
    const CostKeyPass pass = check_every_row(base);
    changed.insert(pass.changed.begin(), pass.changed.end());
  }
  // Coverage: every row was changed in at least one of the scenarios, except free text (the
  // scenario's name, which no model reads; a trace path, which names a file) and the rows only
  // a failure trace or a Weibull process takes (their values are still read and range-checked
  // under the exponential process of these scenarios, and changed here too when they load).
  // Megatron's data-parallel size is fixed by the GPU count and tp x cp x pp (the loader derives
  // it and refuses any other value), so it never changes alone: its changes come with theirs.
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias || f.unit == Unit::text || f.pointer == "/training/megatron/dp") continue;
    CAPTURE(f.pointer);
    CHECK(changed.count(std::string(f.pointer)) == 1);
  }
}
