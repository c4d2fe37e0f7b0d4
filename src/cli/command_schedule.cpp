// ckptsim schedule: the checkpoint chunk plan of one iteration, per rank, with the iteration's
// operations — the input of the replay tool (format: docs/plan-format.md).
#include <algorithm>
#include <optional>
#include <ostream>
#include <string>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/output/trace_events.hpp"
#include "ckptsim/output/warnings.hpp"
#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

const char* operation_kind(const Task& t) {
  switch (t.kind) {
    case TaskKind::compute: return "compute";
    case TaskKind::transfer: return "collective";
    case TaskKind::marker: return "marker";
  }
  return "?";
}

nlohmann::json operations_json(const IterationStudy& study) {
  const TaskGraph& graph = study.model.workload.graph();
  const GraphRun& run = study.model.run;
  auto ops = nlohmann::json::array();
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Task& t = graph.tasks()[i];
    nlohmann::json op = {{"id", i},
                         {"kind", operation_kind(t)},
                         {"category", to_string(t.category)},
                         {"name", task_slice_name(study.model.workload, static_cast<int>(i))},
                         {"stage", t.layer},
                         {"deps", t.deps}};
    if (t.kind == TaskKind::compute) {
      op["flops"] = t.flops;
      op["duration_s"] = t.duration.seconds();
    } else if (t.kind == TaskKind::transfer) {
      op["phase"] = t.phase;
      op["bytes"] = t.bytes;
      op["latency_s"] = t.latency.seconds();
    }
    if (study.model.has_training_graph()) {
      op["planned_start_s"] = run.timing[i].ready.seconds();
      op["planned_end_s"] = run.timing[i].end.seconds();
    }
    ops.push_back(std::move(op));
  }
  return ops;
}

nlohmann::json plan_json(const IterationStudy& study, const SchedulerOutcome& o, const std::string& command_line) {
  const Scenario& sc = study.scenario;
  const CheckpointPlan& plan = o.plan;
  const int g = sc.cluster.gpus_per_machine;
  nlohmann::json doc;
  doc["format"] = "ckptsim-plan/1";
  doc["manifest"] = make_manifest(sc, command_line);
  doc["scenario"] = sc.name;
  doc["scheduler"] = name_of(plan.scheduler);
  doc["cluster"] = {{"machines", sc.cluster.machines},
                    {"gpus_per_machine", g},
                    {"ranks", sc.cluster.machines * g},
                    {"placement", name_of(sc.strategy.placement)},
                    {"replicas", sc.strategy.replicas}};
  doc["parameters"] = {{"shard_bytes", plan.shard_bytes},
                       {"copies", plan.copies},
                       {"gpu_buffer_bytes", study.input.buffer_bytes},
                       {"sub_buffers", plan.sub_buffers},
                       {"chunk_limit_bytes", plan.chunk_limit},
                       {"span_safety", study.input.span_safety},
                       {"alpha_s", study.input.alpha.seconds()},
                       {"bandwidth_per_gpu_bytes_per_s", study.input.bandwidth},
                       {"blocks_training", plan.blocks_training}};
  auto spans = nlohmann::json::array();
  for (std::size_t k = 0; k < plan.spans.size(); ++k) {
    const IdleSpan& s = plan.spans[k];
    spans.push_back({{"index", k}, {"start_s", s.start.seconds()}, {"length_s", s.length.seconds()}, {"after_op", s.anchor}});
  }
  doc["iteration"] = {{"iteration_time_s", study.training_iteration.seconds()},
                      {"profile", study.model.profile.imported ? "imported" : "simulated"},
                      {"idle_spans", std::move(spans)},
                      {"operations", operations_json(study)}};
  auto chunks_for = [&](const std::vector<int>& peer_ranks) {
    auto chunks = nlohmann::json::array();
    for (const PlannedChunk& c : plan.chunks) {
      chunks.push_back({{"index", c.index},
                        {"copy", c.copy},
                        {"peer", peer_ranks[static_cast<std::size_t>(c.copy)]},
                        {"span", c.span},
                        {"offset_s", c.offset.seconds()},
                        {"planned_start_s", c.planned_start.seconds()},
                        {"bytes", c.bytes},
                        {"sub_buffer", c.sub_buffer}});
    }
    return chunks;
  };
  const auto peers = ordered_peers(study.placement);
  auto ranks = nlohmann::json::array();
  for (int m = 0; m < sc.cluster.machines; ++m) {
    for (int gpu = 0; gpu < g; ++gpu) {
      const int rank = m * g + gpu;
      std::vector<int> peer_ranks;
      for (int p : peers[static_cast<std::size_t>(m)]) peer_ranks.push_back(p * g + gpu);
      ranks.push_back({{"rank", rank},
                       {"machine", m},
                       {"gpu", gpu},
                       {"peers", peer_ranks},
                       {"local_copy", {{"bytes", plan.shard_bytes}, {"planned_start_s", plan.local_copy_start.seconds()}}},
                       {"chunks", chunks_for(peer_ranks)}});
    }
  }
  doc["ranks"] = std::move(ranks);
  doc["summary"] = {{"sent_bytes_per_rank", plan.sent_bytes()},
                    {"leftover_bytes", plan.leftover_bytes},
                    {"leftover_time_s", plan.leftover_time.seconds()},
                    {"fits_in_one_iteration", o.fits_in_one_iteration},
                    {"min_every_iterations", o.min_every_iterations},
                    {"gpu_buffer_bytes", o.gpu_buffer_bytes},
                    {"oom", o.oom},
                    {"iteration_time_with_checkpoint_s", o.iteration_time_with_checkpoint.seconds()},
                    {"checkpoint_time_s", o.checkpoint_time.seconds()}};
  return doc;
}

