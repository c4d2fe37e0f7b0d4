#pragma once
// IterationCosts: what one training iteration and its checkpoint traffic cost (iteration model).
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct IterationCosts {
  SimTime iteration_time;                  ///< no checkpointing
  SimTime iteration_time_with_checkpoint;  ///< an iteration carrying one checkpoint (strategy.scheduler)
  SimTime checkpoint_time;                 ///< from that iteration's start until every copy is in CPU memory
  SimTime blocking_checkpoint_time;        ///< sending all copies while training waits
  double gpu_buffer_bytes = 0;
  bool oom = false;
  int min_every_iterations = 1;            ///< smallest k that hides the checkpoint in idle time
};

IterationCosts compute_iteration_costs(const Scenario& scenario);

}  // namespace ckptsim
