#pragma once
// Chrome trace-event files (Perfetto, chrome://tracing) that ckptsim writes, and the one
// convention they share, so that a predicted iteration (`ckptsim iteration --trace`) and a
// measured replay (`ckptsim-replay --trace`) open side by side and overlay:
//   - one process per machine ("machine M", predicted) or per rank ("rank R", measured);
//   - tracks (thread ids): the engine's streams (0 GPU compute, 1 gather stream, 2 pre-gather
//     stream, 3 reduce stream, 4 NCCL stream (sharding group), 5 NCCL stream (replicate group),
//     6 host waits), then 7 checkpoint chunks sent, 8 GPU-to-CPU copies (received chunks), 9
//     GPU-to-CPU copy (local replica), 10 iterations. A replay runs a plan's all-gathers on its
//     gather stream and its reduce-scatters and all-reduces on its reduce stream, so it draws them
//     on tracks 1 and 3 (DeepSpeed ZeRO-3's streams; FSDP's NCCL stream shows on track 4 predicted);
//   - slices ("X"): a training operation's name (task_slice_name: the category and the engine
//     program's label, "forward L0 QKV", "all-gather L3 phase 0", ...; a plan carries it per
//     operation, so a replay uses the simulator's names), category "cat" = the operation's
//     category, args {flops} or {bytes}; chunks "chunk I (copy C)" with args {bytes, peer, span,
//     sub_buffer}; copies "copy chunk I" with args {bytes, from}; "local replica"; "iteration N"
//     spanning each iteration;
//   - flow events ("s"/"f", category "checkpoint") from a chunk's send to its copy on the
//     receiver, one id per (iteration, sender, chunk);
//   - counter tracks ("C"): "NIC send rate (B/s)" of each process (every transfer's bytes over
//     its duration, summed over the transfers alive) and "receive sub-buffers in use" (from a
//     chunk's arrival to the end of its copy into CPU memory).
// Times are microseconds ("ts", "dur"), as the format wants.
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/plan_file.hpp"
#include "ckptsim/workload/iteration_model.hpp"
#include "ckptsim/workload/task_graph.hpp"

namespace ckptsim {

enum class TraceTrack {
  compute = 0,
  gather,
  pre_gather,
  reduce,
  comm,
  comm_replica,
  host,
  chunks_sent,
  copies_received,
  local_copy,
  iterations
};
inline constexpr int kTraceTracks = 11;

const char* trace_track_name(TraceTrack track);
/// The track of an engine stream.
TraceTrack trace_track(Stream stream);

/// The slice name of task `task` of the iteration workload: its category and the engine
/// program's label ("forward L0 QKV"), collectives with their phase, host waits with their cause.
std::string task_slice_name(const IterationWorkload& workload, int task);
std::string chunk_slice_name(int index, int copy);
std::string copy_slice_name(int index);

/// The events of one trace file, serialized as they are added, so that a trace costs its text and
/// not a JSON tree many times its size (a 20 MB trace took 216 MB as a tree; an out-of-memory
/// error while a tree is alive cannot even be reported, since freeing the tree allocates).
/// The text is exactly what nlohmann::json's dump() gives for
/// {"traceEvents": [...], "displayTimeUnit": "ms", "otherData": other_data}.
class TraceEvents {
 public:
  explicit TraceEvents(const nlohmann::json& other_data);
  void add(const nlohmann::json& event);
  [[nodiscard]] std::size_t size() const { return count_; }
  /// The whole file, without a final newline (the events' text is moved out, not copied).
  [[nodiscard]] std::string finish() &&;

 private:
  std::string text_;
  std::size_t count_ = 0;
};

/// Serialized bytes per event that trace size estimates assume: the largest events, slices with
/// their arguments, take up to about 190 (GPT-2 100B's trace averages 144 over every kind).
inline constexpr double kTraceEventBytes = 192;

/// Appends the process and track names of one process.
void add_trace_process(TraceEvents& events, int pid, const std::string& name);

/// A complete slice; seconds in, microseconds out.
nlohmann::json trace_slice(int pid, TraceTrack track, const std::string& name, const std::string& category, double start_s,
                           double end_s, nlohmann::json args);

/// The two ends of a flow arrow (inside the slices they start and end in).
void add_trace_flow(TraceEvents& events, long long id, int from_pid, TraceTrack from_track, double from_s, int to_pid,
                    TraceTrack to_track, double to_s);

/// A counter track from intervals [start, end) each adding `value` while alive: one "C" event
/// per change of the sum.
void add_trace_counter(TraceEvents& events, int pid, const std::string& name,
                       const std::vector<std::pair<std::pair<double, double>, double>>& intervals);

/// The measured timeline of a replay of `plan` as a trace file's text (iterations laid end to end
/// on each rank).
std::string measured_trace(const PlanFile& plan, const MeasuredTimeline& timeline);

}  // namespace ckptsim
