// Pairs of time fields at the edge of their range at once (issue 21: each value passes its own
// check, their sum did not, and 23 of 630 pairs ended with negative wall times). For every pair
// of duration fields of the parameter table, both set to 36,000 days (98.6 years) in a 100-year
// run, under three strategies: the run is either refused with a typed error before it starts,
// or its replica's figures are sane. The oracle is the documented accounting of run_model.hpp
// (wall = training + stall + lost progress + detection + replacement wait + retrieval + restart,
// exactly, in ns), every part >= 0 and ETTR in [0, 1] — nothing computed by the code under test.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "../common/scenario_documents.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// The duration fields of the parameter table (one place: a new one is covered too).
std::vector<std::string> duration_fields() {
  std::vector<std::string> out;
  for (const Field& f : scenario_fields())
    if (f.unit == Unit::duration || f.unit == Unit::duration_or_never) out.emplace_back(f.pointer);
  return out;
}

/// "" when the replica is sane, else what is wrong.
std::string insanity(const ReplicaResult& r) {
  const auto& b = r.breakdown;
  for (const SimTime t : {r.wall_time, b.training, b.checkpoint_stall, b.lost_progress, b.detection, b.replacement_wait,
                          b.retrieval, b.restart, r.wasted_time})
    if (t < SimTime::zero()) return "a negative time";
  if (r.iterations < 0 || r.failures() < 0) return "a negative count";
  if (b.total() != r.wall_time) return "parts that do not add up to the wall time";
  if (!(r.ettr() >= 0.0 && r.ettr() <= 1.0)) return "an ETTR outside [0, 1]";
  return "";
}

}  // namespace

TEST_CASE("every pair of time fields at 98.6 years in a 100-year run: refused, or sane") {
  const std::vector<std::string> fields = duration_fields();
  REQUIRE(fields.size() >= 18);  // latency .. run/duration (parameters.cpp)
  int refused = 0, ran = 0;
  for (const char* kind : {"gemini", "remote-periodic", "multi-level"}) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      for (std::size_t j = i + 1; j < fields.size(); ++j) {
        json doc = test::minimal_scenario_document();
        doc["strategy"]["kind"] = kind;
        doc["training"]["iteration_time"] = "60s";
        doc["run"] = {{"duration", "36525d"}, {"replicas", 1}};
        doc[json::json_pointer(fields[i])] = "36000d";
        doc[json::json_pointer(fields[j])] = "36000d";
        CAPTURE(kind);
        CAPTURE(fields[i]);
        CAPTURE(fields[j]);
        try {
          const Scenario s = load_scenario_json(doc, "pair.json", ".");
          const RunChecks checks;
          const RunModel model = checked_run_model(s, checked_strategy_costs(s, checks), 1, checks);
          CHECK(insanity(model.simulate(0)) == "");
          ++ran;
        } catch (const InputError&) {
          ++refused;
        } catch (const ModelError&) {
          ++refused;
        } catch (const LimitError&) {
          ++refused;
        }
      }
    }
  }
  // Both outcomes occur: detection + restart is refused (100 + 98.6 + 98.6 years > 292.3 years),
  // latency + the adaptive prior run (with an explicit iteration time and no adaptive interval,
  // neither enters the run).
  CHECK(refused > 0);
  CHECK(ran > 0);
}
