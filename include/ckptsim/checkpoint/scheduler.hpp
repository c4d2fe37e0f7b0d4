#pragma once
// Checkpoint traffic schedulers, registered by name (GEMINI SOSP '23, Section 5 and the
// ablation of Section 7.4):
//   blocking       every chunk at the iteration start, training waits until all are sent;
//                  chunks of R/p through p sub-buffers
//   naive          one chunk per idle span, as large as the span allows (buffer: the largest
//                  span's worth); p = 1
//   single-buffer  chunks of R in one buffer: the next chunk waits for the previous copy
//   gemini         Algorithm 2: p sub-buffers of R/p, span safety mu, start-up cost alpha,
//                  leftover after the last span (checkpoint/partition.hpp)
// Every scheduler also plans the local replica's GPU-to-CPU copy at the iteration start.
#include <string>
#include <vector>

#include "ckptsim/checkpoint/plan.hpp"
#include "ckptsim/core/registry.hpp"

namespace ckptsim {

struct ScheduleInput {
  std::vector<IdleSpan> spans;
  double shard_bytes = 0;        ///< C per GPU
  int copies = 1;                ///< m - 1
  double buffer_bytes = 0;       ///< R
  int sub_buffers = 1;           ///< p
  double span_safety = 0.8;      ///< mu
  SimTime alpha;                 ///< per-chunk start-up cost
  double bandwidth = 0;          ///< B per GPU, bytes/s
};

using SchedulerFactory = CheckpointPlan (*)(const ScheduleInput& input);

/// The schedulers, named and ordered as SchedulerKind's name table (scenario/kinds.hpp).
const Registry<SchedulerFactory>& scheduler_registry();

/// Runs the scheduler `scheduler` on `input`.
CheckpointPlan make_plan(SchedulerKind scheduler, const ScheduleInput& input);

}  // namespace ckptsim
