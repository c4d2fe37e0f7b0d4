// Checkpoint traffic on different topologies and replica counts (checkpoint/checkpoint_run.hpp).
#include <doctest/doctest.h>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "../workload/paper_scenario.hpp"

using namespace ckptsim;

namespace {

// Blocking send time of the whole checkpoint on an idle network.
SimTime blocking_send(const Scenario& sc) {
  const IterationStudy study = prepare_iteration_study(sc);
  const CheckpointPlan plan = make_plan(SchedulerKind::blocking, study.input);
  return run_checkpoint_alone(study.model.topology, plan, study.placement, sc.cluster.gpus_per_machine, study.input.alpha)
      .sends_done;
}

Scenario leaf_spine(double oversubscription) {
  Scenario s = testing::paper_scenario(8);
  s.model.layers = 4;
  s.model.parameters = 0;
  s.cluster.network.topology = NetworkTopology::leaf_spine;
  s.cluster.network.machines_per_leaf = 2;
  s.cluster.network.oversubscription = oversubscription;
  s.strategy.placement = PlacementScheme::ring;  // i -> i+1: half the pairs cross leaves
  return s;
}

}  // namespace

TEST_CASE("oversubscribed leaf uplinks slow checkpoint traffic that crosses leaves") {
  // Ring placement, 2 machines per leaf: machine 2l+1 sends to 2l+2 on the next leaf, so each
  // leaf uplink carries one machine's 8 GPU streams (weight 8), next to the NIC (weight 8, B).
  // o = 1: uplink 2B >= B, the NIC limits: x = B/8.  o = 4: uplink 2B/4 = B/2 limits: x = B/16.
  // Every rank sends in lockstep (one aggregated flow), so the send time doubles.
  const SimTime full = blocking_send(leaf_spine(1.0));
  const SimTime over = blocking_send(leaf_spine(4.0));
  CHECK(over.seconds() == doctest::Approx(2.0 * full.seconds()).epsilon(0.01));
  // Group placement keeps each pair {2l, 2l+1} inside its leaf: oversubscription is harmless.
  Scenario g = leaf_spine(4.0);
  g.strategy.placement = PlacementScheme::group;
  CHECK(blocking_send(g).seconds() == doctest::Approx(full.seconds()).epsilon(0.01));
}

TEST_CASE("an oversubscribed pod uplink of a fat tree slows checkpoint traffic that crosses pods") {
  // Fat tree with one leaf of 2 machines per pod, leaves at full bisection: the pairs that cross
  // leaves cross pods. Pod oversubscription 4: each pod uplink is 2B / (1 x 4) = B/2 for one
  // machine's 8 GPU streams, so x = B/16 as for an oversubscribed leaf (above): twice the time.
  const SimTime full = blocking_send(leaf_spine(1.0));
  Scenario pods = leaf_spine(1.0);
  pods.cluster.network.topology = NetworkTopology::fat_tree;
  pods.cluster.network.leaves_per_pod = 1;
  pods.cluster.network.pod_oversubscription = 4.0;
  CHECK(blocking_send(pods).seconds() == doctest::Approx(2.0 * full.seconds()).epsilon(0.01));
  // Pods of 4 leaves (8 machines, the whole cluster): nothing crosses the core.
  pods.cluster.network.leaves_per_pod = 4;
  CHECK(blocking_send(pods).seconds() == doctest::Approx(full.seconds()).epsilon(0.01));
}

TEST_CASE("three replicas send two copies; one replica sends nothing") {
  Scenario sc = testing::paper_scenario(6);
  sc.model.layers = 4;
  sc.model.parameters = 0;
  sc.strategy.replicas = 3;
  const IterationStudy three = prepare_iteration_study(sc);
  const SchedulerOutcome o3 = evaluate_scheduler(three, SchedulerKind::gemini);
  CHECK(o3.plan.copies == 2);
  CHECK(o3.plan.sent_bytes() == doctest::Approx(2 * three.input.shard_bytes));
  // Blocking time with two copies is about twice one copy's (NIC-bound: (m-1)·C / B).
  const double one_copy = three.input.shard_bytes / three.input.bandwidth;
  CHECK(blocking_send(sc).seconds() == doctest::Approx(2 * one_copy).epsilon(0.01));

  sc.strategy.replicas = 1;
  const IterationStudy one = prepare_iteration_study(sc);
  const SchedulerOutcome o1 = evaluate_scheduler(one, SchedulerKind::gemini);
  CHECK(o1.plan.chunks.empty());
  CHECK(o1.min_every_iterations == 1);
  // Only the local copy: C over PCIe at 25 GB/s.
  CHECK(o1.checkpoint_time.seconds() >= one.input.shard_bytes / 25e9);
}

TEST_CASE("hierarchical collectives: same bytes through the NIC, fewer latency steps") {
  Scenario ring = testing::paper_scenario(16);
  ring.model.layers = 8;
  ring.model.parameters = 0;
  Scenario hier = ring;
  hier.cluster.network.collective = CollectiveAlgorithm::hierarchical;
  const IterationModel a = simulate_iteration(ring);
  const IterationModel b = simulate_iteration(hier);
  // Both mostly compute bound (8 layers: ~1.5 s). Each hierarchical collective pays 15 + 7
  // latency steps instead of 127 (105 x 10 us = 1.05 ms less) and adds an NVLink phase. The
  // step's gathers of the 8 x 8 + 2 = 66 persistent tensors run back to back with compute and
  // host waiting for them (DeepSpeed's _post_step), so their 66 x 1.05 = 69.3 ms of latency come
  // off the iteration; of the other ~80 collectives only the few that stall compute (the
  // first ones, the embedding's) count, a few percent at most.
  const double saved = 66 * 105 * 10e-6;
  CHECK(a.profile.iteration_time.seconds() - b.profile.iteration_time.seconds() >= saved - 1e-9);
  CHECK(b.profile.iteration_time.seconds() == doctest::Approx(a.profile.iteration_time.seconds() - saved).epsilon(0.03));
  // Each all-gather and reduce-scatter has one phase as a ring, two hierarchical (inter-node,
  // then intra-node for a gather); only the inter-node one crosses a NIC.
  auto phases = [](const IterationModel& m) {
    int n = 0;
    for (const Task& t : m.workload.graph().tasks()) {
      n += t.kind == TaskKind::transfer && (t.category == TaskCategory::all_gather || t.category == TaskCategory::reduce_scatter);
    }
    return n;
  };
  CHECK(phases(b) == 2 * phases(a));
  CHECK(b.workload.built.network_tasks.size() == a.workload.built.network_tasks.size());
}
