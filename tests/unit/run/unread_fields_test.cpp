// Warnings about fields a scenario writes that nothing reads (run/unread_fields.hpp): one worked
// case per rule, and a property over the whole table and every strategy that each warning is
// true (changing a field it calls unread changes no result).
#include <doctest/doctest.h>

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/row_edits.hpp"
#include "../common/scenario_documents.hpp"
#include "../common/small_bases.hpp"
#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/run/unread_fields.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/sweep/evaluate.hpp"

using namespace ckptsim;
using namespace ckptsim::test;
using nlohmann::json;

namespace {

std::vector<FieldWarning> unread_of(const json& doc) { return unread_field_warnings(load_scenario_json(doc, "u.json", ".")); }

/// The base of the cases below with the strategy replaced.
json unread_base(const json& strategy) {
  json doc = cost_key_deepspeed_fat_tree();
  doc["strategy"] = strategy;
  return doc;
}

}  // namespace

TEST_CASE("unread fields: none for a scenario that writes only what its models read") {
  CHECK(unread_of(cost_key_deepspeed_fat_tree()).empty());
  CHECK(unread_of(cost_key_megatron()).empty());
}

TEST_CASE("unread fields: a strategy field the strategy does not read, and what it reads instead") {
  // async-two-phase takes its period from /strategy/every_iterations (async_two_phase.cpp);
  // /strategy/interval is remote-periodic's and just-in-time's.
  const auto w = unread_of(unread_base({{"kind", "async-two-phase"}, {"interval", "30min"}}));
  REQUIRE(w.size() == 1);
  CHECK(w[0].pointer == "/strategy/interval");
  CHECK(w[0].message.find("not read by strategy \"async-two-phase\"") != std::string::npos);
  CHECK(w[0].message.find("period comes from /strategy/every_iterations") != std::string::npos);
  CHECK(w[0].message.find("/strategy/local_bandwidth") != std::string::npos);
  // The same field under remote-periodic is its period: no warning.
  CHECK(unread_of(unread_base({{"kind", "remote-periodic"}, {"interval", "30min"}})).empty());
}

TEST_CASE("unread fields: an engine's knobs under the other engine, Megatron's under ZeRO-3") {
  json doc = cost_key_deepspeed_fat_tree();
  doc["training"]["fsdp"] = {{"forward_prefetch", true}};
  doc["training"]["megatron"] = {{"tp", 2}};
  const auto w = unread_of(doc);
  REQUIRE(w.size() == 2);
  // Table order: the Megatron block comes before the FSDP block (parameters.cpp).
  CHECK(w[0].pointer == "/training/megatron/tp");
  CHECK(w[0].message.find("read only when training.parallelism is \"megatron\"") != std::string::npos);
  CHECK(w[1].pointer == "/training/fsdp/forward_prefetch");
  CHECK(w[1].message.find("training.engine is \"fsdp\"") != std::string::npos);
}

TEST_CASE("unread fields: a field of another failure process, a mechanism's details while it is off") {
  json doc = cost_key_deepspeed_fat_tree();
  doc["failures"]["shape"] = 0.8;                        // Weibull's, under "exponential"
  doc["failures"]["stragglers"] = {{"speed", 0.3}};      // read only with a straggler rate above 0
  const auto w = unread_of(doc);
  REQUIRE(w.size() == 2);
  CHECK(w[0].pointer == "/failures/shape");
  CHECK(w[0].message.find("failures.process is \"weibull\" (here \"exponential\")") != std::string::npos);
  CHECK(w[1].pointer == "/failures/stragglers/speed");
  CHECK(w[1].message.find("failures.stragglers.rate is above 0") != std::string::npos);
}

TEST_CASE("unread fields: a value equal to the one the field holds anyway is no warning") {
  // Every field of an effective scenario is written, most at their defaults: read back, it must
  // warn about nothing (`sweep` results and `--effective` files are rerun this way).
  const Scenario s = load_scenario_json(unread_base({{"kind", "remote-periodic"}, {"interval", "30min"}}), "u.json", ".");
  const json effective = effective_scenario_json(s);
  CHECK(unread_of(effective).empty());
  // /strategy/interval written at its default (what a scenario that leaves it out holds) is no
  // warning under async-two-phase, which does not read it; at 30 minutes it is one.
  const json unwritten = effective_scenario_json(load_scenario_json(unread_base({{"kind", "async-two-phase"}}), "u.json", "."));
  const std::string default_interval = unwritten.at("strategy").at("interval").get<std::string>();
  REQUIRE(default_interval != "30min");
  CHECK(unread_of(unread_base({{"kind", "async-two-phase"}, {"interval", default_interval}})).empty());
  CHECK(unread_of(unread_base({{"kind", "async-two-phase"}, {"interval", "30min"}})).size() == 1);
}

