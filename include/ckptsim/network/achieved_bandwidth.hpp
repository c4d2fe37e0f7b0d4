#pragma once
// The one achieved-bandwidth rule for checkpoint and recovery traffic between machines: chunk
// planning, the flow model, first-order checkpoint times and peer retrieval all take their
// rates from here.
//
// A machine's NIC of line rate B_n (cluster.network_bandwidth, bytes/s per direction) carries
// point-to-point sends at f·B_n, f = cluster.network.p2p_efficiency: the instance preset's
// measurement where there is one (fi_rdm_tagged_bw between two 100 Gbps EFA instances peaks at
// 6,899.89 MB/s = 55.2 Gb/s, f = 0.552: libfabric issue 5694, scenario/presets.cpp), else 1.
// Its G GPUs (cluster.gpus_per_machine) send at once and share it fairly, so
//
//   machine rate    B_p2p = f·B_n          a machine's shard c = C/N crosses in c / (f·B_n)
//   per-GPU rate    b_p2p = f·B_n / G      a GPU's share c/G crosses in the same time
//   NIC weight      w = G / f              one aggregated flow of one stream per GPU at rate x
//                                          takes w·x of the NIC's line rate B_n (flow model)
//
// Sends from GPU memory without GPUDirect RDMA are staged through host memory first
// (cluster.gpudirect_rdma false): each GPU's stream then runs no faster than its PCIe link B_pcie
// (cluster.gpu_cpu_bandwidth), b_send = min(f·B_n / G, B_pcie), and a machine's G streams
// together at G·b_send. Retrieval from a peer moves a shard from the peer's CPU memory to the
// replaced machine's CPU memory (host to host, no staging) at B_p2p.
//
// Before this rule, first-order costs and peer retrieval used the line rate B_n while planning
// and the flow model used f: p2p_efficiency changed the iteration model but not recovery times.
#include <algorithm>

#include "ckptsim/scenario/cluster.hpp"

namespace ckptsim {

/// f·B_n, bytes/s: a machine's host-to-host point-to-point rate (peer retrieval, repair reads).
inline double p2p_machine_bandwidth(const ClusterSpec& c) { return c.network.p2p_efficiency * c.network_bandwidth; }

/// b_send = f·B_n / G, capped at B_pcie when sends are staged (no GPUDirect RDMA), bytes/s: one
/// GPU's checkpoint stream out of GPU memory while its machine's G GPUs send at once.
inline double p2p_gpu_send_bandwidth(const ClusterSpec& c) {
  const double per_gpu = p2p_machine_bandwidth(c) / std::max(1, c.gpus_per_machine);
  if (!c.gpudirect_rdma && c.gpu_cpu_bandwidth > 0) return std::min(per_gpu, c.gpu_cpu_bandwidth);
  return per_gpu;
}

/// G·b_send, bytes/s: a machine's checkpoint sends out of GPU memory (first-order times).
inline double p2p_machine_send_bandwidth(const ClusterSpec& c) {
  return std::max(1, c.gpus_per_machine) * p2p_gpu_send_bandwidth(c);
}

/// f of the NIC weight w = G / f the flow model gives a checkpoint send (checkpoint_run.hpp).
inline double p2p_nic_efficiency(const ClusterSpec& c) { return c.network.p2p_efficiency; }

}  // namespace ckptsim
