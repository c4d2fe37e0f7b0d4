// ckptsim iteration: one ZeRO-3 training iteration on the flow-level network, its idle spans,
// and what each checkpoint traffic scheduler costs (table, JSON, Chrome trace).
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
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

struct Row {
  std::string name;
  SchedulerOutcome outcome;
};

double slowdown(const IterationStudy& study, const SchedulerOutcome& o) {
  return o.iteration_time_with_checkpoint.seconds() / study.training_iteration.seconds() - 1.0;
}

nlohmann::json scheduler_json(const IterationStudy& study, const SchedulerOutcome& o) {
  return {
      {"iteration_time_s", study.training_iteration.seconds()},
      {"iteration_time_with_checkpoint_s", o.iteration_time_with_checkpoint.seconds()},
      {"slowdown", slowdown(study, o)},
      {"idle_time_s", study.model.profile.idle_time(0).seconds()},
      {"checkpoint_time_s", o.checkpoint_time.seconds()},
      {"gpu_buffer_bytes", o.gpu_buffer_bytes},
      {"peak_gpu_buffer_bytes", o.peak_buffer_bytes},
      {"oom", o.oom},
      {"fits_in_one_iteration", o.fits_in_one_iteration},
      {"min_every_iterations", o.min_every_iterations},
      {"chunks_per_rank", o.plan.chunks.size()},
      {"leftover_bytes", o.plan.leftover_bytes},
  };
}

// A compute task's submodule (zero3.hpp: module 0 the tied embedding, then 4 per layer).
std::string module_name(const Task& task) {
  if (task.phase == 0) return "embedding/output";
  static const char* const parts[4] = {"QKV", "O", "FC1", "FC2"};
  return fmt::format("L{} {}", task.layer, parts[(task.phase - 1) % 4]);
}

// Chrome trace-event format ("X" complete events, microseconds; Perfetto and chrome://tracing
// load it). One process per machine; threads: the GPUs' compute stream, the NIC's all-gather
// and reduce-scatter streams, checkpoint chunks sent, GPU-to-CPU copies of received chunks and
// the local replica's copy. Every rank runs the same program, so each machine shows the same
// tasks (one row stands for its 8 GPUs).
nlohmann::json trace_json(const IterationStudy& study, const std::string& scheduler, const CheckpointRun& run,
                          int machines_shown, const std::string& command_line) {
  auto events = nlohmann::json::array();
  const int tracks = 6;
  const char* track_names[tracks] = {"GPU compute (every GPU)", "all-gather", "reduce-scatter", "checkpoint chunks sent",
                                     "GPU-to-CPU copies (received chunks)", "GPU-to-CPU copy (local replica)"};
  auto track_of = [](TaskCategory c) {
    switch (c) {
      case TaskCategory::forward:
      case TaskCategory::recompute:
      case TaskCategory::backward:
      case TaskCategory::boundary:
      case TaskCategory::optimizer: return 0;
      case TaskCategory::all_gather: return 1;
      case TaskCategory::reduce_scatter: return 2;
      case TaskCategory::checkpoint_send: return 3;
      case TaskCategory::checkpoint_copy: return 4;
      case TaskCategory::local_copy: return 5;
      case TaskCategory::marker: return -1;
    }
    return -1;
  };
  for (int m = 0; m < machines_shown; ++m) {
    events.push_back({{"ph", "M"}, {"pid", m}, {"name", "process_name"}, {"args", {{"name", fmt::format("machine {}", m)}}}});
    for (int t = 0; t < tracks; ++t) {
      events.push_back({{"ph", "M"}, {"pid", m}, {"tid", t}, {"name", "thread_name"}, {"args", {{"name", track_names[t]}}}});
    }
  }
  const auto& tasks = run.graph.tasks();
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& task = tasks[i];
    const int track = track_of(task.category);
    if (track < 0) continue;
    const TaskTiming& t = run.run.timing[i];
    std::string name;
    switch (task.category) {
      case TaskCategory::forward:
      case TaskCategory::recompute:
      case TaskCategory::backward: name = fmt::format("{} {}", to_string(task.category), module_name(task)); break;
      case TaskCategory::boundary: name = "overflow check + gradient norm"; break;
      case TaskCategory::optimizer: name = "optimizer step"; break;
      case TaskCategory::all_gather: name = fmt::format("all-gather group {} phase {}", task.layer, task.phase); break;
      case TaskCategory::reduce_scatter: name = fmt::format("reduce-scatter bucket {} phase {}", task.layer, task.phase); break;
      case TaskCategory::checkpoint_send: name = fmt::format("chunk {} (copy {})", task.layer, task.phase); break;
      case TaskCategory::checkpoint_copy: name = fmt::format("copy chunk {}", task.layer); break;
      case TaskCategory::local_copy: name = "local replica"; break;
      case TaskCategory::marker: break;
    }
    nlohmann::json args = {{"bytes", task.bytes}};
    if (task.kind == TaskKind::compute) args = {{"flops", task.flops}};
    const double ts = static_cast<double>(t.ready.ns()) / 1000.0;
    const double dur = static_cast<double>((t.end - t.ready).ns()) / 1000.0;
    for (int m = 0; m < machines_shown; ++m) {
      events.push_back({{"ph", "X"}, {"pid", m}, {"tid", track}, {"name", name}, {"cat", to_string(task.category)},
                        {"ts", ts}, {"dur", dur}, {"args", args}});
    }
  }
  nlohmann::json doc;
  doc["traceEvents"] = std::move(events);
  doc["displayTimeUnit"] = "ms";
  doc["otherData"] = {{"scheduler", scheduler},
                      {"machines", study.scenario.cluster.machines},
                      {"machines_shown", machines_shown},
                      {"manifest", make_manifest(study.scenario, command_line)}};
  return doc;
}

