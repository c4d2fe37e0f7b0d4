#pragma once
// IterationCosts: what one training iteration and its checkpoint traffic cost (iteration model).
#include <optional>
#include <string>

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
  /// Training's own GPU memory per GPU at its peak phase, and the GPU's capacity
  /// (workload/gpu_memory.hpp): training alone does not fit when used > capacity.
  double gpu_memory_used = 0;
  double gpu_memory_capacity = 0;
  int min_every_iterations = 1;            ///< smallest k that hides the checkpoint in idle time
  /// The scheduler's plan sends every copy while training waits (blocking, or a registered
  /// scheduler's blocking plan): no k hides it, each checkpoint stalls the same.
  bool checkpoint_blocks_training = false;
};

IterationCosts compute_iteration_costs(const Scenario& scenario);

/// The GPU-fit rule, which every command that answers for a scenario applies (run/run_checks.hpp,
/// `optimize`): first, training itself must fit (costs.gpu_memory_used <= capacity, whatever the
/// strategy: a job that does not fit its GPUs does not run, so it has no ETTR); then a strategy
/// that keeps checkpoints in CPU memory (gemini, in-memory-blocking) stages the chunks it
/// receives in a GPU buffer beside the training state, so the buffer its traffic scheduler needs
/// (costs.gpu_buffer_bytes) must fit in the GPU memory training leaves free (costs.oom). Returns
/// why it does not fit, nullopt when it fits. (The loader's cruder check, a buffer no larger than the
/// whole GPU memory, needs no iteration model: scenario/checks.cpp.)
std::optional<std::string> gpu_fit_problem(const Scenario& scenario, const IterationCosts& costs);

}  // namespace ckptsim
