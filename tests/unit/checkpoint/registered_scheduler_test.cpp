// Schedulers a program registers (checkpoint/scheduler.hpp, register_scheduler;
// scenario/scheduler_id.hpp) and the plan contract they are held to (checkpoint/plan_check.hpp).
// Registrations last for the process: every case registers names of its own ("test-...").
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/plan_check.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "../common/error_text.hpp"
#include "../common/scenario_documents.hpp"
#include "../common/source_path.hpp"
#include "../workload/paper_scenario.hpp"

using namespace ckptsim;

namespace {

/// scheduler_test.cpp's layout: the paper's 4 machines, 12 layers (gemini plans several chunks
/// into the first idle spans, with m = 2: one remote copy).
Scenario registered_zero3_scenario() {
  Scenario s = testing::paper_scenario(4);
  s.model.layers = 12;
  s.model.parameters = 0;
  return s;
}

SchedulerFunction gemini_wrapper() {
  return [](const ScheduleInput& in) { return make_plan(SchedulerKind::gemini, in); };
}

/// gemini's plan with one thing changed: a scheduler that breaks the contract in one way.
SchedulerFunction edited_gemini(void (*edit)(CheckpointPlan&)) {
  return [edit](const ScheduleInput& in) {
    CheckpointPlan plan = make_plan(SchedulerKind::gemini, in);
    edit(plan);
    return plan;
  };
}

void check_same_outcome(const SchedulerOutcome& a, const SchedulerOutcome& b) {
  REQUIRE(a.plan.chunks.size() == b.plan.chunks.size());
  for (std::size_t i = 0; i < a.plan.chunks.size(); ++i) {
    CHECK(a.plan.chunks[i].bytes == b.plan.chunks[i].bytes);
    CHECK(a.plan.chunks[i].span == b.plan.chunks[i].span);
    CHECK(a.plan.chunks[i].offset == b.plan.chunks[i].offset);
    CHECK(a.plan.chunks[i].planned_start == b.plan.chunks[i].planned_start);
  }
  CHECK(a.plan.leftover_bytes == b.plan.leftover_bytes);
  CHECK(a.plan.leftover_time == b.plan.leftover_time);
  CHECK(a.iteration_time_with_checkpoint == b.iteration_time_with_checkpoint);
  CHECK(a.checkpoint_time == b.checkpoint_time);
  CHECK(a.gpu_buffer_bytes == b.gpu_buffer_bytes);
  CHECK(a.min_every_iterations == b.min_every_iterations);
}

}  // namespace

TEST_CASE("registered scheduler: a wrapper of gemini plans and costs exactly as gemini") {
  const SchedulerId id = register_scheduler("test-gemini-wrapper", "gemini, through the registry", gemini_wrapper());
  CHECK(name_of(id) == "test-gemini-wrapper");
  CHECK(!id.builtin());
  CHECK(find_scheduler("test-gemini-wrapper") == id);
  CHECK(scheduler_description(id) == "gemini, through the registry");
  // The wrapper returns gemini's plan; make_plan fills in the planned starts and the leftover by
  // the partition's own rules (span start + offset; alpha + bytes/B per leftover chunk), so every
  // chunk, the simulated iteration and the smallest k are gemini's, and only the plan's id differs.
  Scenario scenario = registered_zero3_scenario();
  const IterationStudy study = prepare_iteration_study(scenario);
  const SchedulerOutcome mine = evaluate_scheduler(study, id);
  const SchedulerOutcome gemini = evaluate_scheduler(study, SchedulerKind::gemini);
  REQUIRE(mine.plan.chunks.size() > 1);
  check_same_outcome(mine, gemini);
  CHECK(mine.plan.scheduler == id);
  // The run's costs read strategy.scheduler: the same iteration costs as the scenario naming gemini.
  const IterationCosts with_gemini = compute_iteration_costs(scenario);
  scenario.strategy.scheduler = id;
  const IterationCosts with_wrapper = compute_iteration_costs(scenario);
  CHECK(with_wrapper.iteration_time_with_checkpoint == with_gemini.iteration_time_with_checkpoint);
  CHECK(with_wrapper.checkpoint_time == with_gemini.checkpoint_time);
  CHECK(with_wrapper.min_every_iterations == with_gemini.min_every_iterations);
}

