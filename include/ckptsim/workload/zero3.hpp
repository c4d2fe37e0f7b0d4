#pragma once
// The ZeRO-3 task graph of one training iteration at DeepSpeed's granularity: one task per
// submodule (weight matrix) use, gathers and reduce-scatters as DeepSpeed 0.7.3 issues them
// (zero3_schedule.hpp), then the iteration-boundary synchronization and the optimizer step.
// Sources: Rajbhandari et al., "ZeRO", SC '20, Section 5.3; DeepSpeed v0.7.3
// deepspeed/runtime/zero/{config.py, partitioned_param_coordinator.py, stage3.py}
// (https://github.com/microsoft/DeepSpeed/tree/v0.7.3); GEMINI, SOSP '23, Section 5, Figure 6.
//
// Every rank runs the same program, so one compute stream stands for every GPU and each
// collective is one set of flows over every machine (network/collectives.hpp).
// Submodules (GPT-2 layout; h hidden, f FFN width, V vocabulary):
//   E      token embedding V·h, tied with the output projection (+ final LayerNorm 2h)
//   per layer: QKV 3h·h (+ bias 3h, LayerNorm 2h), O h·h (+ h), FC1 h·f (+ f, LayerNorm 2h),
//              FC2 f·h (+ h)
// Uses in order, each a (ComputeUse, Pass) of the kernel model (workload/kernels.hpp lists the
// kernels of each; e.g. the attention core runs in the QKV use, after the QKV GEMM):
//   forward    E (embedding), per layer QKV, O, FC1, FC2; the output stage on E (final
//              LayerNorm, logits, loss)
//   backward   the output stage's backward (with the turn from forward to backward); per layer
//              from the last: with activation recomputation its four forward uses again, then
//              FC2, FC1, O, QKV backward, each completing its module's gradient; E last (its
//              gradient)
// Dependencies:
//   gather group g (issued at use j)   after the previous gather (one all-gather stream) and
//                                      after compute j-1-L ends (j-1-L >= 0): the host, which
//                                      runs the hooks that issue gathers, is L uses ahead of
//                                      the GPU. L = training.zero3.host_lookahead, default 1:
//                                      use j's hooks run once use j-1's kernels are launched,
//                                      i.e. when use j-2 has ended (a modelling choice: the
//                                      host launches asynchronously, but DeepSpeed throttles
//                                      it to two outstanding fetch events; L = 0 is the
//                                      fully synchronous host, large L the free-running one)
//   compute j                          after compute j-1 and the gather holding its module
//   reduce-scatter bucket              after the compute that issued it and the previous one
//                                      (its own stream; it overlaps the gathers, sharing NICs)
//   boundary                           after the last compute and the last reduce-scatter:
//                                      DeepSpeed's overflow check and gradient norm
//                                      (workload/step_phases.hpp, boundary phases) with the
//                                      all-reduce of a scalar each: 2 x the latency of an
//                                      all-reduce (reduce-scatter + all-gather phases)
//   optimizer step                     after the boundary: the update of the fp32 partition
//                                      and the step end (step_phases.hpp)
// The next iteration's first gather waits for the step, so one iteration is its makespan.
// Compute time: the kernel model (workload/kernel_time.hpp), or FLOPs / (gpu_peak_flops x
// training.compute_efficiency) when the scenario gives that override.
// Collectives reach cluster.network.collective_efficiency of the NIC line rate and, without
// GPUDirect RDMA, cross the GPUs' PCIe links (network/collectives.hpp).
// Units: durations rounded up to the nanosecond, bytes, FLOPs per GPU.
#include <utility>
#include <vector>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/kernels.hpp"
#include "ckptsim/workload/step_phases.hpp"
#include "ckptsim/workload/task_graph.hpp"
#include "ckptsim/workload/transformer.hpp"
#include "ckptsim/workload/zero3_schedule.hpp"

namespace ckptsim {

struct Zero3Options {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Zero3Knobs knobs;
  int host_lookahead = 1;  ///< L
};

struct Zero3Iteration {
  TaskGraph graph;
  TransformerShape shape;
  Zero3Schedule schedule;
  int first_task = -1;                 ///< iteration start: gate here to delay training
  int boundary_task = -1;
  int optimizer_task = -1;             ///< the update: everything that must precede it joins here
  std::vector<int> compute_tasks;      ///< per use, in order
  std::vector<int> gather_tasks;       ///< last phase of each gather group
  std::vector<int> reduce_tasks;       ///< last phase of each reduce-scatter bucket
  std::vector<int> network_tasks;      ///< all-gathers and reduce-scatters (every phase)
  std::vector<StepPhase> boundary_phases;   ///< the boundary task's compute phases
  std::vector<StepPhase> optimizer_phases;  ///< the optimizer task's phases
};

/// The submodules and their uses in one iteration, as the header lists them; `flops`,
/// `compute` and `category` get one entry per use.
struct Zero3Program {
  std::vector<SubModule> modules;
  std::vector<ModuleUse> uses;
  std::vector<double> flops;           ///< the use's kernels' FLOPs (kernels.hpp)
  std::vector<std::pair<ComputeUse, Pass>> compute;  ///< the kernel model's use and pass
  std::vector<TaskCategory> category;
  std::vector<int> layer;              ///< transformer layer of each use (-1: embedding/output)
};
Zero3Program make_zero3_program(const TransformerShape& shape);

/// Builds the graph from the scenario's model, training and cluster (throws ModelError when
/// something the model needs is missing).
Zero3Iteration make_zero3_iteration(const Scenario& scenario, const Topology& topology, const Zero3Options& options);

}  // namespace ckptsim