void write_file(const std::string& path, const nlohmann::json& doc) { write_output_file(path, doc.dump() + '\n'); }

std::string span_histogram_text(const SpanDistribution& d) {
  static const char* const labels[] = {"<1ms", "1-10ms", "10-100ms", "0.1-1s", ">=1s"};
  std::string text;
  for (std::size_t b = 0; b < d.histogram.size(); ++b) {
    text += fmt::format("{}{} {}", b == 0 ? "" : ", ", labels[b], d.histogram[b]);
  }
  return text;
}

// One column per phase: a term's bytes where it is allocated, "-" elsewhere; the peak phase's
// total is what the model uses.
void print_gpu_memory(std::ostream& out, const GpuMemory& m) {
  out << fmt::format("  GPU memory per GPU: {} of {} used by the model at its peak ({}), {} free\n",
                     format_bytes(m.used()), format_bytes(m.capacity), name_of(m.peak_phase()),
                     m.free() < 0 ? "none (does not fit)" : format_bytes(m.free()));
  out << fmt::format("    {:<34}", "term");
  for (MemoryPhase p : kMemoryPhases) out << fmt::format(" {:>15}", name_of(p));
  out << "\n";
  for (const GpuMemoryTerm& term : m.terms) {
    out << fmt::format("    {:<34}", term.name);
    for (MemoryPhase p : kMemoryPhases) out << fmt::format(" {:>15}", term.in(p) ? format_bytes(term.bytes) : "-");
    out << "\n";
  }
  out << fmt::format("    {:<34}", "total");
  for (MemoryPhase p : kMemoryPhases) out << fmt::format(" {:>15}", format_bytes(m.used_in(p)));
  out << "\n";
}

void print_iteration_summary(std::ostream& out, const IterationStudy& study) {
  const SpanDistribution d = span_distribution(study.input.spans);
  out << fmt::format("  iteration time {:.3f} s; network idle {:.3f} s in {} spans (longest {:.1f} ms)\n",
                     study.training_iteration.seconds(), study.model.profile.idle_time(0).seconds(), d.count,
                     d.longest.seconds() * 1e3);
  out << fmt::format("  idle spans by length: {}\n", span_histogram_text(d));
  if (study.model.profile.imported) return;
  const IterationBreakdown b = breakdown(study.model);
  const double t = study.training_iteration.seconds();
  out << fmt::format("  limited by {}: compute {:.3f} s ({:.1f}%), exposed communication {:.3f} s ({:.1f}%), "
                     "boundary {:.1f} ms, optimizer step {:.1f} ms; network busy {:.3f} s\n",
                     b.limit(), b.compute.seconds(), 100 * b.compute.seconds() / t, b.exposed_communication.seconds(),
                     100 * b.exposed_communication.seconds() / t, b.boundary.seconds() * 1e3, b.optimizer.seconds() * 1e3,
                     b.network_busy.seconds());
  print_gpu_memory(out, study.model.memory);
}