TEST_CASE("registered scheduler: a scenario names it, the effective scenario writes its name, an unknown name lists it") {
  const SchedulerId id = register_scheduler("test-named-in-a-scenario", "gemini again", gemini_wrapper());
  nlohmann::json doc = test::minimal_scenario_document();
  doc["strategy"]["scheduler"] = "test-named-in-a-scenario";
  const Scenario s = load_scenario_json(doc, "test.json", ".");
  CHECK(s.strategy.scheduler == id);
  CHECK(effective_scenario_json(s)["strategy"]["scheduler"] == "test-named-in-a-scenario");
  // A name nobody registered: the loader's problem at the pointer, listing the built-ins and the
  // registered names (the names a scenario may use).
  doc["strategy"]["scheduler"] = "test-never-registered";
  const std::vector<Problem> problems = test::scenario_problems(doc);
  REQUIRE(test::has_problem_at(problems, "/strategy/scheduler"));
  for (const Problem& p : problems) {
    if (p.pointer != "/strategy/scheduler") continue;
    CHECK(p.expected.find("\"gemini\"") != std::string::npos);
    CHECK(p.expected.find("\"test-named-in-a-scenario\"") != std::string::npos);
    CHECK(p.found == "\"test-never-registered\"");
  }
}

TEST_CASE("register_scheduler refuses a taken, empty, reserved or odd name and an empty function") {
  const auto refusal = [](const std::string& name) {
    return test::what_of([&] { register_scheduler(name, "", gemini_wrapper()); });
  };
  // Built-in names and earlier registrations are taken; the first registration stays as it was.
  CHECK(refusal("gemini").find("taken") != std::string::npos);
  CHECK(refusal("blocking").find("found \"blocking\"") != std::string::npos);
  const SchedulerId first = register_scheduler("test-clash", "the first", gemini_wrapper());
  CHECK(refusal("test-clash").find("taken") != std::string::npos);
  CHECK(find_scheduler("test-clash") == first);
  CHECK(scheduler_description(first) == "the first");
  CHECK(refusal("").find("found \"\"") != std::string::npos);
  CHECK(refusal("all").find("\"all\"") != std::string::npos);
  CHECK(refusal("two words").find("letters, digits") != std::string::npos);
  CHECK(refusal(std::string(65, 'x')).find("1 to 64") != std::string::npos);
  // An empty function is refused before the name is taken: the name stays free.
  CHECK(test::what_of([] { register_scheduler("test-empty-function", "", SchedulerFunction{}); }).find("empty") != std::string::npos);
  CHECK(!find_scheduler("test-empty-function"));
  CHECK_NOTHROW(register_scheduler("test-empty-function", "", gemini_wrapper()));
}

