#pragma once
// Reading PyTorch profiler (Kineto) traces: the Chrome trace-event JSON that torch.profiler
// writes (export_chrome_trace, tensorboard_trace_handler; plain or gzip), one file per rank, as
// the measured network idle spans of each training step and the GPU time per kernel class.
//
// What is read (events of phase "X"):
//   - steps: "ProfilerStep#N" CPU annotations (cat user_annotation); a step's length is its
//     annotation's duration (the training loop's period);
//   - GPU work: categories kernel, gpu_memcpy, gpu_memset, each launched from the CPU by the
//     cuda_runtime event of the same args.correlation; a GPU event belongs to the step whose
//     annotation holds its launch (events without a launch record belong to the step whose
//     annotation holds their own start);
//   - NCCL kernels (kernel_classes.hpp): the network is busy while any runs.
// Per step, with g0 = the start of the step's first GPU event and T = the step's length:
//   idle spans = the gaps of [0, T) (times from g0) not covered by an NCCL kernel, shorter
//                ones than `min_span_s` left out;
//   classes    = GPU seconds and event count per kernel class;
//   collectives = each NCCL kernel's collective, duration, group size, and bytes when the trace
//                records them ("In msg nelems", "Out msg nelems", "dtype": S = max(in, out) x
//                the type's size);
//   copies     = each memcpy's direction, bytes and duration.
// The rank is distributedInfo.rank, else the file's position.
//
// Errors (InputError, file and JSON pointer): not a trace-event document; no ProfilerStep
// annotation ("profile with torch.profiler.schedule and call prof.step()"); a step without GPU
// work; no NCCL kernel in any step (a single-GPU trace: no network to find idle spans of);
// events with non-finite or negative times.
#include <map>
#include <optional>
#include <string>
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
};

struct ProfiledRank {
  std::string file;
  int rank = 0;
  int world_size = 0;  ///< 0 when the trace does not say
  std::vector<ProfiledStep> steps;
};

struct TorchProfilerOptions {
  double min_span_s = 0;
  std::optional<std::pair<int, int>> steps;  ///< keep ProfilerStep#A..#B only
  std::optional<int> gpus_per_machine;       ///< gives each collective its machine count
};

/// One rank's trace (`position`: its place among the files, the rank when the trace names none).
ProfiledRank parse_torch_profiler(const nlohmann::json& doc, const std::string& file, int position, const TorchProfilerOptions& options);

/// The measured idle-span profile (docs/profile-format.md) of the ranks' steps: one iteration per
/// (rank, step), in order. Throws InputError when they do not all have the same number of spans
/// (the format's span k must be the same gap in every iteration), listing the counts.
nlohmann::json idle_span_profile(const std::vector<ProfiledRank>& ranks, const std::string& source);

/// The kernel-class document (`ckptsim-kernels/1`, docs/profile-format.md): per rank and step
/// the iteration time, network busy time, classes, collectives (with their machine count, null
/// when unknown) and copies.
nlohmann::json kernel_classes_document(const std::vector<ProfiledRank>& ranks);

/// Reads a kernel-class document back (every field checked; InputError with its pointer). The
/// steps' idle spans are not in it (they are in the profile).
std::vector<ProfiledRank> parse_kernel_classes_document(const nlohmann::json& doc, const std::string& file);

}  // namespace ckptsim
