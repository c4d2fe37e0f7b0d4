#pragma once
// Reading PyTorch profiler (Kineto) traces: the Chrome trace-event JSON that torch.profiler
// writes (export_chrome_trace, tensorboard_trace_handler; plain or gzip), one file per rank, as
// the measured network idle spans of each training step and the GPU time per kernel class.
//
// What is read:
//   - steps: "ProfilerStep#N" CPU annotations (cat user_annotation), on the host's clock;
//   - GPU work: categories kernel, gpu_memcpy, gpu_memset (phase "X");
//   - launches: each GPU event's runtime call (cat cuda_runtime or cuda_driver: cudaLaunchKernel,
//     cudaMemcpyAsync, ... and on ROCm hipLaunchKernel, hipExtModuleLaunchKernel, ...) of the
//     same args.correlation, else the start of Kineto's launch flow (phase "s", cat "ac2g") of
//     that id, else, for a GPU event without a correlation arg, the flow whose end (phase "f")
//     sits where the event starts (same pid, tid, ts);
//   - NCCL / RCCL kernels (kernel_classes.hpp): the network is busy while any runs.
// Steps on the GPU's clock (the host may run steps ahead of the GPU, so its annotations do not
// bound the GPU work they launch):
//   - a GPU event belongs to the step whose annotation holds its launch (an event without a
//     launch record: to the step whose window, below, holds its own start);
//   - step k's window is [g0_k, g0_{k+1}): g0_k = the start of its first GPU event, g0_{k+1} the
//     next step's with GPU work (the GPU's period); the last such step ends at its last GPU
//     event's end (the gap to the next step is not in the trace: a note says so);
//   - a step whose annotation launched no GPU work is left out with a note.
// When no GPU event is linked to a launch, the steps are cut on the host's annotations as
// before (a note says so): an event belongs to the step whose annotation holds its own start,
// and the window is [g0, g0 + the annotation's length).
// Per step, with g0 its window's start and T its length (the step's iteration time):
//   idle spans = the gaps of [0, T) (times from g0) not covered by an NCCL kernel, whichever
//                step launched it (the GPU's timeline), shorter ones than `min_span_s` left out;
//   classes    = GPU seconds and event count per kernel class of the step's events;
//   collectives = each NCCL kernel's collective, duration, group size, and bytes when the trace
//                records them ("In msg nelems", "Out msg nelems", "dtype": S = max(in, out) x
//                the type's size);
//   copies     = each memcpy's direction, bytes and duration.
// The rank is distributedInfo.rank, else the file's position.
//
// Errors (InputError, file and JSON pointer): not a trace-event document; no ProfilerStep
// annotation ("profile with torch.profiler.schedule and call prof.step()"); no GPU event at all
// (a CPU-only trace); no step with GPU work; steps whose GPU work starts out of order; kernels
// but no collective among them (a job without collectives has no network idle spans: the
// kernel classes found are listed); events with non-finite or negative times.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim {

struct ProfiledCollective {
  std::string collective;  ///< "allreduce", "allgather", ... (kernel_classes.hpp)
  double seconds = 0;
  double bytes = 0;        ///< 0 when the trace does not record sizes
  int group_size = 0;      ///< 0 when unknown
  int machines = 0;        ///< ceil(group size / GPUs per machine) when both are known, else 0
};

struct ProfiledCopy {
  std::string direction;  ///< "DtoH", "HtoD", "DtoD", "other"
  double bytes = 0;
  double seconds = 0;
};

struct ClassTime {
  std::size_t count = 0;
  double seconds = 0;
};

