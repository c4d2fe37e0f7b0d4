#pragma once
// From measurements to the scenario fields ckptsim predicts with (`ckptsim calibrate`,
// `ckptsim import nccl-tests`; docs/timeline-format.md, "Calibration").
//
// Every kind of sample is fitted per group (kind, ranks, machines) with its rate model
// (measurements.hpp, rate_fit.hpp) and reported. The fields come from pooled fits:
//   collectives  all-gather, reduce-scatter and all-reduce samples over the chosen machine
//                count (default: the largest with >= 2 machines), t = steps * alpha + x / R:
//                  cluster.network.latency               = alpha (per step, the per-message latency)
//                  cluster.network.collective_efficiency = R / L     (L: the line rate, below)
//                a single machine's collectives run on NVLink: cluster.nvlink_bandwidth = R and
//                  cluster.nvlink_latency = alpha (per step inside the machine; never the
//                  network's, docs/references.md "Per-step latency of a collective, by tier");
//   p2p          point-to-point samples between machines (one rank per machine), t = alpha + x / R:
//                  cluster.network.p2p_efficiency        = R / (L / G)   (G GPUs share a NIC)
//                  and cluster.network.latency = alpha when there are no collectives;
//   host-copy    t = x / C:  cluster.gpu_cpu_bandwidth = C;
//   compute      t = x / F:  training.compute_efficiency = F / P with P the peak of the device
//                (cluster.gpu_peak_flops of the base), or without one cluster.gpu_peak_flops = F
//                and compute_efficiency = 1.
//   kernel classes  GPU seconds per profiled step of each of the kernel model's classes
//                (`ckptsim import torch-profiler` kernel document, kernel_classes.hpp) against the
//                base scenario's kernel model for the same step (ComputeTimes::
//                iteration_seconds_by_class), t = x / s with x the model's seconds and s the
//                measured speed relative to the model (1: as predicted):
//                  gemm         cluster.gpu_gemm_efficiency  = e_g * s
//                  layer_norm, elementwise, loss, embedding (pooled, one HBM efficiency):
//                               cluster.gpu_memory_efficiency = e_m * s
//                  attention    cluster.gpu_flash_attention_efficiency = e_f * s with
//                               training.attention "flash"; unfused attention (GEMMs and memory
//                               kernels in one class) is reported, not written
//                bounded by s <= 1 / e (an efficiency cannot exceed 1). A kernel's launch time
//                scales with its work here (first order: exact when launches are a small share
//                of the class). Needs the profiled job as the base scenario (--scenario) and is
//                refused when the base overrides the kernel model (training.compute_efficiency).
// The line rate L per machine and the peak P come from what was measured:
//   - emulated devices (measurements.hpp; ckptsim-replay's mpi backend): L is the paced rate
//     per rank times G and is written as cluster.network_bandwidth (the emulated network);
//     unpaced, there is no L. There is no P: a base scenario's GPU describes another device.
//   - real devices (GPUs, nccl-tests, profiler traces): L and P are the base scenario's
//     cluster.network_bandwidth and cluster.gpu_peak_flops (its data sheet), if a base is given.
// Without L, cluster.network_bandwidth = max(R_collectives, G x R_p2p) is written and the
// efficiencies are ratios to it. Fits are bounded by L (collectives), L / G (p2p) and P
// (compute): rate_fit.hpp refuses an estimate beyond a bound by more than its uncertainty.
//
// Sizes (CalibrationBase::sizes): the network samples (collectives, all-to-all, p2p) may be
// restricted to a range of sizes S (the source's own size: nccl-tests' size column), so that one
// alpha-beta line is fitted to one regime of NCCL's protocols (LL, LL128, Simple: each has its
// own latency and rate, NVIDIA/nccl src/graph/tuning.cc) instead of averaging over all three.
// Samples outside the range are read, counted in the notes and not fitted. A default range
// (SizeRange::is_default, `import nccl-tests`' large-message range) gives way per group (kind,
// ranks, machines) that has fewer than 2 sizes in it: that group is fitted on all its sizes, with
// a warning. Every network fit reports the sizes it was fitted on (its range of validity).
//
// Machine counts: the collectives' fit is of the machine count it was measured on; written into
// a base scenario of another machine count (NCCL's algorithm and the rate it reaches change with
// it) it carries a warning.
//
// The fields are written only if the scenario loader accepts every one of them (each value is
// parsed and range-checked through the parameter table, scenario/parameters.hpp); otherwise
// ModelError names the field and value.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/calibration/measurements.hpp"
#include "ckptsim/calibration/rate_fit.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/kernels.hpp"
#include "ckptsim/workload/parallelism_model.hpp"

