// Topology: routes and link capacities (network/topology.hpp).
#include <doctest/doctest.h>

#include <vector>

#include "ckptsim/core/error.hpp"
#include "ckptsim/network/topology.hpp"

using namespace ckptsim;

namespace {

/// 10 machines at B = 10 bytes/s under `topology`, `per_leaf` machines per leaf.
ClusterSpec ten_machines(NetworkTopology topology, int per_leaf) {
  ClusterSpec c;
  c.machines = 10;
  c.network_bandwidth = 10.0;
  c.network.topology = topology;
  c.network.machines_per_leaf = per_leaf;
  return c;
}

}  // namespace

TEST_CASE("single switch: a route is the sender's NIC send then the receiver's NIC receive") {
  ClusterSpec c;
  c.machines = 4;
  c.network_bandwidth = 50e9;
  c.nvlink_bandwidth = 300e9;
  c.gpu_cpu_bandwidth = 25e9;
  const Topology t = Topology::build(c);
  CHECK(t.route(1, 3) == std::vector<int>{t.nic_send(1), t.nic_recv(3)});
  CHECK(t.capacities()[t.nic_send(0)] == 50e9);
  CHECK(t.capacities()[t.nvlink(2)] == 300e9);
  CHECK(t.capacities()[t.pcie(3)] == 25e9);
  CHECK(t.machine_of_nic(t.nic_recv(2)) == 2);
  CHECK(t.machine_of_nic(t.pcie(2)) == -1);
}

TEST_CASE("leaf-spine: crossing leaves adds the uplink and downlink, of capacity L*B/o") {
  ClusterSpec c = ten_machines(NetworkTopology::leaf_spine, 4);
  c.network.oversubscription = 2.0;
  const Topology t = Topology::build(c);
  CHECK(t.leaves() == 3);  // 4 + 4 + 2 machines
  CHECK(t.route(0, 3) == std::vector<int>{t.nic_send(0), t.nic_recv(3)});
  const auto r = t.route(1, 9);
  REQUIRE(r.size() == 4);
  CHECK(r[0] == t.nic_send(1));
  CHECK(r[3] == t.nic_recv(9));
  // Leaf 0 uplink: 4 machines x 10 B/s / 2 = 20 B/s; leaf 2 (2 machines): 2 x 10 / 2 = 10 B/s.
  CHECK(t.resources()[static_cast<std::size_t>(r[1])].kind == ResourceKind::leaf_up);
  CHECK(t.capacities()[static_cast<std::size_t>(r[1])] == doctest::Approx(20.0));
  CHECK(t.resources()[static_cast<std::size_t>(r[2])].kind == ResourceKind::leaf_down);
  CHECK(t.capacities()[static_cast<std::size_t>(r[2])] == doctest::Approx(10.0));
}

TEST_CASE("topology names map to the enum in one table, and unknown names parse to nothing") {
  // The loader parses names through this table (an unknown name is a loader error with its
  // pointer, tests/unit/scenario/loader_test.cpp); the models see only the enum.
  CHECK(parse_name<NetworkTopology>("single-switch") == NetworkTopology::single_switch);
  CHECK(parse_name<NetworkTopology>("leaf-spine") == NetworkTopology::leaf_spine);
  CHECK_FALSE(parse_name<NetworkTopology>("torus").has_value());
  CHECK(name_of(CollectiveAlgorithm::hierarchical) == "hierarchical");
  CHECK_FALSE(parse_name<CollectiveAlgorithm>("tree").has_value());
}

TEST_CASE("fat-tree: a route climbs to the pod spine between leaves and to the core between pods") {
  // 10 machines, 2 per leaf (5 leaves), 2 leaves per pod (pods {0..3}, {4..7}, {8, 9}), B = 10,
  // leaf oversubscription 1, pod oversubscription 4.
  ClusterSpec c = ten_machines(NetworkTopology::fat_tree, 2);
  c.network.leaves_per_pod = 2;
  c.network.pod_oversubscription = 4.0;
  const Topology t = Topology::build(c);
  CHECK(t.leaves() == 5);
  CHECK(t.route(0, 1) == std::vector<int>{t.nic_send(0), t.nic_recv(1)});
  // Same pod, other leaf: leaf 0 up, leaf 1 down, each 2 x 10 / 1 = 20.
  const auto in_pod = t.route(0, 2);
  REQUIRE(in_pod.size() == 4);
  CHECK(t.resources()[static_cast<std::size_t>(in_pod[1])].kind == ResourceKind::leaf_up);
  CHECK(t.capacities()[static_cast<std::size_t>(in_pod[1])] == doctest::Approx(20.0));
  CHECK(t.resources()[static_cast<std::size_t>(in_pod[2])].kind == ResourceKind::leaf_down);
  // Across pods: leaf 0 up, pod 0 up (4 machines x 10 / (1 x 4) = 10), pod 2 down (2 x 10 / 4 =
  // 5), leaf 4 down.
  const auto across = t.route(0, 9);
  REQUIRE(across.size() == 6);
  CHECK(across.front() == t.nic_send(0));
  CHECK(across.back() == t.nic_recv(9));
  CHECK(t.resources()[static_cast<std::size_t>(across[2])].kind == ResourceKind::pod_up);
  CHECK(t.resources()[static_cast<std::size_t>(across[2])].index == 0);
  CHECK(t.capacities()[static_cast<std::size_t>(across[2])] == doctest::Approx(10.0));
  CHECK(t.resources()[static_cast<std::size_t>(across[3])].kind == ResourceKind::pod_down);
  CHECK(t.resources()[static_cast<std::size_t>(across[3])].index == 2);
  CHECK(t.capacities()[static_cast<std::size_t>(across[3])] == doctest::Approx(5.0));
  CHECK(parse_name<NetworkTopology>("fat-tree") == NetworkTopology::fat_tree);
}