/// The plan format (docs/plan-format.md) holds m - 1 whole copies of each shard sent to peers:
/// GEMINI's checkpoint, and in-memory-blocking's. Other strategies checkpoint differently
/// (parity symbols, levels, storage, nothing), so a replica plan for them would be wrong.
void refuse_without_replica_plan(const Scenario& s) {
  const StrategyKind kind = s.strategy.kind;
  if (checkpoint_layout(kind) == CheckpointLayout::replicas) return;
  throw InputError(s.source_file, "/strategy/kind",
                   "a strategy whose checkpoint is whole replicas sent to peers, \"gemini\" or \"in-memory-blocking\" "
                   "(ckptsim schedule writes only that plan; the plans of the other strategies are not modelled yet)",
                   fmt::format("\"{}\"", name_of(kind)));
}

}  // namespace

int command_schedule(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim schedule SCENARIO -o plan.json [options]\n\n"
      "Simulates one training iteration of the scenario, plans one checkpoint's traffic with a\n"
      "scheduler and writes the plan: per rank, its peers and chunks (size, peer, idle span,\n"
      "sub-buffer, planned start), with the iteration's operations (bytes, compute durations, FLOPs)\n"
      "and idle spans. The replay tool reads it (format: docs/plan-format.md).\n\noptions");
  std::string output;
  std::string scheduler;
  std::string profile;
  visible.add_options()("help,h", "print this help")
      ("output,o", po::value<std::string>(&output), "plan file to write (required; - for stdout)")
      ("scheduler", po::value<std::string>(&scheduler),
       "blocking | naive | single-buffer | gemini (default: the scenario's strategy.scheduler)")
      ("profile", po::value<std::string>(&profile),
       "take the idle spans from a measured profile (docs/profile-format.md) instead of the model")
      ("force", "run even when the estimated memory or flows exceed the limits of docs/limits.md");
  std::string scenario_path;
  const auto parsed = parse_command_options(ctx, visible, "scenario", &scenario_path);
  if (!parsed) return 0;
  if (scenario_path.empty()) throw UsageError("missing SCENARIO (a scenario JSON file)");
  if (output.empty()) throw UsageError("missing -o FILE (where to write the plan)");
  const std::optional<SchedulerId> chosen = find_scheduler(scheduler);
  if (!scheduler.empty() && !chosen) {
    throw UsageError(fmt::format("--scheduler expects {}, found \"{}\"", scheduler_registry().names_for_error(), scheduler));
  }
  if (output != "-") {
    refuse_output_over_inputs("--output", output, {scenario_path, profile});
    check_output_writable(output);
  }
  const Scenario scenario = load_scenario_file(scenario_path);
  refuse_without_replica_plan(scenario);
  enforce_work_limits(estimate_iteration_work(scenario), parsed->count("force") > 0);
  const SchedulerId planned = chosen.value_or(scenario.strategy.scheduler);
  std::optional<IterationProfile> imported;
  if (!profile.empty()) imported = load_profile_file(profile, scenario.cluster.machines);
  const IterationStudy study = prepare_iteration_study(scenario, imported);
  const SchedulerOutcome outcome = evaluate_scheduler(study, planned);
  const nlohmann::json doc = plan_json(study, outcome, ctx.command_line);
  print_warning_lines(ctx.err, profile_time_warnings(study));
  if (output == "-") {
    ctx.out << doc.dump(1) << '\n';
  } else {
    write_output_file(output, doc.dump(1) + '\n');
    // sent_bytes() is what one rank sends in the iteration: its chunks' sizes summed.
    double largest = 0;
    for (const PlannedChunk& c : outcome.plan.chunks) largest = std::max(largest, c.bytes);
    ctx.err << fmt::format("ckptsim schedule: {} plan for {} ranks, {} chunks per rank ({} per rank, the largest chunk "
                           "{}), written to {}\n",
                           name_of(planned), scenario.cluster.machines * scenario.cluster.gpus_per_machine,
                           outcome.plan.chunks.size(), format_bytes(outcome.plan.sent_bytes()), format_bytes(largest),
                           output);
  }
  return 0;
}

}  // namespace ckptsim::cli
