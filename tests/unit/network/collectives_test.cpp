// Collectives on an idle network match the alpha-beta formulas (network/collectives.hpp).
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/network/flow_set.hpp"

using namespace ckptsim;

namespace {

// Runs the phases one after another on an otherwise idle network.
SimTime simulate(const Topology& t, const std::vector<FlowPhase>& phases) {
  FlowSet flows(t.capacities());
  SimTime now = SimTime::zero();
  for (const FlowPhase& p : phases) {
    now += p.latency;
    flows.advance_to(now);
    flows.add(p.uses, p.bytes, 0);
    now = *flows.next_completion();
    flows.advance_to(now);
  }
  return now;
}

ClusterSpec cluster(int machines, NetworkTopology topology = NetworkTopology::single_switch) {
  ClusterSpec c;
  c.machines = machines;
  c.gpus_per_machine = 8;
  c.network_bandwidth = 50e9;  // 400 Gbps
  c.nvlink_bandwidth = 300e9;
  c.gpu_cpu_bandwidth = 25e9;
  c.network.topology = topology;
  c.network.machines_per_leaf = 4;
  return c;
}

}  // namespace

TEST_CASE("ring all-gather on 16 machines x 8 GPUs") {
  const Topology t = Topology::build(cluster(16));
  CollectiveShape s{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 1.6e9, 8, microseconds(10)};
  // n = 128: T = 127 x 10 us + (127/128) x 1.6e9 B / 50e9 B/s = 1.27 ms + 31.75 ms = 33.02 ms.
  const SimTime closed = collective_time_alpha_beta(16, s, 50e9, 300e9);
  CHECK(closed.seconds() == doctest::Approx(0.00127 + 127.0 / 128.0 * 1.6e9 / 50e9).epsilon(1e-9));
  const SimTime sim = simulate(t, collective_phases(t, s));
  CHECK(std::llabs(sim.ns() - closed.ns()) <= 2);
}

TEST_CASE("hierarchical reduce-scatter: intra-node then inter-node phase") {
  const Topology t = Topology::build(cluster(4));
  CollectiveShape s{CollectiveKind::reduce_scatter, CollectiveAlgorithm::hierarchical, 8e9, 8, microseconds(10)};
  // intra: 7 x 10 us + (7/8) x 8e9 / 300e9 = 70 us + 23.333 ms
  // inter: 3 x 10 us + (3/4) x (8e9/8) / (50e9/8) = 30 us + 120 ms
  const double expected = 70e-6 + 7.0 / 8.0 * 8e9 / 300e9 + 30e-6 + 0.75 * 1e9 / 6.25e9;
  const SimTime closed = collective_time_alpha_beta(4, s, 50e9, 300e9);
  CHECK(closed.seconds() == doctest::Approx(expected).epsilon(1e-9));
  const auto phases = collective_phases(t, s);
  REQUIRE(phases.size() == 2);
  CHECK(phases[0].bytes == doctest::Approx(7.0 / 8.0 * 8e9));  // intra first for reduce-scatter
  const SimTime sim = simulate(t, phases);
  CHECK(std::llabs(sim.ns() - closed.ns()) <= 2);
}

TEST_CASE("a ring on a leaf-spine network with full bisection costs what it does on one switch") {
  // Each leaf uplink carries one ring edge (weight 1) and has 4 x 50 GB/s: the NIC stays the
  // bottleneck, so the alpha-beta time holds.
  const Topology t = Topology::build(cluster(12, NetworkTopology::leaf_spine));
  CollectiveShape s{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 1e9, 8, microseconds(5)};
  const SimTime closed = collective_time_alpha_beta(12, s, 50e9, 300e9);
  const SimTime sim = simulate(t, collective_phases(t, s));
  CHECK(std::llabs(sim.ns() - closed.ns()) <= 2);
}

TEST_CASE("one machine: the ring stays on NVLink") {
  const Topology t = Topology::build(cluster(1));
  CollectiveShape s{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 3e9, 8, microseconds(10)};
  // 7 x 10 us + (7/8) x 3e9 / 300e9 = 70 us + 8.75 ms.
  const SimTime closed = collective_time_alpha_beta(1, s, 50e9, 300e9);
  CHECK(closed.seconds() == doctest::Approx(70e-6 + 8.75e-3).epsilon(1e-9));
  const SimTime sim = simulate(t, collective_phases(t, s));
  CHECK(std::llabs(sim.ns() - closed.ns()) <= 2);
}