TEST_CASE("fat-tree: one pod holding every leaf routes as the leaf-spine network") {
  ClusterSpec c = ten_machines(NetworkTopology::leaf_spine, 4);
  c.network.oversubscription = 2.0;
  const Topology spine = Topology::build(c);
  c.network.topology = NetworkTopology::fat_tree;
  c.network.leaves_per_pod = 3;
  const Topology tree = Topology::build(c);
  CHECK(tree.route(1, 9) == spine.route(1, 9));
  CHECK(tree.route(0, 5) == spine.route(0, 5));
}

TEST_CASE("a ring crossing switch tiers keeps min(1, L/o) of its rate across leaves and M_p/(o o_p) across pods") {
  NetworkSpec net;
  // One switch: nothing to cross.
  CHECK(ring_tier_factor(net, 1000) == 1.0);
  // Leaf-spine, 4 machines per leaf, 1:8: a ring over 4 machines stays in its leaf (1); over 5 it
  // crosses an uplink of 4B/8 = B/2 with one machine's streams: 1/2.
  net.topology = NetworkTopology::leaf_spine;
  net.machines_per_leaf = 4;
  net.oversubscription = 8.0;
  CHECK(ring_tier_factor(net, 4) == 1.0);
  CHECK(ring_tier_factor(net, 5) == doctest::Approx(0.5));
  // Fat tree, 2 per leaf at 1:1, 2 leaves per pod (M_p = 4), pods at 1:8: within a pod 1; across
  // pods the pod uplink is 4B/8 = B/2: 1/2.
  net.topology = NetworkTopology::fat_tree;
  net.machines_per_leaf = 2;
  net.oversubscription = 1.0;
  net.leaves_per_pod = 2;
  net.pod_oversubscription = 8.0;
  CHECK(ring_tier_factor(net, 3) == 1.0);
  CHECK(ring_tier_factor(net, 5) == doctest::Approx(0.5));
  // Llama 3's cluster (2 per rack, 192 racks per pod, 1:7): a pod holds 384 machines, so even a
  // ring across pods keeps its NIC rate (384 / 7 > 1).
  net.leaves_per_pod = 192;
  net.pod_oversubscription = 7.0;
  CHECK(ring_tier_factor(net, 2048) == 1.0);
}

TEST_CASE("a block of machines splits as a cluster of its own size when it starts a leaf (and a pod, or lies in one)") {
  NetworkSpec net;
  // One switch: every block, wherever it starts.
  CHECK(block_splits_as_cluster(net, 3, 5));
  // Leaf-spine, 4 per leaf: machines 4..11 fill leaves 1 and 2, as 0..7 fill a cluster of 8's
  // leaves 0 and 1; machines 2..5 straddle leaves 0 and 1, where a cluster of 4 has one leaf.
  net.topology = NetworkTopology::leaf_spine;
  net.machines_per_leaf = 4;
  CHECK(block_splits_as_cluster(net, 4, 8));
  CHECK_FALSE(block_splits_as_cluster(net, 2, 4));
  // Fat tree, 2 per leaf, 2 leaves per pod (4 machines): 2..3 start a leaf inside pod 0; 4..11
  // start pod 1; 2..5 start a leaf but cross from pod 0 into pod 1, where a cluster of 4 has one pod.
  net.topology = NetworkTopology::fat_tree;
  net.machines_per_leaf = 2;
  net.leaves_per_pod = 2;
  CHECK(block_splits_as_cluster(net, 2, 2));
  CHECK(block_splits_as_cluster(net, 4, 8));
  CHECK_FALSE(block_splits_as_cluster(net, 2, 4));
}