struct ProfiledStep {
  int step = 0;                 ///< N of ProfilerStep#N
  double iteration_time_s = 0;  ///< the annotation's length
  double gpu_start_s = 0;       ///< g0, from the trace's time origin
  std::vector<std::pair<double, double>> idle_spans;  ///< [start from g0, length]
  double network_busy_s = 0;    ///< union of the NCCL kernels within [0, T)
  std::map<std::string, ClassTime> classes;
  std::vector<ProfiledCollective> collectives;
  std::vector<ProfiledCopy> copies;
  /// The engine's hooks on the host that started in the step's host window (ProfilerStep#N's own
  /// annotation): FSDP's record_function ranges around its pre/post forward and backward hooks,
  /// FullyShardedDataParallel._pre_forward, ._post_forward, ._pre_backward_hook and
  /// ._post_backward_hook (FSDP1, torch/distributed/fsdp/_runtime_utils.py) and FSDP::pre_forward,
  /// FSDP::post_forward, FSDP::pre_backward and FSDP::post_backward, each followed by " (fqn)"
  /// (FSDP2, fully_shard's _fsdp_state.py and _fsdp_param_group.py); nested ranges (all-gathers,
  /// prefetches inside a hook) are not counted again. Their calls and host time: what
  /// training.hook_host_time models per call (docs/models.md, "Engine hooks on the host").
  int hook_calls = 0;
  double hook_host_s = 0;
};

struct ProfiledRank {
  std::string file;
  int rank = 0;
  int world_size = 0;  ///< 0 when the trace does not say
  std::vector<ProfiledStep> steps;
  bool host_windows = false;        ///< steps cut on the host's annotations (no GPU event linked to its launch)
  std::vector<std::string> notes;   ///< what was left out or assumed, for the user
};

struct TorchProfilerOptions {
  double min_span_s = 0;
  std::optional<std::pair<int, int>> steps;  ///< keep ProfilerStep#A..#B only
  std::optional<int> gpus_per_machine;       ///< gives each collective its machine count
};

/// Whether parse_torch_profiler may read `event` (an element of traceEvents): a ProfilerStep
/// annotation, a runtime call, a GPU event, an ac2g flow or an engine hook's range
/// (ProfiledStep::hook_calls). The others (cpu_op, python_function,
/// ... often most of a trace) need not be held: `parse_json_strict(text, file,
/// {"traceEvents", torch_profiler_reads})` replaces them by null while parsing
/// (core/input_file.hpp), which gives the same ProfiledRank with a fraction of the memory.
bool torch_profiler_reads(const nlohmann::json& event);

/// One rank's trace (`position`: its place among the files, the rank when the trace names none).
ProfiledRank parse_torch_profiler(const nlohmann::json& doc, const std::string& file, int position, const TorchProfilerOptions& options);

/// An engine hook's record_function range by its name (ProfiledStep::hook_calls).
bool engine_hook_range(std::string_view name);

/// The engine hooks of every step of the ranks: calls, steps and host seconds in all; the mean
/// per call is what training.hook_host_time models.
struct HookHostTime {
  long long calls = 0;
  long long steps = 0;
  double host_s = 0;
  [[nodiscard]] double per_call_s() const { return calls > 0 ? host_s / static_cast<double>(calls) : 0.0; }
  [[nodiscard]] double calls_per_step() const { return steps > 0 ? static_cast<double>(calls) / static_cast<double>(steps) : 0.0; }
};
HookHostTime hook_host_time(const std::vector<ProfiledRank>& ranks);

/// The measured idle-span profile (docs/profile-format.md) of the ranks' steps: one iteration per
/// (rank, step), in order. The format's span k must be the same gap in every iteration: when the
/// steps have different numbers of spans, the spans are matched to those of the step with the
/// fewest (the reference) by their overlap, times from each step's start: per step, the
/// order-preserving matching with the largest total overlap (dynamic programming); a reference
/// span is kept when every step has a span overlapping it, and each step then lists its matched
/// spans; the others are dropped, and `notes` (when given) says how many per step and how long.
/// Throws InputError, listing the counts, when no span matches in every step or the steps hold
/// too many spans to match (more than 5e7 pairs).
nlohmann::json idle_span_profile(const std::vector<ProfiledRank>& ranks, const std::string& source, std::vector<std::string>* notes = nullptr);

/// The kernel-class document (`ckptsim-kernels/1`, docs/profile-format.md): per rank and step
/// the iteration time, network busy time, classes, collectives (with their machine count, null
/// when unknown) and copies.
nlohmann::json kernel_classes_document(const std::vector<ProfiledRank>& ranks);

/// Reads a kernel-class document back (every field checked; InputError with its pointer). The
/// steps' idle spans are not in it (they are in the profile).
std::vector<ProfiledRank> parse_kernel_classes_document(const nlohmann::json& doc, const std::string& file);

}  // namespace ckptsim
