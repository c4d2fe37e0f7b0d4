// The ZeRO-3 iteration on the flow-level network (workload/zero3.hpp, iteration_model.hpp):
// each structural element on a case worked by hand.
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/workload/iteration_model.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

namespace {

// Idle-network time of a ring all-gather of `elements` fp16 parameters on `machines` x 8 GPUs
// (p4d: NIC 50e9 B/s, NVLink 300e9 B/s, 10 us per step).
SimTime gather_time(int machines, double elements) {
  const CollectiveShape ag{CollectiveKind::all_gather, CollectiveAlgorithm::ring, elements * 2, 8, microseconds(10)};
  return collective_time_alpha_beta(machines, ag, 50e9, 300e9);
}

const TaskTiming& timing(const IterationModel& m, int task) { return m.run.timing[static_cast<std::size_t>(task)]; }

}  // namespace

TEST_CASE("a late fetch stalls compute by exactly its gather") {
  // No prefetch, no reuse, one reduce-scatter at the very end, a synchronous host: every use's
  // gather is issued when the previous compute ends and nothing else is on the network, so
  // compute j starts exactly AG(module j) after compute j-1 ended (the closed form).
  Scenario sc = testing::paper_scenario(2);
  sc.model.layers = 2;
  sc.training.activation_recomputation = false;
  sc.training.zero3.prefetch_bucket_size = 0;
  sc.training.zero3.max_reuse_distance = 0;
  sc.training.zero3.reduce_bucket_size = 1e15;
  sc.training.zero3.host_lookahead = 0;
  const IterationModel m = simulate_iteration(sc);
  const Zero3Program p = make_zero3_program(m.workload.shape);
  const auto& c = m.workload.compute_tasks;
  REQUIRE(c.size() == p.uses.size());
  REQUIRE(m.workload.schedule.buckets.size() == 1);
  for (std::size_t j = 0; j < c.size(); ++j) {
    const double elements = p.modules[static_cast<std::size_t>(p.uses[j].module)].fetched(1e5);
    const SimTime previous_end = j == 0 ? SimTime::zero() : timing(m, c[j - 1]).end;
    const SimTime stall = timing(m, c[j]).start - previous_end;
    CHECK(std::abs(static_cast<double>((stall - gather_time(2, elements)).ns())) <= 2.0);
  }
}

TEST_CASE("reuse distance in backward: FC2 and FC1 stay gathered from the recomputation, QKV is fetched again") {
  // GPT-2 100B on 16 p4d, backward of layer 60 with recomputation: uses QKV_r, O_r, FC1_r,
  // FC2_r, FC2_b, FC1_b, O_b, QKV_b (elements: QKV 2.01e8, O 6.7e7, FC1 = FC2 2.68e8).
  //   FC2_r -> FC2_b: nothing between, kept;  FC1_r -> FC1_b: FC2_r + FC2_b = 5.4e8 < 1e9, kept;
  //   QKV_r -> QKV_b: O_r + FC1_r + FC2_r + FC2_b = 8.7e8 < 1e9, then + FC1_b = 1.14e9 >= 1e9
  //   before O_b and QKV_b are reached: released, gathered again.
  // So FC2_b and FC1_b wait on the recomputation's gathers (long done: they start the moment
  // the previous compute ends) while QKV_b waits on a new gather.
  const Scenario sc = testing::paper_scenario(16);
  const IterationModel m = simulate_iteration(sc);
  const Zero3Program p = make_zero3_program(m.workload.shape);
  const auto& waits = m.workload.schedule.waits_on;
  const auto& c = m.workload.compute_tasks;
  std::size_t first = 0;
  while (!(p.layer[first] == 60 && p.category[first] == TaskCategory::recompute)) ++first;
  const std::size_t qkv_r = first, fc1_r = first + 2, fc2_r = first + 3;
  const std::size_t fc2_b = first + 4, fc1_b = first + 5, qkv_b = first + 7;
  REQUIRE(p.uses[qkv_b].module == p.uses[qkv_r].module);
  CHECK(waits[fc2_b] == waits[fc2_r]);
  CHECK(waits[fc1_b] == waits[fc1_r]);
  CHECK(waits[qkv_b] != waits[qkv_r]);
  CHECK(timing(m, c[fc2_b]).start == timing(m, c[fc2_b - 1]).end);
  CHECK(timing(m, c[fc1_b]).start == timing(m, c[fc1_b - 1]).end);
}

