#pragma once
// Timed samples from every measurement ckptsim reads, in one vocabulary, for the fits of
// calibrate.hpp. Each sample is one operation that moved `x` bytes (or computed `x` FLOPs) in
// `seconds`, over a group of `ranks` ranks on `nodes` machines, with where it came from.
//
// Sample kinds and what x means (the bytes each rank's stream moves, so that x / t is the
// per-rank link rate that ckptsim's collective model calls the achieved NIC bandwidth; see
// network/collectives.hpp), with the latency steps of the alpha-beta model:
//   all-gather, reduce-scatter   x = (n-1)/n * S       steps n-1     (S: the whole gathered buffer)
//   all-reduce                   x = 2 (n-1)/n * S     steps 2(n-1)  (a ring reduce-scatter + all-gather)
//   all-to-all                   x = (n-1)/n * S       steps n-1
//   p2p                          x = S                 steps 1       (one send, start to last byte)
//   host-copy                    x = S                 -             (GPU to CPU memory; t = x / C)
//   compute                      x = FLOPs             -             (t = x / F)
// These are the bus-bandwidth factors of nccl-tests (doc/PERFORMANCE.md of
// https://github.com/NVIDIA/nccl-tests: busbw = algbw x (n-1)/n for all-gather, reduce-scatter
// and all-to-all, x 2(n-1)/n for all-reduce, x 1 for send/receive).
//
// Readers of ckptsim's own files (`ckptsim-replay --microbench` output, measured timelines)
// turn every entry into a sample or refuse the file: a time or size that is negative, zero where
// it must be positive, or not finite is an InputError naming the file and pointer, never a
// sample silently dropped.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/rate_fit.hpp"
#include "ckptsim/workload/kernels.hpp"

namespace ckptsim {

enum class SampleKind { all_gather, reduce_scatter, all_reduce, all_to_all, p2p, host_copy, compute };

struct SampleKindInfo {
  SampleKind kind;
  std::string_view name;      ///< as in files and reports: "all-gather", ...
  RateModel model;
  std::string_view rate_unit;  ///< "B/s" or "FLOP/s"
  double bus_factor_times_n;   ///< x = S * factor(n): (n-1)/n -> 1 (times (n-1)/n), 2(n-1)/n -> 2, S -> 0
  double steps_per_rank;       ///< latency steps = steps_per_rank * (n-1), or 1 when 0
};

const std::vector<SampleKindInfo>& sample_kinds();
const SampleKindInfo& sample_kind_info(SampleKind kind);
std::optional<SampleKind> parse_sample_kind(std::string_view name);

/// x for S bytes of a collective over n ranks (see above).
double bus_bytes(SampleKind kind, double total_bytes, int ranks);
/// Latency steps of one sample over n ranks (1 for p2p; 0 for the proportional kinds).
double latency_steps(SampleKind kind, int ranks);

struct Measurement {
  SampleKind kind = SampleKind::compute;
  double x = 0;
  double seconds = 0;
  int ranks = 1;  ///< ranks taking part (the group)
  int nodes = 1;  ///< machines they span
  std::string origin;
  /// The operation's size as its source states it (nccl-tests' size column S, a microbenchmark's
  /// or timeline's bytes), for the size ranges fits are restricted to and valid on; 0 when the
  /// sample has none (compute).
  double size_bytes = 0;
};

/// GPU seconds of one kernel-model class in one profiled step (kernel_classes.hpp).
struct ClassSample {
  KernelClass cls = KernelClass::gemm;
  double seconds = 0;
  std::string origin;
};

struct MeasurementSet {
  std::vector<Measurement> samples;
  std::vector<ClassSample> class_samples;  ///< from kernel-class documents: the kernel model's classes per step
  std::optional<double> paced_rate;  ///< bytes/s each rank's sends were paced to (the emulated link), when any
  /// Measured on emulated devices (ckptsim-replay's mpi backend: CPU processes stand for GPUs
  /// and a paced link for the network), so a base scenario's data-sheet figures describe
  /// another device and bound nothing (calibrate.hpp).
  bool emulated = false;
  std::vector<std::string> sources;  ///< the files read, in order
  std::vector<std::string> notes;    ///< what was read but is no sample, and why (counted per file and reason)
};

/// `ckptsim-replay --microbench` output (docs/timeline-format.md, "Microbenchmarks").
void add_microbench_samples(const nlohmann::json& doc, const std::string& file, MeasurementSet& out);

/// A measured timeline: compute ops (FLOPs), collectives (bytes per rank stream), checkpoint
/// sends (p2p) and the copies into CPU memory (host-copy: received chunks and the local replica).
void add_timeline_samples(const MeasuredTimeline& timeline, MeasurementSet& out);

/// A kernel-class document (`ckptsim import torch-profiler --kernels`, docs/profile-format.md):
/// its NCCL collectives with sizes and a known machine count (all-reduce, all-gather,
/// reduce-scatter, all-to-all, send/receive) and its device-to-host copies. Collectives without
/// sizes (older traces) or machine counts, and other collectives (broadcast, ...), are counted
/// in `notes`, not taken. The devices are real (not emulated).
void add_kernel_samples(const nlohmann::json& doc, const std::string& file, MeasurementSet& out);

/// The samples of one kind, group and node count as rate-fit samples.
std::vector<RateSample> rate_samples(const std::vector<Measurement>& samples);

}  // namespace ckptsim