TEST_CASE("plan contract: a registered plan that breaks a rule is refused, naming the scheduler and the rule") {
  const IterationStudy study = prepare_iteration_study(registered_zero3_scenario());
  const CheckpointPlan gemini = make_plan(SchedulerKind::gemini, study.input);
  // The cases below edit chunk 0 and 1 of gemini's plan: it has both, in the first idle span,
  // one remote copy (m = 2), four sub-buffers.
  REQUIRE(gemini.chunks.size() > 1);
  REQUIRE(gemini.chunks[0].span == 0);
  REQUIRE(study.input.copies == 1);
  struct Case {
    const char* name;
    void (*edit)(CheckpointPlan&);
    const char* rule;
  };
  const Case cases[] = {
      {"test-broken-copy", [](CheckpointPlan& p) { p.chunks[0].copy = 1; }, "chunk 0: its copy is 1, expected 0 to 0"},
      {"test-broken-bytes", [](CheckpointPlan& p) { p.chunks[0].bytes = -1; }, "chunk 0: its bytes are -1"},
      {"test-broken-outside", [](CheckpointPlan& p) { p.chunks[0].offset = p.spans[0].length; }, "outside the span"},
      {"test-broken-sum", [](CheckpointPlan& p) { p.chunks.pop_back(); }, "the chunks of copy 0 add up to"},
      {"test-broken-before", [](CheckpointPlan& p) { p.chunks[0].span = -1; }, "only a plan that blocks training"},
      {"test-broken-blocks", [](CheckpointPlan& p) { p.blocks_training = true; }, "sends every chunk before training"},
      {"test-broken-index", [](CheckpointPlan& p) {
         // A plan of one chunk (clang's sanitizer build plans one here) gets a second half first.
         if (p.chunks.size() < 2) {
           PlannedChunk half = p.chunks[0];
           half.bytes /= 2;
           p.chunks[0].bytes -= half.bytes;
           p.chunks.push_back(half);
         }
         p.chunks[1].index = 0;
       }, "chunk 1: its index is 0"},
      {"test-broken-sub-buffers", [](CheckpointPlan& p) { p.sub_buffers = 0; }, "sub_buffers is 0"},
      {"test-broken-sub-buffer", [](CheckpointPlan& p) { p.chunks[0].sub_buffer = 7; }, "chunk 0: its sub_buffer is 7"},
      {"test-broken-shard", [](CheckpointPlan& p) { p.shard_bytes *= 2; }, "its shard_bytes"},
      {"test-broken-span", [](CheckpointPlan& p) { p.chunks[0].span = static_cast<int>(p.spans.size()) + 1; }, "chunk 0: its span is"},
      {"test-broken-spans", [](CheckpointPlan& p) { p.spans.clear(); }, "it has 0 spans"},
      {"test-broken-limit", [](CheckpointPlan& p) { p.chunk_limit = p.chunks[0].bytes / 2; }, "exceed the plan's chunk_limit"},
      {"test-broken-clock", [](CheckpointPlan& p) { p.chunks[0].offset = seconds(2e6); }, "chunk 0: its offset is 2000000 s, expected 0 or more and below 1000000 s"},
  };
  for (const Case& c : cases) {
    const std::string name = c.name;
    CAPTURE(name);
    const SchedulerId id = register_scheduler(name, "", edited_gemini(c.edit));
    const std::string what = test::what_of([&] { evaluate_scheduler(study, id); });
    CAPTURE(what);
    CHECK(what.find("/strategy/scheduler") == 0);
    CHECK(what.find(std::string("the scheduler \"") + c.name + "\"") != std::string::npos);
    CHECK(what.find(c.rule) != std::string::npos);
  }
  // What make_plan derives is not the scheduler's to get wrong: planned starts and the leftover
  // written as zero are filled in from the chunks, and the plan is gemini's.
  const SchedulerId derived = register_scheduler("test-derived-left-out", "", edited_gemini([](CheckpointPlan& p) {
                                                   for (PlannedChunk& c : p.chunks) c.planned_start = SimTime::zero();
                                                   p.leftover_bytes = 0;
                                                   p.leftover_time = SimTime::zero();
                                                 }));
  check_same_outcome(evaluate_scheduler(study, derived), evaluate_scheduler(study, SchedulerKind::gemini));
}

TEST_CASE("plan contract: every built-in scheduler's plan keeps it") {
  const IterationStudy study = prepare_iteration_study(registered_zero3_scenario());
  for (const auto& e : EnumNames<SchedulerKind>::table) {
    CAPTURE(e.name);
    CHECK_NOTHROW(check_plan(make_plan(e.value, study.input), study.input, std::string(e.name)));
  }
}

