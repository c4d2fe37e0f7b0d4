// ckptsim iteration: one sharded-data-parallel training iteration on the flow-level network, its
// idle spans, and what each checkpoint traffic scheduler costs. Options and routing only: the
// model is checkpoint/iteration_study.hpp, the writers output/iteration_report.hpp.
#include <algorithm>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/iteration_work.hpp"
#include "ckptsim/run/unread_fields.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/band_report.hpp"
#include "ckptsim/output/iteration_report.hpp"
#include "ckptsim/output/megatron_report.hpp"
#include "ckptsim/workload/megatron_iteration.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/output/warnings.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

/// The schedulers to compare: the one given, or all of them (the built-ins; the command line
/// registers none).
std::vector<SchedulerId> scheduler_kinds(const std::optional<SchedulerId>& chosen) {
  if (chosen) return {*chosen};
  return all_schedulers();
}

/// A megatron scenario: its own iteration report (workload/megatron_iteration.hpp), then the
/// checkpoint schedulers on the spans every stage shares (workload/parallelism_model.hpp).
/// A measured profile (--profile) replaces the spans the schedulers plan in; --write-profile
/// writes the spans every stage shares. The trace draws the ZeRO-3/FSDP task graph: not available.
int megatron_iteration(const CommandContext& ctx, const Scenario& scenario, const po::variables_map& vm,
                       const std::optional<SchedulerId>& chosen, const std::string& profile, const std::string& write_profile) {
  if (vm.count("trace"))
    throw UsageError("--trace draws the task graph of training.engine deepspeed-zero3 or fsdp; training.parallelism \"megatron\" "
                     "has a closed-form step model and no trace (its step report is printed instead)");
  if (!write_profile.empty()) check_output_writable(write_profile);
  enforce_work_limits(estimate_iteration_work(scenario), vm.count("force") > 0);
  const MegatronIteration it = simulate_megatron_iteration(scenario);
  std::optional<IterationProfile> imported;
  if (!profile.empty()) imported = load_profile_file(profile, scenario.cluster.machines);
  const IterationStudy study = prepare_iteration_study(scenario, imported);
  if (!write_profile.empty()) {
    // The spans every stage shares (those of the one plan without span groups).
    IterationProfile shared = study.model.profile;
    shared.machine_spans.assign(1, study.input.spans);
    write_output_file(write_profile,
                      profile_to_json(shared, 0,
                                      fmt::format("{} ({})", imported ? "imported profile" : "ckptsim megatron step model (spans every stage shares)",
                                                  ctx.command_line))
                              .dump() +
                          '\n');
  }
  std::vector<std::string> warnings = profile_time_warnings(study);
  const std::vector<std::string> unread = unread_field_messages(scenario, UnreadFor::iteration);
  warnings.insert(warnings.end(), unread.begin(), unread.end());
  std::vector<SchedulerRow> rows;
  for (const SchedulerId kind : scheduler_kinds(chosen)) rows.push_back({name_of(kind), evaluate_scheduler(study, kind)});
  const BandView band = band_view(scenario, it.iteration_time.seconds(), imported.has_value());
  if (vm.count("json")) {
    nlohmann::json doc = megatron_report_json(scenario, it, ctx.command_line);
    const nlohmann::json checkpoint = iteration_report_json(study, rows, ctx.command_line);
    doc["schedulers"] = checkpoint["schedulers"];
    doc["shared_idle_spans"] = checkpoint["idle_span_views"]["profiler"];
    doc["shard_bytes_per_gpu"] = checkpoint["shard_bytes_per_gpu"];
    doc["profile"] = checkpoint["profile"];
    if (imported) doc["modelled_iteration_time_s"] = checkpoint["modelled_iteration_time_s"];
    doc["prediction_band"] = band_json(band);
    add_warnings(doc, warnings);
    ctx.out << doc.dump(2) << '\n';
  } else {
    print_megatron_report(ctx.out, scenario, it);
    print_band_line(ctx.out, band);
    ctx.out << '\n';
    print_iteration_report(ctx.out, study, rows);
    print_warning_lines(ctx.out, warnings);
  }
  return 0;
}

}  // namespace

