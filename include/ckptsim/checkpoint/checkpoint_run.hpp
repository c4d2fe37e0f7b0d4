#pragma once
// One iteration carrying one checkpoint: the plan's chunks simulated together with the ZeRO-3
// training traffic on the same network (GEMINI SOSP '23, Section 5, Figure 7's data path).
//
// Per rank and chunk c (every rank runs the same plan, so each task below stands for all
// ranks at once and its flow crosses every machine's links with weight G, the GPUs per machine):
//   send S_c    a transfer of `bytes` from the rank to its copy-th peer (NIC send, leaf links,
//               NIC receive; per-message latency alpha). It starts no earlier than its planned
//               offset after its span opened (the end of the span's anchor transfer; imported
//               profiles: the planned clock time), after S_{c-1} (one send stream per GPU) and
//               after K_{c-p}, the copy that freed sub-buffer c mod p on the receiver.
//   copy K_c    the receiver's GPU-to-CPU copy of the chunk over PCIe, after S_c and K_{c-1}.
//   local L     the rank's own shard copied to its CPU memory over PCIe, from the iteration start.
// The optimizer step waits for the last send and for L (the model states must not change
// before they are read). With a blocking plan, training starts only after the last send.
// Approximation: ranks move in lockstep. One aggregated flow per chunk carries every rank's
// stream, so its rate is that of the slowest pair; where pairs see different paths (leaf-spine
// with some pairs crossing leaves, random placements) the faster pairs are held to that pace.
// Under group and ring placements on one switch every pair is alike and the model is exact.
// Links (SendLinks): a send reaches f = cluster.network.p2p_efficiency of each NIC's line rate,
// so it crosses NICs with weight G/f (the achieved-bandwidth rule, network/achieved_bandwidth.hpp); without GPUDirect RDMA it is first staged from the GPU
// to host memory over the sender's PCIe link (weight 1 on pcie(sender), the device-to-host
// path the copies K_c and L also cross; network/collectives.hpp for the same rule on NCCL's
// collectives). Presets and sources: scenario/presets.cpp.
// Results: iteration time (the end of the last training task), checkpoint completion (the last copy into CPU
// memory), and the bytes each receiving GPU holds in sub-buffers over time (from a chunk's
// send start to its copy's end): its peak.
#include <vector>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/checkpoint/plan.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/workload/iteration_model.hpp"

namespace ckptsim {

/// How checkpoint sends use the links (see the header comment).
struct SendLinks {
  double nic_efficiency = 1.0;  ///< f, in (0, 1]
  bool host_staging = false;    ///< no GPUDirect RDMA
  static SendLinks of(const ClusterSpec& cluster) {
    return {p2p_nic_efficiency(cluster), !cluster.gpudirect_rdma};
  }
};

struct CheckpointRun {
  TaskGraph graph;                  ///< training + checkpoint tasks
  GraphRun run;
  SimTime iteration_time;           ///< end of the optimizer step
  SimTime checkpoint_time;          ///< every copy in CPU memory
  SimTime sends_done;               ///< last chunk sent
  double peak_buffer_bytes = 0;     ///< per receiving GPU
  std::vector<int> send_tasks;      ///< S_c by chunk index
  std::vector<int> copy_tasks;      ///< K_c by chunk index
  int local_copy_task = -1;
};

/// Peers of every machine: peers[i][j] = the j-th remote holder of machine i's checkpoint,
/// ordered by (holder - i) mod N, so that for each j the pairs i -> peers[i][j] of group and
/// ring placements form a permutation (every machine receives one stream at a time).
std::vector<std::vector<int>> ordered_peers(const Placement& placement);

/// Runs the iteration of `model` with the plan's traffic. `gpus_per_machine` = G,
/// `alpha` = per-chunk latency. Needs the model's training task graph: throws ModelError
/// (parameter /training/parallelism) for a model without one (the megatron parallelism model,
/// IterationModel::has_training_graph()); run_checkpoint_alone serves those.
CheckpointRun run_with_checkpoint(const IterationModel& model, const CheckpointPlan& plan, const Placement& placement,
                                  int gpus_per_machine, SimTime alpha, SendLinks links = {});

/// The plan's traffic alone on an idle network (training waits): when is the last chunk sent,
/// and when is every copy in CPU memory.
CheckpointRun run_checkpoint_alone(const Topology& topology, const CheckpointPlan& plan, const Placement& placement,
                                   int gpus_per_machine, SimTime alpha, SendLinks links = {});

}  // namespace ckptsim
