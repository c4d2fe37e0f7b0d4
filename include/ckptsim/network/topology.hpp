#pragma once
// Topology: the links of a cluster as a Boost.Graph directed graph, and the per-machine
// resources the iteration model shares max-min fairly (flow_solver.hpp).
//
// Vertices: machines 0..N-1, then switches. Each directed edge is one resource (a link in one
// direction, capacity in bytes/s):
//   single-switch:  machine i -> switch (NIC send, B), switch -> machine i (NIC receive, B);
//                   the switch itself is non-blocking.
//   leaf-spine:     machine i -> leaf(i) (B), leaf(i) -> machine i (B), and per leaf l an uplink
//                   leaf -> spine and a downlink spine -> leaf of capacity L_l·B / o, where L_l is
//                   the number of machines on leaf l and o the oversubscription ratio (o = 1: full
//                   bisection). The spine layer is one vertex: ECMP over the spines is taken as
//                   an ideal split, so a leaf's uplinks act as one aggregate link.
//   fat-tree:       three tiers: leaves as in leaf-spine, NetworkSpec::leaves_per_pod consecutive
//                   leaves under one pod spine (a vertex per pod, with the leaf uplinks above),
//                   and per pod an uplink pod -> core and a downlink core -> pod of capacity
//                   M_p·B / (o·o_p), M_p the machines in pod p, o_p the pod oversubscription
//                   (NetworkSpec::pod_oversubscription). A route crosses the core only between
//                   pods. E.g. Meta's Llama 3 cluster (Dubey et al. 2024, §3.3.1): 2 machines per
//                   rack switch, 192 racks per pod at full bisection, pods joined by an
//                   aggregation layer at 1:7.
//   rail-optimized networks (each of a machine's G NICs on its own rail's leaf) are a leaf-spine
//   or fat-tree here: every collective and checkpoint send of the models pairs local rank k with
//   local rank k, so a group of machines' G rail leaves act as one leaf of G times the capacity.
// B = ClusterSpec::network_bandwidth (per machine, each direction). Leaves hold
// NetworkSpec::machines_per_leaf consecutive machines (the last leaf may hold fewer).
// Inside each machine, two more resources per machine, outside the graph:
//   nvlink(i): one GPU's port into the NVLink/NVSwitch fabric (nvlink_bandwidth, each
//              direction). GPUs of a machine move symmetric traffic, so the G ports collapse
//              into one resource that each GPU's stream crosses with weight 1.
//   pcie(i):   one GPU's GPU<->CPU path (gpu_cpu_bandwidth, device-to-host direction), same
//              symmetry.
// Routes between machines are shortest paths (breadth-first search from the sender, stopped
// once the receiver is reached) in the graph.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ckptsim/scenario/cluster.hpp"

namespace ckptsim {

enum class ResourceKind { nic_send, nic_recv, leaf_up, leaf_down, nvlink, pcie, pod_up, pod_down };

struct Resource {
  ResourceKind kind;
  int index = 0;          ///< machine (nic/nvlink/pcie), leaf (leaf_up/leaf_down) or pod (pod_up/pod_down)
  double capacity = 0;    ///< bytes/s
};

/// The share of its NIC rate a ring collective over `span` consecutive machines keeps where it
/// crosses switch tiers (for models that time collectives in closed form, e.g. Megatron's). A
/// ring edge leaving a leaf carries one machine's streams over the leaf's uplink of L·B/o, one
/// leaving a pod over the pod's of M_p·B/(o·o_p) (the flow model's capacities above), so
/// the ring's rate is that of its narrowest crossing:
///   factor = 1, at most L/o when span > L (leaf-spine, fat-tree), and at most M_p/(o·o_p)
///            when span > M_p = L·leaves_per_pod (fat-tree),
/// for a group laid out from a leaf's first machine. Single switch: 1.
double ring_tier_factor(const NetworkSpec& network, std::int64_t span);

/// True when the block of `count` machines from `first` splits into leaves (and pods) as a
/// cluster of `count` machines built alone would: any block on one switch; in a leaf-spine a
/// block that starts a leaf; in a fat tree one that also starts a pod or lies within one. Such
/// a block can be simulated on its own topology (checkpoint/iteration_study.hpp, span groups).
bool block_splits_as_cluster(const NetworkSpec& network, int first, int count);

class Topology {
 public:
  /// Builds the topology of `cluster` (network.topology, NetworkTopology of scenario/kinds.hpp).
  /// Throws ModelError (naming the field) on non-positive sizes.
  static Topology build(const ClusterSpec& cluster);

  [[nodiscard]] int machines() const { return machines_; }
  [[nodiscard]] int leaves() const { return leaves_; }
  [[nodiscard]] const std::vector<Resource>& resources() const { return resources_; }
  [[nodiscard]] const std::vector<double>& capacities() const { return capacities_; }

  [[nodiscard]] int nic_send(int machine) const { return machine_base_ + 4 * machine; }
  [[nodiscard]] int nic_recv(int machine) const { return machine_base_ + 4 * machine + 1; }
  [[nodiscard]] int nvlink(int machine) const { return machine_base_ + 4 * machine + 2; }
  [[nodiscard]] int pcie(int machine) const { return machine_base_ + 4 * machine + 3; }
  [[nodiscard]] int leaf_of(int machine) const;

  /// Resource indices of the network links from machine `src` to machine `dst` (src != dst),
  /// in path order: NIC send, (leaf uplink, (pod uplink, pod downlink when pods differ), leaf
  /// downlink when leaves differ), NIC receive.
  [[nodiscard]] std::vector<int> route(int src, int dst) const;

  /// Machine index of a NIC resource, or -1 for any other resource.
  [[nodiscard]] int machine_of_nic(int resource) const;

  [[nodiscard]] NetworkTopology kind() const { return kind_; }

 private:
  NetworkTopology kind_ = NetworkTopology::single_switch;
  int machines_ = 0;
  int leaves_ = 0;
  int machines_per_leaf_ = 0;
  int machine_base_ = 0;
  std::vector<Resource> resources_;
  std::vector<double> capacities_;
  // The Boost.Graph directed graph, defined in topology.cpp so that the many files including
  // this header do not parse Boost.Graph.
  struct Graph;
  std::shared_ptr<const Graph> graph_;  // immutable once built; copies of a Topology share it
};

}  // namespace ckptsim
