// Achieved-bandwidth factor and host staging of collectives (network/collectives.hpp), checked
// against hand calculations on small clusters.
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/network/flow_set.hpp"

using namespace ckptsim;

namespace {

ClusterSpec cluster(int machines, int gpus, double nic, double pcie) {
  ClusterSpec c;
  c.machines = machines;
  c.gpus_per_machine = gpus;
  c.network_bandwidth = nic;
  c.nvlink_bandwidth = 100e9;
  c.gpu_cpu_bandwidth = pcie;
  return c;
}

// Runs one single-phase collective alone; returns its completion time.
SimTime alone(const Topology& t, const FlowPhase& p) {
  FlowSet flows(t.capacities());
  flows.add(p.uses, p.bytes, 0);
  return *flows.next_completion();
}

}  // namespace

TEST_CASE("collective factor: a ring all-gather reaches f x the NIC line rate") {
  // 16 machines x 8 GPUs, NIC 50e9 B/s, f = 0.5: n = 128, no latency;
  // T = (127/128) x 1.6e9 / (0.5 x 50e9) = 63.5 ms, twice the line-rate time.
  const Topology t = Topology::build(cluster(16, 8, 50e9, 25e9));
  const CollectiveShape s{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 1.6e9, 8, SimTime::zero(), 0.5, false};
  const auto phases = collective_phases(t, s);
  REQUIRE(phases.size() == 1);
  const double expected = 127.0 / 128.0 * 1.6e9 / 25e9;
  CHECK(alone(t, phases[0]).seconds() == doctest::Approx(expected).epsilon(1e-8));
  CHECK(collective_time_alpha_beta(16, s, 50e9, 100e9).seconds() == doctest::Approx(expected).epsilon(1e-8));
}

TEST_CASE("host staging: the GPUs' PCIe links can bound a collective") {
  // 4 machines x 2 GPUs, NIC 10e9, PCIe 2e9 per GPU, staged: a machine's outgoing traffic is
  // spread over its 2 GPUs' links, so the ring runs at min(10e9, 2 x 2e9) = 4e9 B/s.
  // n = 8: T = (7/8) x 8e9 / 4e9 = 1.75 s.
  const Topology t = Topology::build(cluster(4, 2, 10e9, 2e9));
  const CollectiveShape s{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 8e9, 2, SimTime::zero(), 1.0, true};
  const auto phases = collective_phases(t, s);
  REQUIRE(phases.size() == 1);
  CHECK(alone(t, phases[0]).seconds() == doctest::Approx(1.75).epsilon(1e-8));
  CHECK(collective_time_alpha_beta(4, s, 10e9, 100e9, 2e9).seconds() == doctest::Approx(1.75).epsilon(1e-8));
  // Without staging the NIC bounds it: (7/8) x 8e9 / 10e9 = 0.7 s.
  const CollectiveShape direct{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 8e9, 2, SimTime::zero(), 1.0, false};
  CHECK(alone(t, collective_phases(t, direct)[0]).seconds() == doctest::Approx(0.7).epsilon(1e-8));
}

TEST_CASE("host staging slows a GPU-to-CPU copy that shares the PCIe link") {
  // 2 machines x 2 GPUs, NIC 10e9, PCIe 4e9 per GPU. A staged ring all-gather of S = 16e9 B
  // moves (3/4)·S = 12e9 B per stream, crossing pcie(i) with weight 1/2; a checkpoint copy of
  // 4e9 B crosses pcie(0) with weight 1. Max-min: both grow together until pcie(0) is full,
  //   0.5·x + x = 4e9  ->  x = 8/3 e9 B/s  (the NIC, 10e9, is not the bottleneck),
  // so the copy ends at 4e9 / (8/3 e9) = 1.5 s instead of 1 s alone. The collective has moved
  // 4e9 B by then; alone it runs at min(10e9, 4e9 / 0.5) = 8e9 B/s: 8e9 B more take 1 s -> 2.5 s.
  const Topology t = Topology::build(cluster(2, 2, 10e9, 4e9));
  const CollectiveShape s{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 16e9, 2, SimTime::zero(), 1.0, true};
  const FlowPhase ring = collective_phases(t, s).at(0);
  CHECK(ring.bytes == doctest::Approx(12e9));
  const std::vector<ResourceUse> copy{{t.pcie(0), 1.0}};
  FlowSet flows(t.capacities());
  flows.add(ring.uses, ring.bytes, 1);
  flows.add(copy, 4e9, 2);
  SimTime now = *flows.next_completion();
  auto done = flows.advance_to(now);
  REQUIRE(done.size() == 1);
  CHECK(done[0] == 2);
  CHECK(now.seconds() == doctest::Approx(1.5).epsilon(1e-8));
  now = *flows.next_completion();
  done = flows.advance_to(now);
  REQUIRE(done.size() == 1);
  CHECK(done[0] == 1);
  CHECK(now.seconds() == doctest::Approx(2.5).epsilon(1e-8));

  // With GPUDirect RDMA the ring never touches PCIe: the copy takes 4e9 / 4e9 = 1 s.
  const CollectiveShape direct{CollectiveKind::all_gather, CollectiveAlgorithm::ring, 16e9, 2, SimTime::zero(), 1.0, false};
  const FlowPhase direct_ring = collective_phases(t, direct).at(0);  // the flow set keeps a view of the uses
  FlowSet rdma(t.capacities());
  rdma.add(direct_ring.uses, 12e9, 1);
  rdma.add(copy, 4e9, 2);
  CHECK(rdma.next_completion()->seconds() == doctest::Approx(1.0).epsilon(1e-8));
}
