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

/// Chrome trace-event JSON in the convention of output/trace_events.hpp (shared with
/// ckptsim-replay --trace): one process per machine shown, one track per engine stream, the
/// checkpoint chunks (args peer, span, sub-buffer), GPU-to-CPU copies, flows from each chunk's
/// send to its copy, and counters for NIC send rate and receive sub-buffers in use.
nlohmann::json iteration_trace_json(const IterationStudy& study, const std::string& scheduler, const SchedulerOutcome& outcome,
                                    int machines_shown, const std::string& command_line);

}  // namespace ckptsim
