#pragma once
// The iteration model: topology + the engine's program of one iteration (engine.hpp) + its
// task graph (stream_program.hpp) + the flow-level simulation + the two idle-span views
// (profile.hpp) + the GPU memory per rank (gpu_memory.hpp).
//
// simulate_iteration() builds everything from a Scenario and runs one iteration without
// checkpoint traffic. The pieces stay available so the checkpoint layer can add its own tasks
// to a copy of the graph and run it on the same topology.
#include <optional>

#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/engine.hpp"
#include "ckptsim/workload/gpu_memory.hpp"
#include "ckptsim/workload/profile.hpp"
#include "ckptsim/workload/stream_program.hpp"
#include "ckptsim/workload/task_graph.hpp"

namespace ckptsim {

/// One iteration's program and graph.
struct IterationWorkload {
  EngineKind engine = EngineKind::deepspeed_zero3;
  TransformerShape shape;
  ComputeModel compute;
  EngineProgram program;   ///< the engine's operations, buffers and memory terms
  BuiltProgram built;      ///< the task graph and its per-task maps
  int first_task = -1;     ///< iteration start: gate here to delay training
  int optimizer_task = -1; ///< the first task that changes model states

  [[nodiscard]] const TaskGraph& graph() const { return built.graph; }
  /// The operation a task belongs to (-1: the start marker, or a task added later).
  [[nodiscard]] int op_of(int task) const {
    return task >= 0 && task < static_cast<int>(built.task_op.size()) ? built.task_op[static_cast<std::size_t>(task)] : -1;
  }
  [[nodiscard]] const ProgramOp* op_for(int task) const {
    const int op = op_of(task);
    return op >= 0 ? &program.program.op(op) : nullptr;
  }
};

struct IterationModel {
  Topology topology;
  IterationWorkload workload;
  GraphRun run;
  IterationProfile profile;
  GpuMemory memory;            ///< per GPU (gpu_memory.hpp)
  /// Set by a parallelism model without a training task graph (parallelism_model.hpp): when the
  /// optimizer step starts (the checkpoint's sends must end before it), and the largest per-GPU
  /// share of the checkpoint where the layout does not split it evenly over the GPUs; bytes.
  std::optional<SimTime> step_start;
  std::optional<double> checkpoint_shard_bytes;
  /// Set by a parallelism model whose machines see different idle spans (Megatron's pipeline
  /// stages): machine j belongs to span group group_of[j], whose idle spans (the profiler's view,
  /// cut at step_start) are group_spans[group_of[j]]. profile.machine_spans keeps the spans in
  /// which every machine is idle. Empty: every machine sees profile.machine_spans.
  std::vector<int> group_of;
  std::vector<std::vector<IdleSpan>> group_spans;
  /// True when the checkpoint's chunks can be simulated with the training traffic (a simulated
  /// task graph); false for an imported profile or a closed-form parallelism model.
  [[nodiscard]] bool has_training_graph() const { return workload.graph().size() > 0 && !profile.imported; }
};

/// The busy intervals of both views (profile.hpp) from a run of `workload`'s graph.
std::vector<BusyInterval> profiler_busy(const IterationWorkload& workload, const GraphRun& run);
std::vector<BusyInterval> silent_busy(const IterationWorkload& workload, const GraphRun& run);

/// The term of `program`'s queued_gradients (engine.hpp) on a run of its graph: per phase (of
/// each buffer's alloc_op) the peak of the bytes live, a buffer live from the start of its
/// alloc_op to the end of its free_op (frees first at equal times; none when it ends first).
/// No term when the program has none.
std::vector<GpuMemoryTerm> queued_buffer_terms(const EngineProgram& program, const BuiltProgram& built, const GraphRun& run);

/// Builds and runs one iteration without checkpointing. Throws ModelError when the scenario
/// lacks what the model needs.
IterationModel simulate_iteration(const Scenario& scenario);

/// The ZeRO-3 engine's program of one iteration (what simulate_iteration simulates), without
/// its task graph or simulation; `activations`, when given, receives the activation memory its
/// buffer budget was computed with.
EngineProgram iteration_program(const Scenario& scenario, const TransformerShape& shape, const ComputeModel& compute,
                                ActivationMemory* activations = nullptr);

}  // namespace ckptsim
