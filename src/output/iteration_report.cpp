#include "ckptsim/output/iteration_report.hpp"
#include "ckptsim/output/numbers.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>

#include "ckptsim/checkpoint/checkpoint_run.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/trace_events.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/workload/iteration_analysis.hpp"

namespace ckptsim {

namespace {

double slowdown(const IterationStudy& study, const SchedulerOutcome& o) {
  return o.iteration_time_with_checkpoint.seconds() / study.training_iteration.seconds() - 1.0;
}

// "forward", "reduce-scatter" -> JSON keys "forward", "reduce_scatter".
std::string key_of(std::string name) {
  std::replace(name.begin(), name.end(), '-', '_');
  std::replace(name.begin(), name.end(), ' ', '_');
  return name;
}

std::string span_histogram_text(const SpanDistribution& d) {
  static const char* const labels[] = {"<1ms", "1-10ms", "10-100ms", "0.1-1s", ">=1s"};
  std::string text;
  for (std::size_t b = 0; b < d.histogram.size(); ++b) text += fmt::format("{}{} {}", b == 0 ? "" : ", ", labels[b], d.histogram[b]);
  return text;
}

std::string time_text(SimTime t) {
  return t >= seconds(1) ? fmt::format("{:.3f} s", t.seconds()) : fmt::format("{:.1f} ms", t.seconds() * 1e3);
}

void print_spans(std::ostream& out, std::string_view view, const std::vector<IdleSpan>& spans) {
  const SpanDistribution d = span_distribution(spans);
  out << fmt::format("  {}: {} idle in {} spans, longest {}; by length: {}\n", view, time_text(d.total), d.count,
                     time_text(d.longest), span_histogram_text(d));
}

// One column per phase: a term's bytes where it is allocated, "-" elsewhere; the peak phase's
// total is what the model uses.
void print_gpu_memory(std::ostream& out, const GpuMemory& m) {
  out << fmt::format("  GPU memory per GPU: {} of {} used by the model at its peak ({}), {} free\n",
                     format_bytes(m.used()), format_bytes(m.capacity), name_of(m.peak_phase()),
                     m.free() < 0 ? "none (does not fit)" : format_bytes(m.free()));
  out << fmt::format("    {:<44}", "term");
  for (MemoryPhase p : kMemoryPhases) out << fmt::format(" {:>15}", name_of(p));
  out << "\n";
  for (const GpuMemoryTerm& term : m.terms) {
    out << fmt::format("    {:<44}", term.name);
    for (MemoryPhase p : kMemoryPhases) out << fmt::format(" {:>15}", term.in(p) ? format_bytes(term.bytes_in(p)) : "-");
    out << "\n";
  }
  out << fmt::format("    {:<44}", "total");
  for (MemoryPhase p : kMemoryPhases) out << fmt::format(" {:>15}", format_bytes(m.used_in(p)));
  out << "\n";
}

void print_breakdown(std::ostream& out, const IterationStudy& study) {
  const IterationBreakdown b = breakdown(study.model);
  std::string phases;
  for (const PhaseTime& p : b.phases) phases += fmt::format("{}{} {}", phases.empty() ? "" : ", ", to_string(p.category), time_text(p.time));
  out << fmt::format("  time per phase (compute stream): {}; compute {}\n", phases, time_text(b.compute()));
  std::string causes;
  for (std::size_t i = 0; i < kExposureCauses.size(); ++i) {
    causes += fmt::format("{}{} {}", i == 0 ? "" : ", ", name_of(kExposureCauses[i]), time_text(b.exposed[i]));
  }
  out << fmt::format("  exposed (compute waiting) by cause: {}; total {}\n", causes, time_text(b.exposed_total()));
}

nlohmann::json gpu_memory_json(const GpuMemory& m) {
  nlohmann::json phases = nlohmann::json::object();
  for (MemoryPhase p : kMemoryPhases) phases[name_of(p)] = m.used_in(p);
  nlohmann::json terms = nlohmann::json::array();
  for (const GpuMemoryTerm& t : m.terms) {
    nlohmann::json by_phase = nlohmann::json::object();
    for (MemoryPhase p : kMemoryPhases) {
      if (t.in(p)) by_phase[name_of(p)] = t.bytes_in(p);
    }
    terms.push_back({{"term", t.name}, {"bytes", by_phase}});
  }
  return {{"capacity_bytes", m.capacity},
          {"used_bytes", m.used()},
          {"free_bytes", m.free()},
          {"peak_phase", name_of(m.peak_phase())},
          {"phase_bytes", phases},
          {"terms", terms}};
}

nlohmann::json scheduler_json(const IterationStudy& study, const SchedulerOutcome& o) {
  return {
      {"iteration_time_s", study.training_iteration.seconds()},
      {"iteration_time_with_checkpoint_s", o.iteration_time_with_checkpoint.seconds()},
      {"slowdown", slowdown(study, o)},
      {"idle_time_s", study.planned_idle_time().seconds()},
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

}  // namespace

nlohmann::json span_distribution_json(const std::vector<IdleSpan>& spans) {
  const SpanDistribution d = span_distribution(spans);
  nlohmann::json histogram = nlohmann::json::array();
  const auto& bounds = SpanDistribution::bucket_upper_bounds();
  for (std::size_t b = 0; b < d.histogram.size(); ++b) {
    histogram.push_back({{"below_s", b < bounds.size() ? nlohmann::json(bounds[b].seconds()) : nlohmann::json(nullptr)},
                         {"count", d.histogram[b]}});
  }
  return {{"count", d.count}, {"total_s", d.total.seconds()}, {"longest_s", d.longest.seconds()}, {"histogram", histogram}};
}

void print_iteration_report(std::ostream& out, const IterationStudy& study, const std::vector<SchedulerRow>& rows) {
  const Scenario& sc = study.scenario;
  const IterationProfile& profile = study.model.profile;
  out << fmt::format("iteration model: {} — {} machines x {} GPUs, {} layers, {} collectives, {}{}\n", sc.name,
                     sc.cluster.machines, sc.cluster.gpus_per_machine, sc.model.layers, name_of(sc.cluster.network.collective),
                     study.model.workload.program.summary, profile.imported ? " (idle spans imported from a measured profile)" : "");
  if (profile.imported)
    out << fmt::format("  iteration time {:.3f} s (measured profile; the model gives {:.3f} s)\n", study.training_iteration.seconds(),
                       study.modelled_iteration.seconds());
  else
    out << fmt::format("  iteration time {:.3f} s\n", study.training_iteration.seconds());
  // Only where the profile leaves time after its last span (docs/profile-format.md).
  const auto& spans = study.input.spans;
  const SimTime tail_from = spans.empty() ? SimTime::zero() : spans.back().start + spans.back().length;
  if (profile.imported && !profile.idle_after_last_span && tail_from < study.training_iteration)
    out << fmt::format("  the {:.3f} s after the last measured span are counted busy (the profile does not state them idle: "
                       "idle_after_last_span)\n",
                       (study.training_iteration - tail_from).seconds());
  if (study.model.has_training_graph()) print_breakdown(out, study);
  print_spans(out, "idle as the profiler sees it (gaps between collectives)", study.input.spans);
  if (!study.span_groups.empty()) {
    // Span groups (checkpoint/iteration_study.hpp): each group plans in its own spans.
    out << fmt::format("  each of the {} span groups (machines that see the same idle spans) plans in its own spans, its "
                       "copies staying inside the group:\n",
                       study.span_groups.size());
    for (std::size_t k = 0; k < study.span_groups.size(); ++k)
      print_spans(out, fmt::format("  group {}", k), study.span_groups[k].input.spans);
  }
  if (!profile.imported && !profile.silent_spans.empty()) print_spans(out, "network-silent (no training bytes on the NIC)", profile.silent_spans.front());
  if (!profile.imported) print_gpu_memory(out, study.model.memory);
  out << fmt::format("  checkpoint shard {} per GPU, {} remote cop{}, GPU memory free after the model {}\n\n",
                     format_bytes(study.input.shard_bytes), study.input.copies, study.input.copies == 1 ? "y" : "ies",
                     format_bytes(std::max(0.0, study.free_gpu_memory)));
  out << fmt::format("{:<14} {:>11} {:>11} {:>9} {:>10} {:>11} {:>11} {:>4} {:>6}\n", "scheduler", "iter (s)", "w/ ckpt (s)",
                     "slowdown", "idle (s)", "ckpt (s)", "GPU buffer", "OOM", "min k");
  // The blocking scheduler stops training to copy (and so may a registered one, where the spans
  // cannot carry its plan): it uses no idle span, so neither the smallest k whose spans would
  // hide its checkpoint ("min k") nor a note about spans applies to it.
  const auto uses_idle_spans = [](const SchedulerRow& r) { return !r.outcome.plan.blocks_training; };
  for (const SchedulerRow& r : rows) {
    const SchedulerOutcome& o = r.outcome;
    // min_every_iterations returns limit + 1 when no k up to the limit hides it.
    const std::string min_k = !uses_idle_spans(r)                          ? std::string("-")
                              : o.min_every_iterations > kMinEverySearchLimit ? std::string("never")
                                                                             : std::to_string(o.min_every_iterations);
    out << fmt::format("{:<14} {:>11.3f} {:>11.3f} {:>8.2f}% {:>10.3f} {:>11.3f} {:>11} {:>4} {:>6}\n", r.name,
                       study.training_iteration.seconds(), o.iteration_time_with_checkpoint.seconds(),
                       100.0 * slowdown(study, o), study.planned_idle_time().seconds(), o.checkpoint_time.seconds(),
                       format_bytes(o.gpu_buffer_bytes), o.oom ? "yes" : "no", min_k);
  }
  // One note per outcome, naming every scheduler it holds for (they usually share it).
  std::vector<std::pair<std::string, std::vector<const SchedulerRow*>>> notes;
  for (const SchedulerRow& r : rows) {
    if (!uses_idle_spans(r) || r.outcome.fits_in_one_iteration) continue;
    const bool never = r.outcome.min_every_iterations > kMinEverySearchLimit;
    std::string outcome = never ? fmt::format("no k up to {} hides it (the idle spans cannot carry it)", kMinEverySearchLimit)
                                : fmt::format("checkpointing every {} iterations hides it", r.outcome.min_every_iterations);
    auto it = std::find_if(notes.begin(), notes.end(), [&](const auto& n) { return n.first == outcome; });
    if (it == notes.end()) it = notes.insert(notes.end(), {std::move(outcome), {}});
    it->second.push_back(&r);
  }
  for (const auto& [outcome, holders] : notes) {
    std::string names, left;
    for (const SchedulerRow* r : holders) {
      names += (names.empty() ? "" : ", ") + r->name;
      left += (left.empty() ? "" : ", ") + format_bytes(r->outcome.plan.leftover_bytes);
    }
    const std::string leftover = holders.size() == 1 ? left + " left after the last span"
                                                     : "left after the last span, in that order: " + left;
    out << fmt::format("\n{}: the checkpoint does not fit in one iteration's idle time ({}); {}\n", names, leftover,
                       outcome);
  }
}

nlohmann::json iteration_report_json(const IterationStudy& study, const std::vector<SchedulerRow>& rows,
                                     const std::string& command_line) {
  const Scenario& sc = study.scenario;
  const IterationProfile& profile = study.model.profile;
  nlohmann::json doc;
  doc["manifest"] = make_manifest(sc, command_line);
  doc["scenario"] = sc.name;
  doc["engine"] = name_of(sc.training.engine);
  doc["parallelism"] = name_of(sc.training.parallelism);
  doc["iteration_time_s"] = study.training_iteration.seconds();
  doc["idle_time_s"] = study.planned_idle_time().seconds();
  doc["idle_spans"] = study.input.spans.size();
  // Span groups planning in their own spans (0: one plan in the spans every machine shares).
  doc["span_groups"] = study.span_groups.size();
  doc["profile"] = profile.imported ? "imported" : "simulated";
  if (profile.imported) {
    doc["modelled_iteration_time_s"] = study.modelled_iteration.seconds();
    doc["idle_after_last_span"] = profile.idle_after_last_span;
  }
  doc["shard_bytes_per_gpu"] = study.input.shard_bytes;
  doc["remote_copies"] = study.input.copies;
  doc["network_bandwidth_bytes_per_s"] = sc.cluster.network_bandwidth;  // B_n, the NIC's line rate per machine
  doc["free_gpu_memory_bytes"] = study.free_gpu_memory;
  doc["idle_span_views"] = {{"profiler", span_distribution_json(study.input.spans)}, {"network_silent", nullptr}};
  if (study.model.has_training_graph()) {
    const IterationBreakdown b = breakdown(study.model);
    nlohmann::json phases = nlohmann::json::object();
    for (const PhaseTime& p : b.phases) phases[key_of(to_string(p.category))] = p.time.seconds();
    nlohmann::json exposed = nlohmann::json::object();
    for (std::size_t i = 0; i < kExposureCauses.size(); ++i) exposed[key_of(name_of(kExposureCauses[i]))] = b.exposed[i].seconds();
    doc["phases_s"] = phases;
    doc["compute_s"] = b.compute().seconds();
    doc["exposed_s"] = exposed;
    doc["exposed_total_s"] = b.exposed_total().seconds();
    doc["silent_time_s"] = profile.silent_time(0).seconds();
    if (!profile.silent_spans.empty()) doc["idle_span_views"]["network_silent"] = span_distribution_json(profile.silent_spans.front());
  }
  if (!profile.imported) doc["gpu_memory"] = gpu_memory_json(study.model.memory);
  doc["schedulers"] = nlohmann::json::object();
  for (const SchedulerRow& r : rows) doc["schedulers"][r.name] = scheduler_json(study, r.outcome);
  return tidy_numbers(std::move(doc));
}

WorkEstimate estimate_trace_work(const SchedulerOutcome& outcome, int machines_shown) {
  double tasks = 0;
  double transfers = 0;
  if (outcome.run) {
    for (const Task& t : outcome.run->graph.tasks()) {
      tasks += 1;
      transfers += t.kind == TaskKind::transfer ? 1 : 0;
    }
  }
  const double chunks = static_cast<double>(outcome.plan.chunks.size());
  const double per_machine = 13 + tasks + 2 * transfers + 4 * chunks;
  return WorkEstimate{"--trace-machines",
                      "the trace (--trace) of the machines shown",
                      static_cast<double>(machines_shown) * per_machine * kTraceEventBytes,
                      kMaxMemoryBytes,
                      WorkUnit::bytes,
                      {},
                      fmt::format("{}", machines_shown)};
}

std::string iteration_trace(const IterationStudy& study, const std::string& scheduler, const SchedulerOutcome& outcome,
                            int machines_shown, const std::string& command_line) {
  const CheckpointRun& run = *outcome.run;
  TraceEvents events({{"source", "predicted"},
                      {"scheduler", scheduler},
                      {"engine", name_of(study.scenario.training.engine)},
                      {"machines", study.scenario.cluster.machines},
                      {"machines_shown", machines_shown},
                      {"manifest", make_manifest(study.scenario, command_line)}});
  for (int m = 0; m < machines_shown; ++m) add_trace_process(events, m, fmt::format("machine {}", m));
  const IterationWorkload& w = study.model.workload;
  const auto peers = ordered_peers(study.placement);
  const auto& tasks = run.graph.tasks();
  const double iteration = run.iteration_time.seconds();
  std::vector<std::vector<std::pair<std::pair<double, double>, double>>> nic(static_cast<std::size_t>(machines_shown)), buffers(nic.size());
  for (int m = 0; m < machines_shown; ++m) {
    events.add(trace_slice(m, TraceTrack::iterations, "iteration 0", "iteration", 0.0, iteration,
                           {{"iteration", 0}, {"checkpoint_time_s", run.checkpoint_time.seconds()}}));
  }
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    const Task& task = tasks[i];
    const TaskTiming& t = run.run.timing[i];
    SimTime from = t.ready;
    TraceTrack track{};
    bool drawn = true;
    std::string name;
    nlohmann::json args = {{"bytes", task.bytes}};
    if (const ProgramOp* op = w.op_for(static_cast<int>(i))) {
      track = trace_track(op->stream);
      name = task_slice_name(w, static_cast<int>(i));
      if (op->kind == ProgramOp::Kind::host_wait) {
        const int prev = w.built.op_stream_prev[static_cast<std::size_t>(w.op_of(static_cast<int>(i)))];
        from = prev >= 0 ? run.run.timing[static_cast<std::size_t>(prev)].end : SimTime::zero();
      }
      if (op->kind == ProgramOp::Kind::compute) args = {{"flops", task.flops}};
      args["cause"] = name_of(op->cause);
    } else {
      switch (task.category) {
        case TaskCategory::checkpoint_send: {
          track = TraceTrack::chunks_sent;
          name = chunk_slice_name(task.layer, task.phase);
          break;
        }
        case TaskCategory::checkpoint_copy: track = TraceTrack::copies_received; name = copy_slice_name(task.layer); break;
        case TaskCategory::local_copy: track = TraceTrack::local_copy; name = "local replica"; break;
        default: drawn = false; break;
      }
    }
    if (!drawn || t.end <= from) continue;  // markers and zero-length waits
    const double start = from.seconds(), end = t.end.seconds();
    for (int m = 0; m < machines_shown; ++m) {
      nlohmann::json a = args;
      if (task.category == TaskCategory::checkpoint_send && task.layer >= 0 &&
          task.layer < static_cast<int>(outcome.plan.chunks.size())) {
        const PlannedChunk& c = outcome.plan.chunks[static_cast<std::size_t>(task.layer)];
        const auto& holders = peers[static_cast<std::size_t>(m)];
        a["peer"] = c.copy < static_cast<int>(holders.size()) ? holders[static_cast<std::size_t>(c.copy)] : -1;
        a["span"] = c.span;
        a["sub_buffer"] = c.sub_buffer;
      }
      events.add(trace_slice(m, track, name, to_string(task.category), start, end, std::move(a)));
      if (task.kind == TaskKind::transfer && end > start && task.category != TaskCategory::checkpoint_copy &&
          task.category != TaskCategory::local_copy && task.category != TaskCategory::copy) {
        nic[static_cast<std::size_t>(m)].push_back({{start, end}, task.bytes / (end - start)});
      }
    }
  }
  // Flows and sub-buffer occupancy: chunk c leaves machine m for its copy-th holder p, whose copy
  // task of chunk c (the same task on every machine) ends it; the sub-buffer is held from the
  // send's end (arrival) to the copy's end.
  for (std::size_t c = 0; c < run.send_tasks.size() && c < run.copy_tasks.size() && c < outcome.plan.chunks.size(); ++c) {
    const TaskTiming& send = run.run.timing[static_cast<std::size_t>(run.send_tasks[c])];
    const TaskTiming& copy = run.run.timing[static_cast<std::size_t>(run.copy_tasks[c])];
    const PlannedChunk& chunk = outcome.plan.chunks[c];
    for (int m = 0; m < machines_shown; ++m) {
      buffers[static_cast<std::size_t>(m)].push_back({{send.end.seconds(), copy.end.seconds()}, 1.0});
      const auto& holders = peers[static_cast<std::size_t>(m)];
      if (chunk.copy >= static_cast<int>(holders.size())) continue;
      const int p = holders[static_cast<std::size_t>(chunk.copy)];
      if (p >= machines_shown) continue;
      add_trace_flow(events, static_cast<long long>(m) * 1048576 + static_cast<long long>(c), m, TraceTrack::chunks_sent,
                     std::max(send.ready.seconds(), send.end.seconds() - 1e-9), p, TraceTrack::copies_received, copy.ready.seconds());
    }
  }
  for (int m = 0; m < machines_shown; ++m) {
    add_trace_counter(events, m, "NIC send rate (B/s)", nic[static_cast<std::size_t>(m)]);
    add_trace_counter(events, m, "receive sub-buffers in use", buffers[static_cast<std::size_t>(m)]);
  }
  return std::move(events).finish();
}

}  // namespace ckptsim
