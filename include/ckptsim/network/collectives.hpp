#pragma once
// Collective communication costed as the bytes NCCL's algorithms move (Thakur, Rabenseifner,
// Gropp, "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005, for the
// ring and its alpha-beta cost; NCCL documentation, "Collective operations", for ring
// all-gather / reduce-scatter on n ranks, each of which sends and receives (n-1)/n of the data).
//
// Symbols: S = bytes of the whole gathered (or reduced) buffer over all ranks; n = N·G ranks
// (N machines, G GPUs each, ranks of a machine consecutive); alpha = per-step latency; B = NIC
// bandwidth per machine per direction; B_nv = NVLink port bandwidth per GPU per direction.
//
// Ring (one logical ring over all n ranks; NCCL spreads it over channels that together use
// the whole NIC): n-1 steps, each rank sending S/n per step, so every ring edge carries
// (n-1)/n·S. One flow stands for every rank's stream of the collective: it crosses each
// machine's NIC send and receive once (the edge leaving / entering the machine), the leaf
// links of the edges between leaves, and each machine's NVLink port (edges inside a machine).
//   idle-network time  T_ring = (n-1)·alpha + (n-1)/n · S / min(B, B_nv)       (N > 1)
//                      T_ring = (G-1)·alpha + (G-1)/G · S / B_nv               (N = 1)
// Hierarchical (all-gather: inter-node first, then intra-node; reduce-scatter: the reverse):
//   inter-node phase: G rings (one per local rank) over N machines, each of S/G bytes:
//       one flow per rank, weight G on each NIC; (N-1)·alpha + (N-1)/N · (S/G) / (B/G)
//   intra-node phase: a ring over the G GPUs of each machine on the full buffer:
//       (G-1)·alpha + (G-1)/G · S / B_nv
// Both move (N-1)/N·S bytes through each NIC; the ring pays more latency steps.
// Achieved bandwidth (presets.hpp): a collective reaches f = nic_efficiency of each NIC's line
// rate, so a stream of rate r occupies r·w/f of a NIC it crosses with weight w (alone on the
// NIC it runs at f·B/w). Leaf links and NVLink ports keep weight w.
// Host staging (no GPUDirect RDMA): what leaves a machine is first copied from GPU to host
// memory over PCIe. NCCL's channels spread the network crossings over the machine's G GPUs,
// so a use of weight w on NIC send(i) adds weight w/G on pcie(i), the per-GPU device-to-host
// path that checkpoint copies also cross. The receive side (host to device) is the other PCIe
// direction and shares nothing modelled.
// All-gather and reduce-scatter have the same cost in this model (the reduction's arithmetic
// is not costed). An all-reduce of S bytes on every rank is a reduce-scatter then an all-gather
// (NCCL's ring all-reduce): 2(n-1) steps moving 2(n-1)/n·S; hierarchical: intra-node
// reduce-scatter, inter-node all-reduce of S/G per local rank, intra-node all-gather.
// Scopes (process groups of FSDP HYBRID_SHARD): within_machine is one ring per machine over its
// G GPUs, (G-1)·alpha + (G-1)/G·S / B_nv, no NIC; across_machines is G rings over the N machines
// (one per local rank, weight G on each NIC), (N-1)·alpha + (N-1)/N·S / (B/G) per ring
// (all-reduce: twice the steps and bytes); there S counts the G groups together (G times the
// buffer of one rank), as the hierarchical inter-node phase does.
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/flow_solver.hpp"
#include "ckptsim/network/topology.hpp"

namespace ckptsim {

enum class CollectiveKind { all_gather, reduce_scatter, all_reduce };
/// Which ranks take part: every rank; the G GPUs of each machine (one ring per machine over
/// NVLink); or one GPU per machine (G rings, one per local rank, over the N machines).
enum class CollectiveScope { every_rank, within_machine, across_machines };

/// One phase of a collective: after `latency`, a flow of `bytes` (per rank stream) over `uses`.
struct FlowPhase {
  SimTime latency;
  double bytes = 0;
  std::vector<ResourceUse> uses;
};

struct CollectiveShape {
  CollectiveKind kind = CollectiveKind::all_gather;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  double bytes = 0;            ///< S
  int gpus_per_machine = 1;    ///< G
  SimTime alpha;               ///< per-step latency
  double nic_efficiency = 1.0; ///< f, achieved fraction of the NIC line rate
  bool host_staging = false;   ///< no GPUDirect RDMA: sends cross the GPUs' PCIe links
  CollectiveScope scope = CollectiveScope::every_rank;
};

/// The phases (run one after the other) of a collective over every GPU of `topology`.
std::vector<FlowPhase> collective_phases(const Topology& topology, const CollectiveShape& shape);

/// Closed-form idle-network time of a collective over every rank (the formulas above; the
/// scope is not consulted), for tests and analytic estimates. `nic` = B, `nvlink` = B_nv; the NIC counts as f·B, and with host
/// staging as min(f·B, G·P) where `pcie` = P per GPU (0: no PCIe limit).
SimTime collective_time_alpha_beta(int machines, const CollectiveShape& shape, double nic, double nvlink,
                                   double pcie = 0);

/// Adds weight `w` for resource `r` to `uses`, merging with an existing entry.
void add_use(std::vector<ResourceUse>& uses, int resource, double weight);

/// Adds every link of `route` with weight `streams`, a NIC with streams / nic_efficiency (the
/// achieved-bandwidth rule above; checkpoint sends use it with their own f).
void add_route_uses(std::vector<ResourceUse>& uses, const Topology& topology, const std::vector<int>& route,
                    double streams, double nic_efficiency);

}  // namespace ckptsim