namespace ckptsim {

/// The base scenario's kernel model: GPU seconds per iteration by class and its efficiencies.
struct KernelModelBase {
  std::array<double, kKernelClasses> seconds{};  ///< KernelClass order
  double gemm_efficiency = 0;
  double memory_efficiency = 0;
  std::optional<double> flash_efficiency;  ///< only when training.attention is "flash"
};

/// The sizes S the network fits use, inclusive.
struct SizeRange {
  double min_bytes = 0;
  double max_bytes = 0;     ///< 0: no upper bound
  bool is_default = false;  ///< a default, not the user's: a group with < 2 sizes in it keeps all its sizes (warning)
  std::string origin;       ///< where a default came from ("" : NCCL's Simple-protocol sizes, 64 MiB and up)
};

/// The default range of `import nccl-tests` with a base scenario: the sizes of the job's
/// collectives that cross machines (ParallelismModel::network_collective_sizes) that carry its
/// traffic: from the largest buffer down to the smallest of those that together carry 99% of the
/// bytes (a scalar all-reduce of a few bytes is latency, not rate); without a base scenario, or
/// when its model cannot say, 64 MiB and up (NCCL's Simple protocol).
SizeRange default_size_range(std::vector<CollectiveSize> job_collectives);

/// "64MiB:", ":1GiB", "1MiB:8GiB", "1048576:2147483648" (bytes, units of scenario/units.hpp
/// parse_bytes); UsageError-free: throws std::invalid_argument naming what was expected.
SizeRange parse_size_range(std::string_view text);
/// "64 MiB .. 8 GiB", "64 MiB and up".
std::string size_range_text(double min_bytes, double max_bytes);

struct CalibrationBase {
  int gpus_per_machine = 1;                 ///< G
  std::optional<double> network_bandwidth;  ///< L, bytes/s per machine (data sheet)
  std::optional<double> nvlink_bandwidth;   ///< bound of single-machine collectives
  std::optional<double> gpu_peak_flops;     ///< P
  std::optional<int> machines;              ///< which machine count's collectives set the network fields
  std::optional<SizeRange> sizes;           ///< the sizes the network fits use (above); none: all
  std::optional<int> scenario_machines;     ///< the base scenario's machine count, for the warning above
  std::optional<KernelModelBase> kernel_model;
  std::string kernel_model_missing;  ///< why there is none (for the error when class samples need it)
  std::vector<CollectiveSize> job_collectives;  ///< the base scenario's network collectives (default_size_range)
};

struct GroupFit {
  std::string name;       ///< "all-gather over 4 ranks on 4 machines", "collectives (4 machines)"
  std::string kind;       ///< sample kind, or "collectives" for the pooled fit
  int ranks = 0;          ///< 0 for pooled fits over several rank counts
  int machines = 0;
  std::string rate_unit;  ///< "B/s", "FLOP/s", or "x" (kernel classes: speed relative to the kernel model)
  std::vector<RateSample> samples;
  RateFit fit;
  std::vector<std::string> writes;  ///< the fields this fit set
  double min_size_bytes = 0;        ///< the sizes S it was fitted on (its range of validity); 0: not sized (compute)
  double max_size_bytes = 0;
};

struct Calibration {
  std::vector<GroupFit> fits;  ///< per-group fits first, then the pooled ones that write fields
  nlohmann::json fields = nlohmann::json::object();
  std::vector<std::string> notes;  ///< what was measured but not written, and why
  /// The pooled fits refused (unphysical or undetermined): each whole message, naming the files,
  /// the fit and its samples. Their fields are not written; the fits that held are.
  std::vector<std::string> refused;
  /// Fields written under a caveat: a group fitted outside the default sizes, a fit of n
  /// machines written into a scenario of m (printed as warnings; exit 0).
  std::vector<std::string> warnings;
  /// How the inputs were read (set by the importers: one line per nccl-tests run).
  std::vector<std::string> read;
};

/// Fits and fields (see above). Each of these is refused alone, listed in `refused` (and in the
/// notes) while the others are kept: a pooled fit that is unphysical or undetermined; the
/// kernel-class samples when the base has no kernel model (no --scenario, or one that sets
/// training.compute_efficiency); a field the scenario loader would refuse. A kernel-class fit
/// refused for a speed more than 2x beyond 1 / e names the likely cause first: the kernel
/// document comes from another job than the base (its model, shape or parallelism differ); a
/// speed below 1/4 is written with a note saying the same. Throws ModelError when every fit that
/// would write a field was refused (listing each), and InputError when `measurements` holds no
/// sample at all.
Calibration calibrate(const MeasurementSet& measurements, const CalibrationBase& base);

/// The kinds `ckptsim calibrate --skip` leaves out: the sample kinds (all-gather, ..., compute),
/// "kernel-class" (every kernel-class sample) and each kernel class (gemm, attention, ...).
std::vector<std::string> skippable_kinds();

/// Removes the samples of `kind` (one of skippable_kinds(); ModelError("--skip") otherwise) and
/// notes how many; returns that count.
std::size_t skip_kind(MeasurementSet& measurements, std::string_view kind);

/// Checks every leaf of a scenario fragment against the parameter table: known pointer, value
/// the field's unit parses, in its range. Throws ModelError("calibrate", ...) naming the first
/// field that fails.
void check_scenario_fragment(const nlohmann::json& fragment);

/// Deep merge: every leaf of `fields` replaces the same pointer of `base` (objects merged).
void merge_scenario_fields(nlohmann::json& base, const nlohmann::json& fields);

/// The base quantities of a loaded scenario: G, its line rate, NVLink bandwidth and GPU peak.
CalibrationBase calibration_base(const Scenario& scenario);

}  // namespace ckptsim
