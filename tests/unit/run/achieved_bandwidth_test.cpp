// The one achieved-bandwidth rule (network/achieved_bandwidth.hpp) as the strategy costs see it:
// cluster.network.p2p_efficiency f and GPU staging change checkpoint and recovery times by the
// hand-worked ratios.
#include <doctest/doctest.h>

#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using namespace ckptsim::test;

TEST_CASE("the rule's three rates: f B_n per machine, f B_n / G per GPU, capped by PCIe when staged") {
  ClusterSpec c;
  c.gpus_per_machine = 8;
  c.network_bandwidth = 50e9;  // 400 Gbps
  c.network.p2p_efficiency = 0.552;
  c.gpu_cpu_bandwidth = 25e9;
  // f B_n = 0.552 x 50e9 = 27.6e9 B/s; per GPU 27.6e9 / 8 = 3.45e9 B/s (below PCIe's 25e9).
  CHECK(p2p_machine_bandwidth(c) == doctest::Approx(27.6e9));
  CHECK(p2p_gpu_send_bandwidth(c) == doctest::Approx(3.45e9));
  CHECK(p2p_machine_send_bandwidth(c) == doctest::Approx(27.6e9));
  // Staged through host memory over a 2e9 B/s link: min(3.45e9, 2e9) = 2e9 per GPU, 16e9 per
  // machine; host-to-host retrieval keeps f B_n.
  c.gpudirect_rdma = false;
  c.gpu_cpu_bandwidth = 2e9;
  CHECK(p2p_gpu_send_bandwidth(c) == doctest::Approx(2e9));
  CHECK(p2p_machine_send_bandwidth(c) == doctest::Approx(16e9));
  CHECK(p2p_machine_bandwidth(c) == doctest::Approx(27.6e9));
}

TEST_CASE("p2p_efficiency changes peer retrieval by the hand-worked ratio") {
  // small_scenario: shard c = 0.75 GB, B_n = 1 GB/s, serialization 1 GB/s (load c / B_ser = 0.75 s).
  Scenario s = small_scenario(StrategyKind::gemini);
  // f = 1: c / B_n + c / B_ser = 0.75 + 0.75 = 1.5 s.
  CHECK(compute_strategy_costs(s, nullptr).retrieval_peer == SimTime::from_seconds(1.5));
  // f = 0.5: the network part doubles, c / (f B_n) = 1.5 s; plus the 0.75 s load = 2.25 s.
  s.cluster.network.p2p_efficiency = 0.5;
  const StrategyCosts half = compute_strategy_costs(s, nullptr);
  CHECK(half.retrieval_peer == SimTime::from_seconds(2.25));
  // Local retrieval is a reload only (0.75 s), untouched by the network.
  CHECK(half.retrieval_local == SimTime::from_seconds(0.75));
}

TEST_CASE("p2p_efficiency changes an erasure-coded repair's reads and the first-order blocking stall") {
  {
    // 8 machines: shard 1.5 GB; groups of 4 with 1 parity read (g - p) c = 4.5 GB. f = 0.5:
    // 4.5 GB / 0.5 GB/s = 9 s, decode 4.5 GB at 10 GB/s = 0.45 s, load 1.5 s: 10.95 s
    // (6.45 s at f = 1, erasure_run_test.cpp).
    Scenario s = small_scenario(StrategyKind::erasure_coded);
    s.cluster.machines = 8;
    s.strategy.group_size = 4;
    s.strategy.parity = 1;
    s.cluster.network.p2p_efficiency = 0.5;
    CHECK(compute_strategy_costs(s, nullptr).retrieval_peer == SimTime::from_seconds(10.95));
  }
  {
    // In-memory blocking without the iteration model (training.iteration_time given): the m - 1 = 1
    // copy of c = 0.75 GB at G b_send. f = 0.5: 0.75 GB / 0.5 GB/s = 1.5 s.
    Scenario s = small_scenario(StrategyKind::in_memory_blocking);
    s.cluster.network.p2p_efficiency = 0.5;
    CHECK(compute_strategy_costs(s, nullptr).stall == SimTime::from_seconds(1.5));
    // Staged sends (no GPUDirect RDMA) over 50 MB/s PCIe links: 8 x 50 MB/s = 0.4 GB/s < f B_n
    // = 0.5 GB/s, so 0.75 GB / 0.4 GB/s = 1.875 s.
    s.cluster.gpudirect_rdma = false;
    s.cluster.gpu_cpu_bandwidth = 50e6;
    CHECK(compute_strategy_costs(s, nullptr).stall == SimTime::from_seconds(1.875));
  }
}