namespace {

/// Every result a field can change, as the two kinds of report show them: the strategy's costs
/// and a short Monte Carlo run's summary (2 replicas of a day, fixed seed) for `run` and
/// `analyze`, the iteration costs for `iteration`; nullopt when the scenario is refused.
struct EveryResult {
  std::string run;
  std::string iteration;
};

std::optional<EveryResult> every_result(const Scenario& s) {
  try {
    const IterationCosts iteration = compute_iteration_costs(s);
    const StrategyCosts costs = compute_strategy_costs(s, &iteration);
    MonteCarloOptions options;
    options.replicas = 2;
    options.jobs = 1;
    const RunSummary summary = summarize(run_replicas(RunModel(s, costs), options));
    json costs_doc = costs_json(costs);
    costs_doc.erase("warnings");  // the warning about the edited field itself
    return EveryResult{costs_doc.dump() + summary_json(summary).dump(), sweep::iteration_costs_json(iteration).dump()};
  } catch (const ModelError&) {
  } catch (const LimitError&) {
  } catch (const InputError&) {
  }
  return std::nullopt;
}

/// The strategy block each strategy needs on the 4-machine base (erasure groups of 2; torchft
/// and just-in-time 2 replica groups; shadow 2 shadow machines).
json strategy_block(StrategyKind kind) {
  json block = {{"kind", std::string(name_of(kind))}};
  if (kind == StrategyKind::erasure_coded) block.update({{"group_size", 2}, {"parity", 1}});
  if (kind == StrategyKind::torchft || kind == StrategyKind::just_in_time) block["replica_groups"] = 2;
  // shadow requires its shadow machines, their update rate and their failure rate.
  if (kind == StrategyKind::shadow)
    block.update({{"shadow_machines", 2}, {"shadow_update_bandwidth", "1GB/s"}, {"shadow_machine_mtbf", "100d"}});
  return block;
}

}  // namespace

TEST_CASE("unread fields: erasure-coded reads the scheduler and its knobs, which set its stall") {
  // Its p parity copies go through the idle spans as GEMINI's do: the iteration model plans them
  // with strategy.scheduler (and its gpu_buffer, sub_buffers, span_safety), and the stall is what
  // that plan leaves unhidden. In GEMINI's setup (16 p4d, GPT-2 100B: 12 B x 100e9 / 128 GPUs,
  // about 9 GB per GPU, against some 60 ms of idle spans per 23 s iteration) no scheduler hides a
  // copy in one iteration, so the stall is the plan's own: naive's one chunk per span and gemini's
  // sub-buffered chunks leave different work after the last span. A warning calling the
  // scheduler unread was false (it was, before erasure-coded named these fields).
  json doc = test::minimal_scenario_document();
  doc["strategy"] = {{"kind", "erasure-coded"}, {"group_size", 4}, {"parity", 1}, {"scheduler", "naive"}};
  const Scenario naive = load_scenario_json(doc, "u.json", ".");
  doc["strategy"]["scheduler"] = "gemini";
  const Scenario gemini = load_scenario_json(doc, "u.json", ".");
  for (const char* pointer : {"/strategy/scheduler", "/strategy/sub_buffers", "/strategy/span_safety", "/strategy/gpu_buffer"}) {
    CAPTURE(pointer);
    CHECK(field_is_read(naive, pointer));
  }
  const IterationCosts naive_iteration = compute_iteration_costs(naive);
  const IterationCosts gemini_iteration = compute_iteration_costs(gemini);
  const SimTime naive_stall = compute_strategy_costs(naive, &naive_iteration).stall;
  const SimTime gemini_stall = compute_strategy_costs(gemini, &gemini_iteration).stall;
  CHECK(naive_stall > SimTime::zero());
  CHECK(gemini_stall > SimTime::zero());
  CHECK(naive_stall != gemini_stall);
}

TEST_CASE("unread fields: a field called unread changes no result (every row, every strategy)") {
  int checked = 0;
  for (const auto& entry : EnumNames<StrategyKind>::table) {
    json base_doc = cost_key_deepspeed_fat_tree();
    base_doc["strategy"] = strategy_block(entry.value);
    base_doc["run"]["replicas"] = 2;
    const Scenario base = load_scenario_json(base_doc, "u.json", ".");
    const auto base_result = every_result(base);
    REQUIRE(base_result);
    for (const Field& f : scenario_fields()) {
      const bool unread_by_run = !field_is_read(base, f.pointer);
      const bool unread_by_iteration = !field_is_read(base, f.pointer, UnreadFor::iteration);
      if (f.presence == Presence::alias || !unread_by_run) continue;  // unread by iteration implies by run
      for (const json& doc : edited_documents(f, base, base_doc)) {
        Scenario s;
        try {
          s = load_scenario_json(doc, "u.json", ".");
        } catch (const InputError&) {
          continue;
        }
        // The edit may itself switch the condition (a straggler speed never does; a topology
        // does): only edits that leave the field unread test the warning.
        if (field_is_read(s, f.pointer)) continue;
        const auto result = every_result(s);
        if (!result) continue;
        CAPTURE(entry.name);
        CAPTURE(f.pointer);
        const json::json_pointer at{std::string(f.pointer)};
        const std::string value = doc.contains(at) ? doc.at(at).dump() : "(unset)";
        CAPTURE(value);
        CHECK(result->run == base_result->run);
        if (unread_by_iteration && !field_is_read(s, f.pointer, UnreadFor::iteration))
          CHECK(result->iteration == base_result->iteration);
        ++checked;
      }
    }
  }
  // Ten strategies, each with at least a few unread strategy fields and the engine, process and
  // mechanism details this base leaves off.
  CHECK(checked > 200);
}