TEST_CASE("the boundary synchronization and the optimizer step end the iteration in one idle span") {
  const Scenario sc = testing::paper_scenario(16);
  const IterationModel m = simulate_iteration(sc);
  const Task& boundary = m.workload.graph.task(m.workload.boundary_task);
  const Task& step = m.workload.graph.task(m.workload.optimizer_task);
  // The boundary (workload/step_phases.hpp): the overflow check and the gradient norm, plus two
  // scalar all-reduces (overflow flag, gradient norm), each a ring reduce-scatter and
  // all-gather over 128 ranks: 2 x 2 x 127 x 10 us = 5.08 ms of latency. The norm reads each
  // 16-bit gradient, writes and reads it in fp64: 18 B per element of the rank's partition,
  // E = P / 128 = 100,282,982,400 / 128 = 783,460,800, through the A100's HBM at the measured
  // triad fraction, 1,555 GB/s x 1.70 / 2.039 = 1.29647e12 B/s: 10.8775 ms. Launches: two per
  // tensor (3 + 12 x 124 = 1,491 tensors), 3 for the sum, 3 copies, and 3 syncs at one launch
  // each: 2,992 x 3 us = 8.976 ms. Total 19.8535 ms + 5.08 ms = 24.934 ms.
  CHECK(boundary.duration.seconds() == doctest::Approx(0.0249335).epsilon(2e-4));
  // The step: 52 B per element (flatten 4, to fp32 6, unscale 8, fused Adam 28, fp16 copy 6):
  // 52 E / 1.29647e12 = 31.4239 ms; launches 4 + ceil(E / (65536 x 320)) = 38 Adam = 42, the
  // step end's 2 syncs and 2 batch copies: 46 x 3 us = 138 us; 2 x 8 x 4096 B of token ids and
  // labels over 25 GB/s: 2.6 us. Total 31.5645 ms (the HBM bound alone, 50 B at the data
  // sheet's 1,555 GB/s, was 25.9 ms).
  CHECK(step.duration.seconds() == doctest::Approx(0.0315645).epsilon(2e-4));
  // The iteration ends with the step; the last span starts when the last reduce-scatter ends
  // and covers (at least) the boundary and the step.
  CHECK(m.profile.iteration_time == timing(m, m.workload.optimizer_task).end);
  const IdleSpan& last = m.profile.machine_spans.at(0).back();
  CHECK(last.start + last.length == m.profile.iteration_time);
  CHECK(last.start == timing(m, m.workload.reduce_tasks.back()).end);
  CHECK(last.length >= boundary.duration + step.duration);
}

TEST_CASE("a network-bound iteration still shows the idle time its dependencies create") {
  // Peak 1e16 FLOP/s at efficiency 1: compute is far faster than the gathers, so the all-gather
  // stream (one gather at a time, none faster than on an idle network) bounds the iteration
  // from below, compute stalls on its parameters, and the network still idles through the
  // boundary and the optimizer step.
  Scenario sc = testing::paper_scenario(16);
  sc.cluster.gpu_peak_flops = 1e16;
  sc.training.compute_efficiency = 1.0;
  const IterationModel m = simulate_iteration(sc);
  SimTime gathers;
  for (const GatherGroup& g : m.workload.schedule.gathers) gathers += gather_time(16, g.elements);
  CHECK(m.profile.iteration_time >= gathers);
  const SimTime tail = m.workload.graph.task(m.workload.boundary_task).duration +
                       m.workload.graph.task(m.workload.optimizer_task).duration;
  CHECK(m.profile.idle_time(0) >= tail);
  SimTime stalled;
  const auto& c = m.workload.compute_tasks;
  for (std::size_t j = 1; j < c.size(); ++j) stalled += timing(m, c[j]).start - timing(m, c[j - 1]).end;
  CHECK(stalled.seconds() > 0.5 * m.profile.iteration_time.seconds());
}

TEST_CASE("idle spans never overlap training traffic, and spans + busy time = iteration") {
  Scenario sc = testing::paper_scenario(4);
  sc.model.layers = 6;
  const IterationModel m = simulate_iteration(sc);
  const auto& spans = m.profile.machine_spans.at(0);
  REQUIRE(!spans.empty());
  SimTime busy;
  for (int id : m.workload.network_tasks) {
    const TaskTiming& t = m.run.timing[static_cast<std::size_t>(id)];
    for (const IdleSpan& s : spans) {
      const bool overlap = t.ready < s.start + s.length && s.start < t.end;
      CHECK_FALSE(overlap);
    }
  }
  for (const IdleSpan& s : spans) busy += s.length;
  CHECK(busy == m.profile.idle_time(0));
  CHECK(busy < m.profile.iteration_time);
  // Every machine of a symmetric ZeRO-3 iteration sees the same spans.
  for (const auto& other : m.profile.machine_spans) CHECK(other.size() == spans.size());
  // Spans open at the end of their anchor transfer.
  for (const IdleSpan& s : spans) {
    if (s.anchor >= 0) CHECK(m.run.timing[static_cast<std::size_t>(s.anchor)].end == s.start);
  }
}

TEST_CASE("at a low collective factor with host staging the iteration is network-bound and still idles") {
  // f = 0.25 of the 50e9 B/s NIC and no GPUDirect RDMA: every gather runs at most at
  // min(0.25 x 50e9, 8 x 25e9 PCIe) = 12.5e9 B/s, so the one all-gather stream alone takes
  // at least the sum of the gathers' closed-form times at that rate; the network still idles
  // through the boundary and the optimizer step, which wait for the last reduce-scatter.
  Scenario sc = testing::paper_scenario(16);
  sc.cluster.network.collective_efficiency = 0.25;
  sc.cluster.gpudirect_rdma = false;
  const IterationModel m = simulate_iteration(sc);
  SimTime gathers;
  for (const GatherGroup& g : m.workload.schedule.gathers) {
    const CollectiveShape ag{CollectiveKind::all_gather, CollectiveAlgorithm::ring, g.elements * 2, 8, microseconds(10),
                             0.25, true};
    gathers += collective_time_alpha_beta(16, ag, 50e9, 300e9, 25e9);
  }
  CHECK(m.profile.iteration_time >= gathers);
  const IterationBreakdown b = breakdown(m);
  // Each NIC moves about 3 collectives x 2 B x 1.003e11 parameters x 127/128 = 597 GB, at least
  // 47.8 s at 12.5e9 B/s, while compute is about 21 s (0.5 x 312 TFLOPS, built in code): the compute
  // stream waits for parameters longer than it computes.
  CHECK(b.exposed_communication > b.compute);
  CHECK(m.profile.idle_time(0) >= b.boundary + b.optimizer);
  CHECK(span_distribution(m.profile.machine_spans.at(0)).longest >= b.boundary + b.optimizer);
}
