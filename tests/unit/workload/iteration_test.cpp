// The iteration model end to end on GEMINI's p4d testbed (workload/iteration_model.hpp): bounds
// from closed forms, and what every engine's iteration keeps.
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/workload/iteration_analysis.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

namespace {

// The all-gathers of the program, in issue order: their bytes (S).
std::vector<double> gather_bytes(const IterationModel& m) {
  std::vector<double> out;
  for (const ProgramOp& op : m.workload.program.program.ops()) {
    if (op.kind == ProgramOp::Kind::collective && op.category == TaskCategory::all_gather) out.push_back(op.bytes);
  }
  return out;
}

}  // namespace

TEST_CASE("the NCCL stream bounds the iteration: at least every collective's closed-form time, one after another") {
  // f = 0.25 of the 50e9 B/s NIC and no GPUDirect RDMA: every collective runs at most at
  // min(0.25 x 50e9, 8 x 25e9 PCIe) = 12.5e9 B/s. All-gathers and reduce-scatters share the
  // data-parallel group's NCCL stream, so they run one at a time: the iteration lasts at least
  // the sum of the gathers' closed-form times at that rate.
  for (EngineKind engine : {EngineKind::deepspeed_zero3, EngineKind::fsdp}) {
    Scenario sc = testing::paper_scenario(16);
    sc.training.engine = engine;
    sc.cluster.network.collective_efficiency = 0.25;
    sc.cluster.gpudirect_rdma = false;
    const IterationModel m = simulate_iteration(sc);
    SimTime gathers;
    for (double bytes : gather_bytes(m)) {
      const CollectiveShape ag{CollectiveKind::all_gather, CollectiveAlgorithm::ring, bytes, 8, microseconds(10), 0.25, true};
      gathers += collective_time_alpha_beta(16, ag, 50e9, 300e9, 25e9);
    }
    CHECK(m.profile.iteration_time >= gathers);
    // Each NIC carries about 3 x 2 B x 1.003e11 parameters x 127/128 = 597 GB of collectives, at
    // least 47.8 s at 12.5e9 B/s, while compute is about 21 s (0.5 x 312 TFLOPS): compute waits
    // longer than it computes.
    const IterationBreakdown b = breakdown(m);
    CHECK(b.exposed_total() > b.compute());
  }
}

TEST_CASE("a compute-bound iteration on a fast network: the step is one network-silent span") {
  // Peak 1e13 FLOP/s: every use computes for longer than its gather takes, so compute barely
  // waits; the optimizer step (DeepSpeed's update phases, step_phases.hpp) follows the last
  // collectives and no collective runs during it.
  Scenario sc = testing::paper_scenario(16);
  sc.cluster.gpu_peak_flops = 1e13;
  const IterationModel m = simulate_iteration(sc);
  const IterationBreakdown b = breakdown(m);
  CHECK(b.exposed_total().seconds() < 0.05 * b.compute().seconds());
  const SimTime step = b.phase(TaskCategory::optimizer);
  // The update over E = P / 128 = 100,282,982,400 / 128 = 783,460,800 elements: flatten 4 B,
  // to fp32 6 B, unscale 8 B, fused Adam 28 B, back to 16 bits 6 B = 52 E B through the A100's
  // HBM at the triad fraction, 1,555 GB/s x 1.70 / 2.039 = 1.29647e12 B/s: 31.4237 ms; launches
  // 4 (one sub-group) + ceil(E / (65536 x 320)) = 38 Adam = 42 x 3 us = 0.126 ms. 31.5497 ms.
  CHECK(step.seconds() == doctest::Approx(0.0315497).epsilon(2e-4));
  const SpanDistribution silent = span_distribution(m.profile.silent_spans.at(0));
  CHECK(silent.longest >= step);
  const SpanDistribution profiler = span_distribution(m.profile.machine_spans.at(0));
  CHECK(profiler.longest >= step);
}

TEST_CASE("every machine of a symmetric iteration sees the same spans, in both views") {
  Scenario sc = testing::paper_scenario(4);
  sc.model.layers = 6;
  for (EngineKind engine : {EngineKind::deepspeed_zero3, EngineKind::fsdp}) {
    sc.training.engine = engine;
    const IterationModel m = simulate_iteration(sc);
    for (const auto& spans : m.profile.machine_spans) CHECK(spans.size() == m.profile.machine_spans.front().size());
    for (const auto& spans : m.profile.silent_spans) CHECK(spans.size() == m.profile.silent_spans.front().size());
    CHECK(m.profile.silent_time(0) >= m.profile.idle_time(0));
  }
}

TEST_CASE("GEMINI's p4d testbed at its measured collective factor is network-bound: little idle for the profiler") {
  // docs/sweeps.md's ETTR-vs-machines explanation, from closed forms. The p4d preset's collective
  // factor at 16 nodes is its last measured point, 29.61 / 50 = 0.5922 (NCCL issue 527). With a
  // complete trace DeepSpeed moves 3 x 2P bytes per step (forward and backward all-gathers, the
  // reduce-scatter); a ring over the 128 ranks puts 127/128 of each through every NIC:
  // 3 x 2 B x 100,282,982,400 x 127/128 = 596.93 GB, at 0.5922 x 50e9 B/s = 2.961e10 B/s at
  // least 20.16 s of the NCCL stream per iteration. So the iteration lasts at least that, and
  // the profiler, which counts a collective busy from its start to its last byte, sees at most
  // the rest of the iteration idle; the network-silent view sees at least as much idle.
  Scenario sc = testing::paper_scenario(16);
  sc.cluster.network.collective_efficiency = 29.61 / 50;
  const IterationModel m = simulate_iteration(sc);
  const IterationBreakdown b = breakdown(m);
  const double traffic_s = 3 * 2.0 * 100282982400.0 * 127 / 128 / (29.61 / 50 * 50e9);
  CHECK(traffic_s == doctest::Approx(20.16).epsilon(1e-3));
  CHECK(m.profile.iteration_time.seconds() >= traffic_s);
  // Kernels alone take less: at most the iteration less the compute stream's waits, and the
  // FLOP count 4 x 2 x P x 4096 tokens (forward, recompute, backward twice) over 312 TFLOPS is
  // 10.5 s, so compute lies between 10.5 s and 20.16 s: compute waits for the network.
  CHECK(b.compute().seconds() >= 4 * 2 * 100282982400.0 * 4096 / 312e12);
  CHECK(b.compute().seconds() < traffic_s);
  CHECK(b.profiler_idle.seconds() <= m.profile.iteration_time.seconds() - traffic_s);
  CHECK(b.profiler_idle <= b.silent_idle);
}
