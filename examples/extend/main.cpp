// An out-of-tree checkpoint traffic scheduler added to the installed ckptsim library, no fork:
// "front-load" is registered by name before any scenario is loaded, each scenario is loaded with
// strategy.scheduler set to it, and the iteration study and the run model use it as they use a
// built-in (docs/library.md, "Adding a scheduler out of tree"). Build against an installed ckptsim:
//   c++ -std=c++20 -O2 main.cpp $(pkg-config --cflags --libs ckptsim) -o extend
//   ./extend 20 scenarios/paper/gpt2-100b-16xp4d.json scenarios/examples/mixtral-8x7b-megatron-64xh100.json
//
// front-load: every chunk of every remote copy back to back in the first idle span whose usable
// part (span_safety x length) holds them all, chunks of at most R/p bytes (the p sub-buffers of
// the GPU buffer R, in turn), each costing alpha + bytes/B as in GEMINI's partition; where no
// span holds them, the built-in blocking plan (training waits for the copies).
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <ckptsim/checkpoint/iteration_study.hpp>
#include <ckptsim/checkpoint/scheduler.hpp>
#include <ckptsim/core/error.hpp>
#include <ckptsim/run/monte_carlo.hpp>
#include <ckptsim/run/resolve_costs.hpp>
#include <ckptsim/scenario/loader.hpp>

namespace {

ckptsim::CheckpointPlan front_load(const ckptsim::ScheduleInput& in) {
  const double chunk = in.buffer_bytes / in.sub_buffers;  // R/p
  if (!(chunk > 0)) return ckptsim::make_plan(ckptsim::SchedulerKind::blocking, in);  // which refuses such a buffer
  const auto cost = [&](double bytes) { return in.alpha + ckptsim::transfer_time(bytes, in.bandwidth); };
  ckptsim::SimTime needed;  // every chunk of every copy, back to back
  for (int copy = 0; copy < in.copies; ++copy)
    for (double left = in.shard_bytes; left > 0; left -= chunk) needed += cost(std::min(chunk, left));
  for (std::size_t k = 0; k < in.spans.size(); ++k) {
    if (needed.seconds() > in.span_safety * in.spans[k].length.seconds()) continue;
    ckptsim::CheckpointPlan plan = ckptsim::plan_for(in);  // shard, copies, spans filled in
    plan.sub_buffers = in.sub_buffers;
    plan.chunk_limit = chunk;
    ckptsim::SimTime offset;
    for (int copy = 0; copy < in.copies; ++copy) {
      for (double left = in.shard_bytes; left > 0; left -= chunk) {
        ckptsim::PlannedChunk c;
        c.index = static_cast<int>(plan.chunks.size());
        c.copy = copy;
        c.span = static_cast<int>(k);
        c.offset = offset;
        c.bytes = std::min(chunk, left);
        c.sub_buffer = c.index % plan.sub_buffers;
        plan.chunks.push_back(c);
        offset += cost(c.bytes);
      }
    }
    return plan;  // make_plan fills in the planned starts and checks the plan
  }
  return ckptsim::make_plan(ckptsim::SchedulerKind::blocking, in);
}

/// The scenario file with strategy.scheduler set to `scheduler`, through the loader.
ckptsim::Scenario load_with_scheduler(const std::string& path, const std::string& scheduler) {
  std::ifstream file(path);
  if (!file) throw ckptsim::InputError(path, "", "a readable scenario file", "none");
  nlohmann::json doc = nlohmann::json::parse(file, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw ckptsim::InputError(path, "", "a JSON document", "a syntax error");
  doc["strategy"]["scheduler"] = scheduler;
  return ckptsim::load_scenario_json(doc, path, std::filesystem::path(path).parent_path().string());
}

void report(const std::string& path, int replicas) {
  const ckptsim::Scenario scenario = load_with_scheduler(path, "front-load");
  const ckptsim::IterationStudy study = ckptsim::prepare_iteration_study(scenario);
  const ckptsim::SchedulerOutcome mine = ckptsim::evaluate_scheduler(study, scenario.strategy.scheduler);
  const ckptsim::SchedulerOutcome gemini = ckptsim::evaluate_scheduler(study, ckptsim::SchedulerKind::gemini);
  const ckptsim::CheckpointPlan& plan = mine.plan;
  const bool megatron = scenario.training.parallelism == ckptsim::Parallelism::megatron;
  const std::string where = plan.blocks_training  ? std::string("no idle span holds it: blocking")
                            : plan.chunks.empty() ? std::string("nothing to send")
                                                  : fmt::format("all in idle span {}", plan.chunks.front().span);
  std::cout << fmt::format("{} ({}, scheduler {})\n", scenario.name, megatron ? "megatron" : "zero3", ckptsim::name_of(plan.scheduler));
  std::cout << fmt::format("  plan: {} chunks per GPU, {}; sent {:.0f} bytes = {} copies x {:.0f}-byte shard\n", plan.chunks.size(),
                           where, plan.sent_bytes(), study.input.copies, study.input.shard_bytes);
  std::cout << fmt::format("  iteration: {:.3f} s without a checkpoint, {:.3f} s with front-load, {:.3f} s with gemini\n",
                           study.training_iteration.seconds(), mine.iteration_time_with_checkpoint.seconds(),
                           gemini.iteration_time_with_checkpoint.seconds());
  const ckptsim::RunModel model(scenario, ckptsim::resolve_strategy_costs(scenario));
  ckptsim::MonteCarloOptions options;
  options.replicas = replicas;
  const ckptsim::RunSummary summary = ckptsim::summarize(ckptsim::run_replicas(model, options));
  std::cout << fmt::format("  run: ETTR {:.4f} +- {:.4f} over {} replicas\n", summary.at("ettr").mean, summary.at("ettr").ci95,
                           summary.replicas);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: extend REPLICAS SCENARIO.json...\n";
    return 2;
  }
  try {
    ckptsim::register_scheduler("front-load", "every copy in the first idle span that holds it all, else blocking", front_load);
    for (int i = 2; i < argc; ++i) report(argv[i], std::atoi(argv[1]));
    return 0;
  } catch (const ckptsim::InputError& e) {  // file, JSON pointer, expected, found
    for (const auto& problem : e.problems()) std::cerr << "error: " << ckptsim::format_problem(problem) << '\n';
    return 2;
  } catch (const ckptsim::ModelError& e) {  // a plan the library refused names the rule it breaks
    std::cerr << "error: " << e.what() << '\n';
    return 2;
  }
}
