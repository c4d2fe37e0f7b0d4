// Topology: routes and link capacities (network/topology.hpp).
#include <doctest/doctest.h>

#include <vector>

#include "ckptsim/core/error.hpp"
#include "ckptsim/network/topology.hpp"

using namespace ckptsim;

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
  ClusterSpec c;
  c.machines = 10;
  c.network_bandwidth = 10.0;
  c.network.topology = NetworkTopology::leaf_spine;
  c.network.machines_per_leaf = 4;
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
