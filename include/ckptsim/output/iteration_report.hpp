#pragma once
// Writers for `ckptsim iteration` results: the readable report, the JSON document and the
// Chrome trace-event file. They only read the iteration study (checkpoint/iteration_study.hpp)
// and its breakdown (workload/iteration_analysis.hpp); the cli decides where output goes.
//
// Report contents: the iteration time; time per phase on the compute stream (forward,
// recomputed forward, backward, boundary, optimizer step) and exposed time per cause
// (on-demand gather, in-flight limit, host sync, bandwidth), which add up to the iteration
// time; the idle-span histogram in both views (the profiler's, which the schedulers plan into,
// and network-silent time) with the longest span of each; the GPU memory per term and phase;
// then one row per scheduler.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/core/work_limits.hpp"

namespace ckptsim {

struct SchedulerRow {
  std::string name;
  SchedulerOutcome outcome;
};

void print_iteration_report(std::ostream& out, const IterationStudy& study, const std::vector<SchedulerRow>& rows);

/// {"manifest", "scenario", "engine", "iteration_time_s", "phases_s", "exposed_s", "idle_spans"
/// {"profiler", "network_silent"}, "gpu_memory", "schedulers" {name: {...}}, ...}.
nlohmann::json iteration_report_json(const IterationStudy& study, const std::vector<SchedulerRow>& rows,
                                     const std::string& command_line);

/// One span view as JSON: {count, total_s, longest_s, histogram [{below_s, count}]}.
nlohmann::json span_distribution_json(const std::vector<IdleSpan>& spans);

/// Chrome trace-event JSON (the file's text) in the convention of output/trace_events.hpp (shared
/// with ckptsim-replay --trace): one process per machine shown, one track per engine stream, the
/// checkpoint chunks (args peer, span, sub-buffer), GPU-to-CPU copies, flows from each chunk's
/// send to its copy, and counters for NIC send rate and receive sub-buffers in use.
std::string iteration_trace(const IterationStudy& study, const std::string& scheduler, const SchedulerOutcome& outcome,
                            int machines_shown, const std::string& command_line);

/// The text iteration_trace will hold, from above: per machine shown, its process and track names
/// and iteration slice (13 events), a slice per task of the traced run, two NIC counter changes
/// per transfer, a flow pair and two sub-buffer counter changes per checkpoint chunk, at
/// kTraceEventBytes each. Checked against the memory limit before the trace is built
/// (docs/limits.md; `--trace-machines` is the factor a user sets).
WorkEstimate estimate_trace_work(const SchedulerOutcome& outcome, int machines_shown);

}  // namespace ckptsim