// The table of print_gpu_memory as JSON: each phase's total and each term's phases.
nlohmann::json gpu_memory_json(const GpuMemory& m) {
  nlohmann::json phases = nlohmann::json::object();
  for (MemoryPhase p : kMemoryPhases) phases[name_of(p)] = m.used_in(p);
  nlohmann::json terms = nlohmann::json::array();
  for (const GpuMemoryTerm& t : m.terms) {
    nlohmann::json in = nlohmann::json::array();
    for (MemoryPhase p : kMemoryPhases) {
      if (t.in(p)) in.push_back(name_of(p));
    }
    terms.push_back({{"term", t.name}, {"bytes", t.bytes}, {"phases", in}});
  }
  return {{"capacity_bytes", m.capacity},
          {"used_bytes", m.used()},
          {"free_bytes", m.free()},
          {"peak_phase", name_of(m.peak_phase())},
          {"phase_bytes", phases},
          {"terms", terms}};
}

nlohmann::json iteration_detail_json(const IterationStudy& study) {
  const SpanDistribution d = span_distribution(study.input.spans);
  nlohmann::json histogram = nlohmann::json::array();
  const auto& bounds = SpanDistribution::bucket_upper_bounds();
  for (std::size_t b = 0; b < d.histogram.size(); ++b) {
    histogram.push_back({{"below_s", b < bounds.size() ? nlohmann::json(bounds[b].seconds()) : nlohmann::json(nullptr)},
                         {"count", d.histogram[b]}});
  }
  nlohmann::json doc;
  doc["idle_span_distribution"] = {{"count", d.count}, {"total_s", d.total.seconds()}, {"longest_s", d.longest.seconds()},
                                   {"histogram", histogram}};
  if (study.model.profile.imported) return doc;
  const IterationBreakdown b = breakdown(study.model);
  doc["breakdown"] = {{"limited_by", b.limit()},
                      {"compute_s", b.compute.seconds()},
                      {"exposed_communication_s", b.exposed_communication.seconds()},
                      {"boundary_s", b.boundary.seconds()},
                      {"optimizer_step_s", b.optimizer.seconds()},
                      {"network_busy_s", b.network_busy.seconds()}};
  doc["gpu_memory"] = gpu_memory_json(study.model.memory);
  return doc;
}

void print_table(std::ostream& out, const IterationStudy& study, const std::vector<Row>& rows) {
  const Scenario& sc = study.scenario;
  out << fmt::format("iteration model: {} — {} machines x {} GPUs, {} layers, {} collectives{}\n", sc.name,
                     sc.cluster.machines, sc.cluster.gpus_per_machine, sc.model.layers, sc.cluster.network.collective,
                     study.model.profile.imported ? " (idle spans imported from a measured profile)" : "");
  print_iteration_summary(out, study);
  out << fmt::format("  checkpoint shard {} per GPU, {} remote cop{}, GPU memory free after the model {}\n\n",
                     format_bytes(study.input.shard_bytes), study.input.copies, study.input.copies == 1 ? "y" : "ies",
                     format_bytes(std::max(0.0, study.free_gpu_memory)));
  out << fmt::format("{:<14} {:>11} {:>11} {:>9} {:>10} {:>11} {:>11} {:>4} {:>6}\n", "scheduler", "iter (s)", "w/ ckpt (s)",
                     "slowdown", "idle (s)", "ckpt (s)", "GPU buffer", "OOM", "min k");
  for (const Row& r : rows) {
    const SchedulerOutcome& o = r.outcome;
    out << fmt::format("{:<14} {:>11.3f} {:>11.3f} {:>8.2f}% {:>10.3f} {:>11.3f} {:>11} {:>4} {:>6}\n", r.name,
                       study.training_iteration.seconds(), o.iteration_time_with_checkpoint.seconds(),
                       100.0 * slowdown(study, o), study.model.profile.idle_time(0).seconds(), o.checkpoint_time.seconds(),
                       format_bytes(o.gpu_buffer_bytes), o.oom ? "yes" : "no",
                       o.min_every_iterations > kMinEverySearchLimit ? std::string("never")
                                                                     : std::to_string(o.min_every_iterations));
  }
  for (const Row& r : rows) {
    if (r.name == "blocking" || r.outcome.fits_in_one_iteration) continue;
    // min_every_iterations returns limit + 1 (100001) when no k up to the limit hides it.
    const bool never = r.outcome.min_every_iterations > kMinEverySearchLimit;
    out << fmt::format("\n{}: the checkpoint does not fit in one iteration's idle time ({} left after the last span); "
                       "{}\n",
                       r.name, format_bytes(r.outcome.plan.leftover_bytes),
                       never ? fmt::format("no k up to {} hides it (the idle spans cannot carry it)", kMinEverySearchLimit)
                             : fmt::format("checkpointing every {} iterations hides it", r.outcome.min_every_iterations));
  }
}

}  // namespace