TEST_CASE("registered scheduler: a plan that blocks training hides at no k and costs the blocking time") {
  const SchedulerId id = register_scheduler("test-always-blocking", "the blocking plan, always", [](const ScheduleInput& in) {
    return make_plan(SchedulerKind::blocking, in);
  });
  const IterationStudy study = prepare_iteration_study(registered_zero3_scenario());
  const SchedulerOutcome mine = evaluate_scheduler(study, id);
  const SchedulerOutcome blocking = evaluate_scheduler(study, SchedulerKind::blocking);
  // The same plan as the built-in blocking scheduler, so the same iteration; but no number of
  // iterations hides a checkpoint that training waits for at every iteration, and the built-in's
  // smallest k (gemini's partition, by its documented rule) is not this scheduler's: never.
  CHECK(mine.iteration_time_with_checkpoint == blocking.iteration_time_with_checkpoint);
  CHECK(mine.iteration_time_with_checkpoint > study.training_iteration);
  CHECK(!mine.fits_in_one_iteration);
  CHECK(mine.min_every_iterations == kMinEverySearchLimit + 1);
}

TEST_CASE("registered scheduler on a Megatron layout: its plan is simulated as gemini's is, planned starts left unset included") {
  // Before registration an out-of-tree plan had to be simulated by the program itself with
  // run_with_checkpoint, which needs the training task graph that the megatron model does not
  // build (4d07799 turned its segfault on this scenario into a ModelError; the plan still could
  // not run). Through the registry the plan goes where gemini's goes: one plan per span group,
  // simulated on an idle network at its planned clock times (evaluate_plan). There, unlike the
  // ZeRO-3 graph where a chunk waits for the task that opens its span, a planned start left at 0
  // would release every chunk at the iteration start: make_plan derives it from span and offset.
  // A scheduler returning gemini's plan with every planned start zeroed must therefore give
  // gemini's plans, iteration, checkpoint time and run costs exactly.
  const SchedulerId id = register_scheduler("test-megatron-starts-unset", "gemini, planned starts left at 0",
                                            edited_gemini([](CheckpointPlan& p) {
                                              for (PlannedChunk& c : p.chunks) c.planned_start = SimTime::zero();
                                            }));
  const std::string path = test::source_path("scenarios/examples/mixtral-8x7b-megatron-64xh100.json");
  const Scenario gemini_scenario = load_scenario_file(path);
  std::ifstream file(path);
  nlohmann::json doc = nlohmann::json::parse(file);
  doc["strategy"]["scheduler"] = "test-megatron-starts-unset";
  const Scenario mine_scenario = load_scenario_json(doc, path, "");
  REQUIRE(mine_scenario.training.parallelism == Parallelism::megatron);
  REQUIRE(mine_scenario.strategy.scheduler == id);
  const IterationStudy study = prepare_iteration_study(mine_scenario);
  REQUIRE(!study.model.has_training_graph());
  REQUIRE(study.span_groups.size() > 1);  // one plan per pipeline stage's spans
  for (const SpanGroup& group : study.span_groups) {
    const CheckpointPlan plan = make_plan(id, group.input);
    const CheckpointPlan gemini = make_plan(SchedulerKind::gemini, group.input);
    REQUIRE(plan.chunks.size() == gemini.chunks.size());
    for (std::size_t i = 0; i < plan.chunks.size(); ++i) CHECK(plan.chunks[i].planned_start == gemini.chunks[i].planned_start);
  }
  check_same_outcome(evaluate_scheduler(study, id), evaluate_scheduler(study, SchedulerKind::gemini));
  const IterationCosts mine = compute_iteration_costs(mine_scenario);
  const IterationCosts gemini = compute_iteration_costs(gemini_scenario);
  CHECK(mine.iteration_time_with_checkpoint == gemini.iteration_time_with_checkpoint);
  CHECK(mine.checkpoint_time == gemini.checkpoint_time);
  CHECK(mine.min_every_iterations == gemini.min_every_iterations);
}
