#include "ckptsim/checkpoint/iteration_costs.hpp"

#include <fmt/format.h>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

IterationCosts compute_iteration_costs(const Scenario& scenario) {
  const IterationStudy study = prepare_iteration_study(scenario);
  const SchedulerOutcome chosen = evaluate_scheduler(study, scenario.strategy.scheduler);
  IterationCosts c;
  c.iteration_time = study.training_iteration;
  c.iteration_time_with_checkpoint = chosen.iteration_time_with_checkpoint;
  c.checkpoint_time = chosen.checkpoint_time;
  c.gpu_buffer_bytes = chosen.gpu_buffer_bytes;
  c.oom = chosen.oom;
  c.min_every_iterations = chosen.min_every_iterations;
  c.checkpoint_blocks_training = chosen.plan.blocks_training;
  c.gpu_memory_used = study.model.memory.used();
  c.gpu_memory_capacity = study.model.memory.capacity;
  // In-memory-blocking's stall: every copy sent while training waits (network otherwise idle).
  const CheckpointPlan blocking = make_plan(SchedulerKind::blocking, study.input);
  const CheckpointRun alone = run_checkpoint_alone(study.model.topology, blocking, study.placement,
                                                   scenario.cluster.gpus_per_machine, study.input.alpha,
                                                   SendLinks::of(scenario.cluster));
  c.blocking_checkpoint_time = alone.sends_done;
  return c;
}

std::optional<std::string> gpu_fit_problem(const Scenario& scenario, const IterationCosts& costs) {
  if (costs.gpu_memory_used > costs.gpu_memory_capacity)
    return fmt::format("training does not fit its GPUs: it needs {} per GPU at its peak, more than the {} of "
                       "/cluster/gpu_memory (the iteration model's GPU memory, every term in `ckptsim iteration`)",
                       format_bytes(costs.gpu_memory_used), format_bytes(costs.gpu_memory_capacity));
  if (!keeps_checkpoints_in_memory(checkpoint_layout(scenario.strategy.kind)) || !costs.oom) return std::nullopt;
  return fmt::format("the {} scheduler needs a {} GPU buffer beside the training state (iteration model)",
                     name_of(scenario.strategy.scheduler), format_bytes(costs.gpu_buffer_bytes));
}

}  // namespace ckptsim