int command_iteration(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim iteration SCENARIO [options]\n\n"
      "Simulates one ZeRO-3 training iteration of the scenario on a flow-level network (max-min fair\n"
      "sharing), finds each machine's network idle spans, then plans one checkpoint with each traffic\n"
      "scheduler and simulates it together with the training traffic. Prints, per scheduler: iteration\n"
      "time without and with checkpointing, slowdown, idle time, checkpoint completion time, GPU buffer\n"
      "needed per GPU, out of memory, and the smallest k (checkpoint every k iterations) that hides it.\n\noptions");
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
       "scenario's strategy.scheduler with --scheduler all)")
      ("trace-machines", po::value<int>(&trace_machines)->default_value(16), "machines shown in the trace")
      ("profile", po::value<std::string>(&profile),
       "take the idle spans from a measured profile (docs/profile-format.md) instead of the model")
      ("write-profile", po::value<std::string>(&write_profile),
       "write the iteration time and machine 0's idle spans in the profile format")
      ("force", "run even when the estimated memory or flows exceed the limits of docs/limits.md");
  std::string scenario_path;
  const auto parsed = parse_command_options(ctx, visible, "scenario", &scenario_path);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (scenario_path.empty()) throw UsageError("missing SCENARIO (a scenario JSON file)");
  const std::optional<SchedulerKind> chosen = parse_name<SchedulerKind>(scheduler);
  if (scheduler != "all" && !chosen) {
    throw UsageError(fmt::format("--scheduler expects all or {}, found \"{}\"", scheduler_registry().names_for_error(), scheduler));
  }
  if (trace_machines < 1) throw UsageError(fmt::format("--trace-machines expects at least 1, found {}", trace_machines));

  refuse_output_over_inputs("--trace", trace, {scenario_path, profile});
  refuse_output_over_inputs("--write-profile", write_profile, {scenario_path, profile});
  refuse_outputs_sharing_a_file({{"--trace", trace}, {"--write-profile", write_profile}});
  const Scenario scenario = load_scenario_file(scenario_path);
  enforce_work_limits(estimate_iteration_work(scenario), vm.count("force") > 0);
  std::optional<IterationProfile> imported;
  if (!profile.empty()) imported = load_profile_file(profile, scenario.cluster.machines);
  const IterationStudy study = prepare_iteration_study(scenario, imported);

  if (!write_profile.empty()) {
    write_file(write_profile, profile_to_json(study.model.profile, 0,
                                              fmt::format("{} ({})", study.model.profile.imported ? "imported profile" : "ckptsim iteration model", ctx.command_line)));
  }

  std::vector<SchedulerKind> kinds;
  if (chosen) {
    kinds.push_back(*chosen);
  } else {
    for (const auto& e : EnumNames<SchedulerKind>::table) kinds.push_back(e.value);
  }
  const SchedulerKind traced = chosen.value_or(scenario.strategy.scheduler);
  std::vector<Row> rows;
  for (const SchedulerKind kind : kinds)
    rows.push_back({std::string(name_of(kind)), evaluate_scheduler(study, kind, !trace.empty() && kind == traced)});
  if (!trace.empty()) {
    // Every scheduler is in `kinds` unless one was chosen, and then it is the traced one.
    auto it = std::find_if(rows.begin(), rows.end(), [&](const Row& r) { return r.name == name_of(traced); });
    const int shown = std::min(trace_machines, scenario.cluster.machines);
    write_file(trace, trace_json(study, it->name, *it->outcome.run, shown, ctx.command_line));
  }

  if (vm.count("json")) {
    nlohmann::json doc;
    doc["manifest"] = make_manifest(scenario, ctx.command_line);
    doc["scenario"] = scenario.name;
    doc["iteration_time_s"] = study.training_iteration.seconds();
    doc["idle_time_s"] = study.model.profile.idle_time(0).seconds();
    doc["idle_spans"] = study.input.spans.size();
    doc["profile"] = study.model.profile.imported ? "imported" : "simulated";
    doc["shard_bytes_per_gpu"] = study.input.shard_bytes;
    doc["remote_copies"] = study.input.copies;
    doc["free_gpu_memory_bytes"] = study.free_gpu_memory;
    doc.update(iteration_detail_json(study));
    doc["schedulers"] = nlohmann::json::object();
    for (const Row& r : rows) doc["schedulers"][r.name] = scheduler_json(study, r.outcome);
    ctx.out << doc.dump(2) << '\n';
  } else {
    print_table(ctx.out, study, rows);
  }
  return 0;
}

}  // namespace ckptsim::cli
