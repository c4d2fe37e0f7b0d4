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
// Uses in order (T = b·s tokens per rank; a multiply-add = 2 FLOPs):
//   forward    E (no FLOPs), per layer QKV 6T·h^2, O 2T·h^2 + 4T·s·h (attention scores and
//              weighted sum), FC1 2T·h·f, FC2 2T·h·f; output projection on E: 2T·h·V
//   backward   output projection 4T·h·V; per layer from the last: with activation
//              recomputation its four forward uses again, then FC2, FC1, O, QKV at twice their
//              forward FLOPs, each completing its module's gradient; E last (its gradient)
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
//                                      DeepSpeed's overflow check and gradient-norm
//                                      all-reduce of a scalar each: 2 x the latency of an
//                                      all-reduce (reduce-scatter + all-gather phases)
//   optimizer step                     after the boundary: Adam over the 1/n fp32 shard,
//                                      memory bound, kOptimizerBytesPerParameter·P/n / HBM
// The next iteration's first gather waits for the step, so one iteration is its makespan.
// Compute time = FLOPs / (gpu_peak_flops x training.compute_efficiency).
// Collectives reach cluster.network.collective_efficiency of the NIC line rate and, without
// GPUDirect RDMA, cross the GPUs' PCIe links (network/collectives.hpp).
// Units: durations rounded up to the nanosecond, bytes, FLOPs per GPU.
#include <vector>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/task_graph.hpp"
#include "ckptsim/workload/transformer.hpp"
#include "ckptsim/workload/zero3_schedule.hpp"

namespace ckptsim {

/// HBM bytes the optimizer step moves per parameter of the shard (DeepSpeed 0.7.3 stage3.py
/// step(), mixed precision): fp16 gradient to fp32 (read 2, write 4), gradient-norm read of the
/// fp16 gradient (2), unscale/clip in place (read 4, write 4), fused Adam (read parameter,
/// gradient, exp_avg, exp_avg_sq: 16; write parameter, exp_avg, exp_avg_sq: 12), fp32 to fp16
/// parameter copy (read 4, write 2).
inline constexpr double kOptimizerBytesPerParameter = 6 + 2 + 8 + 28 + 6;

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
  double compute_rate = 0;             ///< FLOP/s per GPU achieved (peak x efficiency)
};

/// The submodules and their uses in one iteration, as the header lists them; `flops` and
/// `category` get one entry per use.
struct Zero3Program {
  std::vector<SubModule> modules;
  std::vector<ModuleUse> uses;
  std::vector<double> flops;
  std::vector<TaskCategory> category;
  std::vector<int> layer;              ///< transformer layer of each use (-1: embedding/output)
};
Zero3Program make_zero3_program(const TransformerShape& shape);

/// Builds the graph from the scenario's model, training and cluster (throws ModelError when
/// something the model needs is missing).
Zero3Iteration make_zero3_iteration(const Scenario& scenario, const Topology& topology, const Zero3Options& options);

}  // namespace ckptsim
