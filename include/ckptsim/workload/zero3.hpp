#pragma once
// The ZeRO-3 task graph of one training iteration (Rajbhandari et al., "ZeRO: Memory
// Optimizations Toward Training Trillion Parameter Models", SC '20, Section 5.3; DeepSpeed
// ZeRO-3 parameter prefetching; GEMINI, SOSP '23, Section 5 and Figure 6).
//
// Every rank runs the same program, so one compute stream stands for every GPU and each
// collective is one set of flows over every machine (network/collectives.hpp).
// Stages: the L transformer layers, then an output stage (the tied embedding used as the
// output projection; the embedding lookup at the start costs no FLOPs worth modelling and
// its gather is the output stage's).
//   forward:   for each stage k = 0..L: all-gather AG_f(k) of its parameters (P_k·w bytes),
//              then compute F_k / (peak·efficiency)
//   backward:  output stage (its parameters are still gathered), then layers L-1..0: all-gather
//              AG_b(k), compute B_k / (peak·efficiency), then reduce-scatter RS(k) of its
//              gradients (P_k·w bytes)
//   optimizer: after the last compute and the last reduce-scatter (its own time, Adam over a
//              1/n shard, is not modelled).
// Streams (as DeepSpeed runs them): one compute stream; one all-gather stream (gathers in
// order); one reduce-scatter stream (reductions in order). Prefetch: the gather for the j-th
// compute may be issued once the (j-1-d)-th compute ended (equivalently, once the (j-d)-th
// started), d = prefetch depth in stages. DeepSpeed's default stage3_prefetch_bucket_size
// (5e7 parameters) is smaller than one layer of the models here, so d = 1 by default.
// Compute time = FLOPs / (gpu_peak_flops x training.compute_efficiency). The scenario default
// efficiency 0.5 is close to the 52% of A100 peak that Narayanan et al. (SC '21, Section 5.1)
// report for GPT-3 175B training (163 of 312 TFLOP/s per GPU); it is an input, not fitted here.
// Units: durations rounded up to the nanosecond, bytes, FLOPs per GPU.
#include <vector>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/task_graph.hpp"
#include "ckptsim/workload/transformer.hpp"

namespace ckptsim {

struct Zero3Options {
  int prefetch = 1;                                        ///< d, stages gathered ahead
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
};

struct Zero3Iteration {
  TaskGraph graph;
  TransformerShape shape;
  int first_task = -1;                 ///< AG_f(0): gate here to delay training
  int optimizer_task = -1;             ///< the update: everything that must precede it joins here
  std::vector<int> network_tasks;      ///< all-gathers and reduce-scatters (every phase)
  double compute_rate = 0;             ///< FLOP/s per GPU achieved (peak x efficiency)
};

/// Builds the graph from the scenario's model, training and cluster (throws
/// std::invalid_argument when something the model needs is missing).
Zero3Iteration make_zero3_iteration(const Scenario& scenario, const Topology& topology, const Zero3Options& options);

}  // namespace ckptsim