int command_iteration(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim iteration SCENARIO [options]\n\n"
      "Simulates one training iteration of the scenario as its engine (training.engine: deepspeed-zero3\n"
      "or fsdp) runs it, on a flow-level network (max-min fair sharing). Prints the time per phase and the\n"
      "exposed time per cause (on-demand gather, in-flight limit, host sync, bandwidth), the idle spans as\n"
      "GEMINI's profiler sees them (gaps between collectives) and as network-silent time, and the GPU\n"
      "memory per term; then plans one checkpoint with each traffic scheduler into the profiler's spans\n"
      "and simulates it with the training traffic. Per scheduler: iteration time without and with\n"
      "checkpointing, slowdown, idle time, checkpoint completion time, GPU buffer needed per GPU, out of\n"
      "memory, and the smallest k (checkpoint every k iterations) that hides it. A megatron layout\n"
      "(training.parallelism) prints its own step report (schedule, bubble, collectives, memory per stage,\n"
      "checkpoint shard, blast radius), then the same table on the idle spans every stage shares.\n\noptions");
  std::string scheduler = "all";
  std::string trace;
  std::string profile;
  std::string write_profile;
  int trace_machines = 16;
  visible.add_options()("help,h", "print this help")
      ("scheduler", po::value<std::string>(&scheduler)->default_value("all"),
       "blocking | naive | single-buffer | gemini | all")
      ("json", "print JSON (per scheduler under schedulers.<name>) instead of the table")
      ("trace", po::value<std::string>(&trace),
       "write a Chrome trace-event JSON of the iteration with checkpointing (the scheduler given, or the "
       "scenario's strategy.scheduler with --scheduler all); deepspeed-zero3 and fsdp only (megatron has no task graph)")
      ("trace-machines", po::value<int>(&trace_machines)->default_value(16), "machines shown in the trace")
      ("profile", po::value<std::string>(&profile),
       "take the idle spans and iteration time from a measured profile (docs/profile-format.md) instead of the "
       "model, every engine and layout; a warning gives both times when they differ by more than 10%")
      ("write-profile", po::value<std::string>(&write_profile),
       "write the iteration time and machine 0's idle spans in the profile format (megatron: the spans every "
       "stage shares)")
      ("force", "run even when the estimated memory or flows exceed the limits of docs/limits.md");
  std::string scenario_path;
  const auto parsed = parse_command_options(ctx, visible, "scenario", &scenario_path);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (scenario_path.empty()) throw UsageError("missing SCENARIO (a scenario JSON file)");
  const std::optional<SchedulerId> chosen = find_scheduler(scheduler);
  if (scheduler != "all" && !chosen) {
    throw UsageError(fmt::format("--scheduler expects all or {}, found \"{}\"", scheduler_registry().names_for_error(), scheduler));
  }
  if (trace_machines < 1) throw UsageError(fmt::format("--trace-machines expects at least 1, found {}", trace_machines));

  refuse_output_over_inputs("--trace", trace, {scenario_path, profile});
  refuse_output_over_inputs("--write-profile", write_profile, {scenario_path, profile});
  refuse_outputs_sharing_a_file({{"--trace", trace}, {"--write-profile", write_profile}});
  const Scenario scenario = load_scenario_file(scenario_path);
  if (scenario.training.parallelism == Parallelism::megatron)
    return megatron_iteration(ctx, scenario, vm, chosen, profile, write_profile);
  for (const std::string& output : {trace, write_profile})
    if (!output.empty()) check_output_writable(output);
  enforce_work_limits(estimate_iteration_work(scenario), vm.count("force") > 0);
  std::optional<IterationProfile> imported;
  if (!profile.empty()) imported = load_profile_file(profile, scenario.cluster.machines);
  const IterationStudy study = prepare_iteration_study(scenario, imported);

  const std::vector<SchedulerId> kinds = scheduler_kinds(chosen);
  const SchedulerId traced = chosen.value_or(scenario.strategy.scheduler);
  std::vector<SchedulerRow> rows;
  for (const SchedulerId kind : kinds)
    rows.push_back({name_of(kind), evaluate_scheduler(study, kind, !trace.empty() && kind == traced)});
  // Every scheduler is in `kinds` unless one was chosen, and then it is the traced one.
  const auto traced_row = std::find_if(rows.begin(), rows.end(), [&](const SchedulerRow& r) { return r.name == name_of(traced); });
  const int shown = std::min(trace_machines, scenario.cluster.machines);
  // The trace's limit before either output is written, so a refused trace leaves no file behind.
  if (!trace.empty()) enforce_work_limits({estimate_trace_work(traced_row->outcome, shown)}, vm.count("force") > 0);
  // Both outputs or neither (output_file.hpp): a failed --trace leaves no profile behind.
  std::vector<OutputText> outputs;
  std::string profile_text, trace_text;
  if (!write_profile.empty()) {
    profile_text = profile_to_json(study.model.profile, 0,
                                   fmt::format("{} ({})", study.model.profile.imported ? "imported profile" : "ckptsim iteration model", ctx.command_line))
                       .dump() +
                   '\n';
    outputs.push_back({write_profile, profile_text});
  }
  if (!trace.empty()) {
    trace_text = iteration_trace(study, traced_row->name, traced_row->outcome, shown, ctx.command_line);
    trace_text += '\n';
    outputs.push_back({trace, trace_text});
  }
  write_output_files(outputs);
  std::vector<std::string> warnings = profile_time_warnings(study);
  const std::vector<std::string> unread = unread_field_messages(scenario, UnreadFor::iteration);
  warnings.insert(warnings.end(), unread.begin(), unread.end());
  const BandView band = band_view(scenario, study.modelled_iteration.seconds(), imported.has_value());
  if (vm.count("json")) {
    nlohmann::json doc = iteration_report_json(study, rows, ctx.command_line);
    doc["prediction_band"] = band_json(band);
    add_warnings(doc, warnings);
    ctx.out << doc.dump(2) << '\n';
  } else {
    print_iteration_report(ctx.out, study, rows);
    print_band_line(ctx.out, band);
    print_warning_lines(ctx.out, warnings);
  }
  return 0;
}

}  // namespace ckptsim::cli
