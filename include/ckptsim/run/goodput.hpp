#pragma once
// Goodput as operators count it: the run model's time breakdown (run_model.hpp) restated in the
// terms of Google's ML Goodput and Meta's ETTR / MTTR. Nothing here is simulated: every figure
// is arithmetic on one replica's exact (int64 ns) accounting, so the buckets add up to the wall
// time exactly.
//
// Google, ML Goodput (ml-goodput-measurement, BadputType; Google Cloud blog "Train AI for less:
// improve ML Goodput with elastic training and optimized checkpointing", 2024):
//   https://github.com/AI-Hypercomputer/ml-goodput-measurement
//   https://cloud.google.com/blog/products/ai-machine-learning/elastic-training-and-optimized-checkpointing-improve-ml-goodput
//   goodput = productive training time / total elapsed time, where productive time is the time
//   of the steps that the final state keeps (steps redone after a disruption are badput).
//   Badput buckets and what fills them here (W = wall time):
//     initialization          accelerator initialization + training preparation + program
//                             startup (TPU_INITIALIZATION, TRAINING_PREP, PROGRAM_STARTUP)
//                             = the restart warm-up R of every recovery (breakdown.restart).
//                             The first start of the job is outside the simulated window.
//     checkpoint save         UNPRODUCTIVE_CHECKPOINT_SAVE_TIME = breakdown.checkpoint_stall
//                             (the part of saving that blocks training; background transfers
//                             cost nothing here unless they slow training).
//     checkpoint restore      UNPRODUCTIVE_CHECKPOINT_RESTORE_TIME = breakdown.retrieval.
//     wasted progress         WASTED_PROGRESS_FROM_DISRUPTION = breakdown.lost_progress (work
//                             done since the state recovered, redone).
//     infrastructure recovery INFRASTRUCTURE_RECOVERY_FROM_DISRUPTION = breakdown.detection +
//                             breakdown.replacement_wait (no job runs: the fault is being found
//                             and the machine replaced) + breakdown.migration (the job pauses
//                             while a failing machine's state moves to a standby).
//     degraded throughput     steps that ran slower than the healthy step time T (a straggler,
//                             a replica group missing from the quorum): the time beyond T per
//                             step (breakdown.degraded). Google's library counts such steps as
//                             productive and reports them as step-time deviation from its
//                             ideal step time; ckptsim reports them as their own bucket, so
//                             goodput = breakdown.training / W (ideal-step-time goodput).
//   goodput + sum of badput = 1.
// Meta, ETTR and MTTR (Kokolis et al., "Revisiting Reliability in Large-Scale Machine Learning
// Research Clusters", 2024, https://arxiv.org/abs/2410.21680; PyTorch blog "Optimizing Effective
// Training Time for Meta's Internal Recommendation/Ranking Workloads",
// https://pytorch.org/blog/optimizing-effective-training-time-for-metas-internal-recommendation-ranking-workloads/):
//   ETTR = productive runtime / wall time, productive runtime being the wall time in which the job
//   trains on data it keeps. A slowed step still consumes new data, so Meta's ETTR counts it:
//     ettr_meta = (breakdown.training + breakdown.degraded) / W   (= the run model's `ettr`
//     when nothing slows training).
//   MTTR = mean time to recover: from the failure that opens a recovery episode until training
//   resumes (time to recover, "the duration required for a training job to restart and resume
//   productive training after a failure"):
//     MTTR = (detection + replacement_wait + retrieval + restart) / episodes,
//   episodes = recovery episodes begun (one per failure that found the job training; failures
//   during an episode extend it). Undefined without an episode (NA, as the CSV writes it).
// Published goodput or ETTR figures are validation data for these numbers, never inputs.
#include <cstdint>
#include <optional>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

struct TimeBreakdown;

/// One replica's goodput and badput (fractions of the wall time) and Meta's metrics.
struct Goodput {
  double goodput = 0.0;
  double badput_initialization = 0.0;
  double badput_checkpoint_save = 0.0;
  double badput_checkpoint_restore = 0.0;
  double badput_wasted_progress = 0.0;
  double badput_infrastructure_recovery = 0.0;
  double badput_degraded_throughput = 0.0;
  double ettr_meta = 0.0;
  std::optional<double> mttr_s;  ///< seconds; none without a recovery episode
};

/// The buckets of a breakdown over `wall` (all zero for an empty wall time).
Goodput goodput_of(const TimeBreakdown& b, SimTime wall, std::int64_t episodes);

}  // namespace ckptsim
