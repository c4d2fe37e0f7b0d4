#pragma once
// A plan's predictions against what a replay of that plan measured (`ckptsim validate`;
// docs/timeline-format.md, "Validation").
//
// Relative error of a quantity: e = (measured - predicted) / predicted.
//   operations  every (operation, rank, iteration): predicted planned_end_s - planned_start_s
//               (operations predicted to take 0 s are counted, not compared: their relative
//               error is undefined); checkpoint chunks: alpha + bytes / B, the chunk alone on its
//               link (plan parameters alpha_s, bandwidth_per_gpu_bytes_per_s). Grouped by
//               kind (compute, all-gather, reduce-scatter, checkpoint-send) and by phase
//               (plan_file.hpp: forward, recompute, backward, boundary, optimizer; chunks:
//               "checkpoint").
//   iteration   per measured iteration, the slowest rank: the iteration time against
//               summary.iteration_time_with_checkpoint_s; the network idle time (iteration time
//               minus the union of the collectives' busy intervals, predicted the same way from
//               the planned intervals); the checkpoint completion (last copy into CPU memory)
//               against summary.checkpoint_time_s.
// Statistics: samples, the median of e, the median and 90th percentile of |e| (linear
// interpolation between order statistics, Hyndman and Fan 1996 type 7). The check passes when
// every median |e| is at most the tolerance.
//
// A comparison needs the measurement to be of this plan: the timeline's plan hash, scheduler
// and rank count must match the plan's, every rank and iteration must hold each non-marker
// operation and each planned chunk once, and the copies each rank was planned to receive;
// anything else is an InputError naming the measured file and pointer.
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/plan_file.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"

namespace ckptsim {

struct ErrorStats {
  std::size_t samples = 0;
  double median = 0;
  double median_abs = 0;
  double p90_abs = 0;
};

/// The statistics above; an empty input gives samples = 0 and zeros.
ErrorStats error_stats(const std::vector<double>& relative_errors);

/// Quantile q in [0, 1] of `values` (type 7); 0 for an empty input.
double quantile(std::vector<double> values, double q);

struct IterationComparison {
  int iteration = 0;
  double measured_s = 0, predicted_s = 0, error = 0;
};

struct Validation {
  std::map<std::string, ErrorStats> by_kind;
  std::map<std::string, ErrorStats> by_phase;
  std::size_t not_compared = 0;  ///< operations predicted to take 0 s
  ErrorStats iteration, idle, checkpoint_completion;
  std::vector<IterationComparison> iterations;
  double tolerance = 0.1;
  bool pass = true;
};

Validation validate(const PlanFile& plan, const MeasuredTimeline& measured, double tolerance);

/// The plan's iteration against a profiled job (`ckptsim import torch-profiler --kernels`),
/// per (rank, step): the step's length against the plan's training iteration
/// (iteration.iteration_time_s, no checkpoint); its network idle time (length - NCCL busy)
/// against the planned idle time of the training iteration; the GPU time of every class but
/// NCCL and memory copies/sets ("compute") against the planned compute durations summed; and
/// the NCCL time of all-gathers and of reduce-scatters against the planned collectives of that
/// kind summed. A trace names no plan, so the scenario must describe the traced job.
Validation validate_profile(const PlanFile& plan, const std::vector<ProfiledRank>& profiled, double tolerance);

/// Length of the union of [start, end) intervals clipped to [0, limit].
double union_length(std::vector<std::pair<double, double>> intervals, double limit);

}  // namespace ckptsim
