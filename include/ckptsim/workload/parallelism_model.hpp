#pragma once
// The parallelism models: what one training iteration looks like to the layers above (the
// checkpoint schedulers, the iteration study, the run model) for each training.parallelism.
// One unit per kind; the rest asks the unit, never the kind.
//
//   zero3     DeepSpeed ZeRO-3 or FSDP (training.engine), simulated as a task graph on the
//             flow-level network (iteration_model.hpp): the checkpoint's chunks are simulated
//             together with the training traffic, anchored to the training operations.
//   megatron  tensor, pipeline, data, context and expert parallelism (megatron_iteration.hpp):
//             the pipeline schedule and the data-parallel collectives in closed form on one rank
//             per stage. It gives the iteration time, each machine's NIC idle spans (the
//             pipeline bubbles, the gaps between point-to-point transfers, the data-parallel
//             reduce and gather), the time the optimizer step starts, the GPU memory of the
//             fullest stage and the largest per-GPU checkpoint shard; there is no training task
//             graph, so the chunks run at their planned clock times (as with an imported
//             profile) and the step waits for the last one; chunks planned outside the spans
//             (the leftover after the last span) share the NIC with training traffic, which
//             is taken to wait for their NIC time: with checkpoint, an iteration lasts
//             T + max(d - t_step, leftover time) (d: the last send or local copy ends).
//
// Megatron's machine spans: machine n holds ranks [n·G, (n+1)·G), whose pipeline ranks follow
// from the tp-cp-dp-pp order (megatron_layout.hpp); by group symmetry each stage's ranks do the
// same work, so a machine's NIC is busy when any of its stages' ranks is. Machines holding the
// same stages form a span group (IterationModel::group_of) with the gaps of those stages' busy
// intervals (group_spans); profile.machine_spans gives every machine the spans in which every
// machine of the job is idle, the gaps of the union of all stages' busy intervals (the plan the
// iteration study runs when copies cross groups, iteration_study.hpp). Both are cut at the
// optimizer step's start (a checkpoint of the states the step starts from must be sent before
// they change; checkpoint_run.hpp). The network-silent view
// (silent_spans, over the whole step) differs from it only in the data-parallel reduce: its
// buckets' own intervals instead of one window from the first launch (megatron_iteration.hpp).
#include <string_view>
#include <vector>

#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/iteration_model.hpp"

namespace ckptsim {

/// One collective operation of an iteration: its buffer and the buffers of all its calls.
struct CollectiveSize {
  double bytes = 0;    ///< S of one call
  double traffic = 0;  ///< S x calls per iteration
};

/// A checkpoint in storage, whole job, bytes: what a save writes and what a load reads.
struct StorageCheckpointBytes {
  double save = 0;
  double load = 0;
};

class ParallelismModel {
 public:
  virtual ~ParallelismModel() = default;
  [[nodiscard]] virtual Parallelism kind() const = 0;
  [[nodiscard]] virtual std::string_view description() const = 0;
  /// One iteration without checkpoint traffic. Throws ModelError naming the field the model
  /// cannot use.
  [[nodiscard]] virtual IterationModel simulate(const Scenario& scenario) const = 0;
  /// Up-front estimates of what simulate() takes (core/work_limits.hpp, docs/limits.md).
  [[nodiscard]] virtual std::vector<WorkEstimate> work(const Scenario& scenario) const = 0;
  /// The job's data-parallel units as an elastic restart sees them (failure/elastic.hpp): for
  /// each machine, the index (0, 1, ... in machine order) of the set of machines that leaves the
  /// job with it when it is lost and the job shrinks. zero3: each machine alone (a sharded
  /// data-parallel job reshards its states over any machine count); megatron: the machines of
  /// the model replicas its ranks belong to (megatron_layout.hpp).
  [[nodiscard]] virtual std::vector<int> data_parallel_units(const Scenario& scenario) const = 0;
  /// The iteration's collectives that cross machines: per operation its buffer size S (bytes,
  /// nccl-tests' size column: the whole gathered buffer, the reduced input) and the bytes S of
  /// all its calls in one iteration, in no particular order: what a calibration of the network
  /// should be fitted on (calibrate.hpp, "Sizes"). Point-to-point sends are left out.
  [[nodiscard]] virtual std::vector<CollectiveSize> network_collective_sizes(const Scenario& scenario) const = 0;
  /// The checkpoint in storage. zero3: C = Φ·c both ways (every rank saves and reads its own
  /// shard, nothing is held twice). megatron: the save writes C and one copy of the 16-bit
  /// parameters, S = Φ·(c + w) (Megatron's distributed checkpoint holds the model's state dict
  /// beside the optimizer's); the load reads S with --ckpt-fully-parallel-load, else what every
  /// rank holds, megatron_every_rank_load_bytes (megatron_iteration.hpp).
  [[nodiscard]] virtual StorageCheckpointBytes storage_bytes(const Scenario& scenario) const = 0;
};

/// The unit of a kind (table order = Parallelism's).
const ParallelismModel& parallelism_model(Parallelism kind);

/// The scenario's iteration, by its parallelism's unit.
inline IterationModel simulate_parallelism(const Scenario& scenario) {
  return parallelism_model(scenario.training.parallelism).simulate(scenario);
}

struct MegatronIteration;

/// The megatron unit's IterationModel of a simulated step (the header comment).
IterationModel megatron_iteration_model(const Scenario& scenario, const MegatronIteration& iteration);

/// Spans, within [0, until), in which no interval of `busy` is (they may overlap, in any order);
/// anchors -1. Complexity O(B log B).
std::vector<IdleSpan> spans_outside(std::vector<std::pair<SimTime, SimTime>> busy, SimTime until);

/// The ZeRO-3 engines' training flows: about 3 collectives per layer, each with a flow per GPU,
/// so 3 x layers x machines x GPUs per machine flows through the max-min solver, refused above
/// kMaxIterationFlows.
double estimate_iteration_flows(const Scenario& scenario);

/// Memory of the ZeRO-3 engine's program and its task graph: DeepSpeed ZeRO-3 writes about 86
/// operations per layer (GPT-2 100B: 10,675 for 124 layers), FSDP about 20; each operation and
/// its task take under 1 KiB. Estimated as 100 x 1 KiB per layer.
double estimate_program_bytes(const Scenario& scenario);

inline constexpr double kMaxIterationFlows = 2e7;

}  // namespace ckptsim
