// The ZeRO-3 iteration on the flow-level network (workload/zero3.hpp, iteration_model.hpp).
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/network/collectives.hpp"
#include "ckptsim/workload/iteration_model.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

TEST_CASE("GPT-2 100B on 16 p4d is compute bound: T = AG(layer) + all compute + RS(layer)") {
  const Scenario sc = testing::paper_scenario(16);
  const IterationModel m = simulate_iteration(sc);
  const TransformerShape& s = m.workload.shape;
  const double rate = 312e12 * 0.5;
  // Per layer: forward 6.666e12 / 1.56e14 = 42.7 ms; all-gather of 1.61 GB on 128 ranks
  // = 127 x 10 us + (127/128) x 1.611e9 / 50e9 = 33.2 ms < 42.7 ms, so with one stage of
  // prefetch each gather ends before the previous compute does, and compute runs back to
  // back; backward (128 ms) covers its gather + reduce-scatter (2 x 33.2 ms) as well.
  // Hence T = AG(first layer) + sum of compute + RS(layer 0) (the last reduce-scatter).
  CollectiveShape ag{CollectiveKind::all_gather, CollectiveAlgorithm::ring, s.layer_parameters() * 2, 8, microseconds(10)};
  const SimTime t_ag = collective_time_alpha_beta(16, ag, 50e9, 300e9);
  double compute_ns = 0;
  for (int k = 0; k < 124; ++k) {
    compute_ns += std::ceil(s.layer_forward_flops() / rate * 1e9) + std::ceil(s.layer_backward_flops() / rate * 1e9);
  }
  compute_ns += std::ceil(s.output_forward_flops() / rate * 1e9) + std::ceil(s.output_backward_flops() / rate * 1e9);
  const double expected = 2.0 * static_cast<double>(t_ag.ns()) + compute_ns;
  CHECK(static_cast<double>(m.profile.iteration_time.ns()) == doctest::Approx(expected).epsilon(1e-7));
  // About 21.3 s: 124 x (42.7 + 128.2) ms + output stage 64.9 ms + 2 x 33.2 ms.
  CHECK(m.profile.iteration_time.seconds() == doctest::Approx(21.32).epsilon(0.01));
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

TEST_CASE("a network-bound iteration: gathers dominate when compute is fast") {
  // Peak 1e16 FLOP/s at efficiency 1: 0.67 ms of forward per layer, far below a gather
  // (33 ms), so the iteration is at least the all-gather stream: 125 forward + 124 backward
  // gathers, each no shorter than on an idle network (>= 248 x one layer's gather).
  Scenario sc = testing::paper_scenario(16);
  sc.cluster.gpu_peak_flops = 1e16;
  sc.training.compute_efficiency = 1.0;
  const IterationModel m = simulate_iteration(sc);
  const TransformerShape& s = m.workload.shape;
  CollectiveShape ag{CollectiveKind::all_gather, CollectiveAlgorithm::ring, s.layer_parameters() * 2, 8, microseconds(10)};
  const double one = collective_time_alpha_beta(16, ag, 50e9, 300e9).seconds();
  CHECK(m.profile.iteration_time.seconds() > 248 * one);
}
