// The iteration study on a megatron layout (workload/parallelism_model.hpp): the megatron unit's
// idle spans and step start, and whether a checkpoint hides in them, on cases worked by hand.
#include <doctest/doctest.h>

#include <cmath>

#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/workload/megatron_iteration.hpp"
#include "ckptsim/workload/parallelism_model.hpp"
#include "../common/scenario_documents.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// No pipeline (common/scenario_documents.hpp): only the data-parallel collectives cross the
/// network, after the schedule.
json single_stage(double checkpoint_bytes_per_parameter) { return test::megatron_single_stage_document(checkpoint_bytes_per_parameter); }

Scenario load_document(const json& doc) { return load_scenario_json(doc, "test.json", "."); }

}  // namespace

TEST_CASE("parallelism models: one unit per kind, in the name table's order") {
  for (const auto& row : EnumNames<Parallelism>::table) {
    const ParallelismModel& unit = parallelism_model(row.value);
    CHECK(unit.kind() == row.value);
    CHECK(!unit.description().empty());
  }
}

TEST_CASE("parallelism models: spans outside busy intervals, cut at the step") {
  auto t = [](int ms) { return milliseconds(ms); };
  // Busy [2, 4], [3, 5] (overlapping, out of order) and [8, 9] ms: idle [0, 2), [5, 8), [9, 10).
  const auto spans = spans_outside({{t(8), t(9)}, {t(3), t(5)}, {t(2), t(4)}}, t(10));
  REQUIRE(spans.size() == 3);
  CHECK(spans[0].start == t(0));
  CHECK(spans[0].length == t(2));
  CHECK(spans[1].start == t(5));
  CHECK(spans[1].length == t(3));
  CHECK(spans[2].start == t(9));
  CHECK(spans[2].length == t(1));
  // Cut at 8.5 ms: [9, 10) is gone, [5, 8) stays whole (it ends before the cut); cut at 7 ms,
  // the second span is [5, 7).
  const auto cut = spans_outside({{t(8), t(9)}, {t(3), t(5)}, {t(2), t(4)}}, t(8) + microseconds(500));
  REQUIRE(cut.size() == 2);
  CHECK(cut[1].length == t(3));
  const auto inside = spans_outside({{t(8), t(9)}, {t(3), t(5)}, {t(2), t(4)}}, t(7));
  REQUIRE(inside.size() == 2);
  CHECK(inside[1].start == t(5));
  CHECK(inside[1].length == t(2));
}

TEST_CASE("megatron study: one stage's idle span is its whole schedule, the step starts after the reduce") {
  const Scenario s = load_document(single_stage(12));
  const MegatronIteration it = simulate_megatron_iteration(s);
  const IterationModel m = simulate_parallelism(s);
  const MegatronStage& st = it.stages.front();
  // With p = 1 there is no bubble: the rank runs its 4 forwards and backwards back to back, and
  // the network carries nothing until the gradient reduce-scatter after the schedule. So the
  // one span is [0, 4 (F + B)), and the step starts when the (not overlapped) reduce ends.
  const SimTime schedule = 4 * (st.forward + st.backward);
  CHECK(st.schedule_end == schedule);
  REQUIRE(m.profile.machine_spans.size() == 2);
  for (const auto& spans : m.profile.machine_spans) {
    REQUIRE(spans.size() == 1);
    CHECK(spans[0].start == SimTime::zero());
    CHECK(spans[0].length == schedule);
  }
  REQUIRE(m.step_start.has_value());
  CHECK(*m.step_start == schedule + st.grad_reduce_exposed);
  // No training task graph: the study plans at clock times (checkpoint_run.hpp).
  CHECK_FALSE(m.has_training_graph());
  // The shard is the stage's state over its d = 2 data-parallel ranks.
  REQUIRE(m.checkpoint_shard_bytes.has_value());
  CHECK(*m.checkpoint_shard_bytes == doctest::Approx(12 * st.parameters / 2));
}

TEST_CASE("megatron study: the checkpoint hides in the schedule's span or lengthens the step, by arithmetic") {
  const Scenario base = load_document(single_stage(12));
  const MegatronIteration it = simulate_megatron_iteration(base);
  const MegatronStage& st = it.stages.front();
  const SimTime span = 4 * (st.forward + st.backward);
  // One copy (replicas 2) of a GPU's shard C = c·Φ_r / d through its share of the NIC at the
  // point-to-point rate, B = f_p2p · B_net / G. Choose c so that C / B is a quarter of the span
  // (hides, with mu = 0.9 and the chunks' latencies far below a quarter span) or four spans
  // (cannot hide in one iteration: at least ceil(4 / mu) = 5 iterations' spans, and the step
  // waits for the sends, which take at least C / B).
  const double bandwidth = base.cluster.network.p2p_efficiency * base.cluster.network_bandwidth / base.cluster.gpus_per_machine;
  const double per_byte = bandwidth * span.seconds() / (st.parameters / 2);
  {
    const Scenario s = load_document(single_stage(0.25 * per_byte));
    const IterationCosts c = compute_iteration_costs(s);
    CHECK(c.iteration_time == it.iteration_time);
    CHECK(c.iteration_time_with_checkpoint == it.iteration_time);
    CHECK(c.min_every_iterations == 1);
  }
  {
    const Scenario s = load_document(single_stage(4 * per_byte));
    const IterationStudy study = prepare_iteration_study(s);
    CHECK(study.input.shard_bytes == doctest::Approx(4 * bandwidth * span.seconds()));
    const IterationCosts c = compute_iteration_costs(s);
    CHECK(c.min_every_iterations >= 5);
    const SimTime sends = SimTime::from_ns(static_cast<std::int64_t>(4 * span.seconds() * 1e9));
    const SimTime step = span + st.grad_reduce_exposed;
    CHECK(c.iteration_time_with_checkpoint - c.iteration_time >= sends - step - microseconds(1));
  }
}

TEST_CASE("megatron study: the work estimate bounds every machine's spans") {
  // 2 machines, p = 1, v = 1, m = 4: at most 1 x (6 x 4 x 1 + 3) + 1 = 28 spans per machine and
  // view, plus one per gradient bucket (at most P / 4e7) in the silent view, 24 B each:
  // 24 x 2 x (2 x 28 + P / 4e7) B; the megatron unit's two estimates (schedule, spans).
  const Scenario s = load_document(single_stage(12));
  const std::vector<WorkEstimate> e = parallelism_model(Parallelism::megatron).work(s);
  REQUIRE(e.size() == 2);
  const double buckets = s.model.parameters / 4e7;
  CHECK(e[1].amount == doctest::Approx(24.0 * 2 * (2 * 28 + buckets)));
  CHECK(e[1].amount < e[1].limit);
  // The spans simulated are within it, in both views.
  const IterationModel m = simulate_parallelism(s);
  for (const auto& spans : m.profile.machine_spans) CHECK(spans.size() <= 28);
  for (const auto& spans : m.profile.silent_spans) CHECK(static_cast<double>(spans.size()) <= 28 + buckets + 1);
}

TEST_CASE("megatron study: the network-silent view leaves out the wait of an overlapped reduce for its gradients") {
  // single_stage with the gradient reduce overlapped: Φ_r = 1/8 of ~8.3e7 parameters is one
  // bucket (buckets of max(4e7, 1e6 d) = 4e7 parameters), ready when the last backward ends. The
  // profiler view counts the reduce from its launch at the start of the last backward (p = 1: the
  // last micro-batch's backward, st.backward) to its last byte; the silent view only the bucket's
  // own bytes after the schedule. Nothing else crosses the network in that window (t = 8 on
  // NVLink, no pipeline), so silent idle = profiler idle + one micro-batch's backward.
  json doc = single_stage(12);
  doc["training"]["megatron"]["overlap_grad_reduce"] = true;
  const Scenario s = load_document(doc);
  const MegatronIteration it = simulate_megatron_iteration(s);
  const MegatronStage& st = it.stages.front();
  CHECK(st.silent_time() - st.idle_time() == st.backward);
  // Without overlap the two views agree: the reduce starts when the schedule ends.
  const MegatronIteration plain = simulate_megatron_iteration(load_document(single_stage(12)));
  CHECK(plain.stages.front().silent_time() == plain.stages.front().idle_time());
  // The study's profile carries the silent view for every machine: with one stage, its spans.
  const IterationModel m = simulate_parallelism(s);
  REQUIRE(m.profile.silent_spans.size() == 2);
  CHECK(m.profile.silent_time(0) == st.silent_time());
  CHECK(m.profile.silent_time(1) == st.silent_time());
}

TEST_CASE("megatron study: each pipeline stage's machines form a span group and plan in their own spans") {
  // t = 8 = G, p = 2, d = 2 on 4 DGX A100: machine m holds data-parallel index m mod 2 of stage
  // m div 2 (rank n = i_t + 8 (i_d + 2 i_p)), so machines {0, 1} are stage 0 and {2, 3} stage 1.
  json doc = single_stage(12);
  doc["cluster"]["machines"] = 4;
  doc["training"]["megatron"]["pp"] = 2;
  const Scenario s = load_document(doc);
  const MegatronIteration it = simulate_megatron_iteration(s);
  const IterationModel m = simulate_parallelism(s);
  CHECK(m.group_of == std::vector<int>{0, 0, 1, 1});
  REQUIRE(m.group_spans.size() == 2);
  // Each group's spans are the gaps of its own stage's busy intervals, cut at the step's start.
  for (int p = 0; p < 2; ++p) {
    std::vector<std::pair<SimTime, SimTime>> busy;
    for (const PipelineSpan& iv : it.stages[static_cast<std::size_t>(p)].network_busy) busy.emplace_back(iv.from, iv.to);
    const auto own = spans_outside(busy, *m.step_start);
    REQUIRE(m.group_spans[static_cast<std::size_t>(p)].size() == own.size());
    for (std::size_t k = 0; k < own.size(); ++k) {
      CHECK(m.group_spans[static_cast<std::size_t>(p)][k].start == own[k].start);
      CHECK(m.group_spans[static_cast<std::size_t>(p)][k].length == own[k].length);
    }
  }
  // Group placement pairs {0, 1} and {2, 3}: data-parallel peers of one stage, so each stage plans
  // alone. A ring (1 -> 2 crosses from stage 0 to stage 1) keeps one plan in the shared spans.
  const IterationStudy study = prepare_iteration_study(s);
  REQUIRE(study.span_groups.size() == 2);
  // Each stage is a block of two machines that starts a leaf (one switch here): simulated alone,
  // its pair renumbered {0, 1}.
  for (const SpanGroup& g : study.span_groups) {
    REQUIRE(g.topology.has_value());
    CHECK(g.topology->machines() == 2);
    CHECK(g.placement.holders == std::vector<std::vector<int>>{{0, 1}, {0, 1}});
  }
  Scenario ring = s;
  ring.strategy.placement = PlacementScheme::ring;
  CHECK(prepare_iteration_study(ring).span_groups.empty());
}

TEST_CASE("iteration study: span groups take the worst group's outcome; their shared spans may hold nothing") {
  // By hand: 4 machines of 1 GPU, NIC 1 GB/s, PCIe and NVLink fast; no training graph, the step
  // starts at 2 s. Group 0 (machines 0, 1) is idle over [0, 1) s, group 1 (2, 3) over [1, 2) s:
  // no instant is idle on every machine. Each GPU sends its 0.4 GB shard to its pair's other
  // machine at 1 GB/s: 0.4 s, within a span at safety 0.8 (0.8 s usable).
  Scenario sc;
  sc.cluster.machines = 4;
  sc.cluster.gpus_per_machine = 1;
  sc.cluster.network_bandwidth = 1e9;
  sc.cluster.gpu_cpu_bandwidth = 1e12;
  sc.cluster.nvlink_bandwidth = 1e12;
  IterationModel model{Topology::build(sc.cluster), {}, {}, {}, {}, seconds(2), {}, {0, 0, 1, 1},
                       {{IdleSpan{seconds(0), seconds(1), -1}}, {IdleSpan{seconds(1), seconds(1), -1}}}};
  model.profile.iteration_time = seconds(2);
  IterationStudy study{sc, model, group_placement(4, 2), {}, {}, 1e12, seconds(2), seconds(2)};
  study.input.shard_bytes = 0.4e9;
  study.input.copies = 1;
  study.input.buffer_bytes = 1e9;
  study.input.bandwidth = 1e9;
  CHECK(copies_stay_in_groups(study.placement, model.group_of));
  // One plan in the shared spans (none): everything is left over, the step waits for it.
  const SchedulerOutcome shared = evaluate_scheduler(study, SchedulerKind::gemini);
  CHECK_FALSE(shared.fits_in_one_iteration);
  CHECK(shared.iteration_time_with_checkpoint > seconds(2));
  // One plan per group: group 0 sends over [0, 0.4) s, group 1 over [1, 1.4) s; both end before
  // the step at 2 s, so the iteration keeps its 2 s; the checkpoint is done when group 1's is.
  study.span_groups = make_span_groups(sc, model, study.placement, study.input);
  REQUIRE(study.span_groups.size() == 2);
  const SchedulerOutcome grouped = evaluate_scheduler(study, SchedulerKind::gemini);
  // The same on every machine (no group alone): the pairs share no link, so nothing changes.
  IterationStudy everywhere = study;
  for (SpanGroup& g : everywhere.span_groups) g.topology.reset();
  const SchedulerOutcome grouped_everywhere = evaluate_scheduler(everywhere, SchedulerKind::gemini);
  CHECK(grouped_everywhere.iteration_time_with_checkpoint == grouped.iteration_time_with_checkpoint);
  CHECK(grouped_everywhere.checkpoint_time == grouped.checkpoint_time);
  CHECK(grouped.fits_in_one_iteration);
  CHECK(grouped.iteration_time_with_checkpoint == seconds(2));
  CHECK(grouped.min_every_iterations == 1);
  CHECK(grouped.checkpoint_time >= SimTime::from_seconds(1.4));
  CHECK(grouped.checkpoint_time < seconds(2));
  CHECK(study.planned_idle_time() == seconds(1));
}

TEST_CASE("megatron study: a data-parallel ring across an oversubscribed pod uplink moves at its share") {
  // t = 8, p = 1, d = 2 on 2 DGX A100: the gradient reduce is a ring over the 2 machines. In a fat
  // tree with one machine per pod and pods at 1:4, its edges cross pod uplinks of B/4 with one
  // machine's streams: the reduce's transfer takes 4 times as long (its per-step latency aside).
  const Scenario flat = load_document(single_stage(12));
  Scenario tree = flat;
  tree.cluster.network.topology = NetworkTopology::fat_tree;
  tree.cluster.network.machines_per_leaf = 1;
  tree.cluster.network.leaves_per_pod = 1;
  tree.cluster.network.pod_oversubscription = 4.0;
  const MegatronIteration a = simulate_megatron_iteration(flat);
  const MegatronIteration b = simulate_megatron_iteration(tree);
  const double alpha = flat.cluster.network.latency.seconds();
  CHECK((b.grad_reduce.seconds() - alpha) == doctest::Approx(4.0 * (a.grad_reduce.seconds() - alpha)).epsilon(0.01));
}

TEST_CASE("span groups: a block is simulated alone only where the network splits it as it splits the cluster") {
  // Fat tree of 8 machines, 2 per leaf, 2 leaves per pod (pods {0..3}, {4..7}). Group 0 = {0, 1}
  // starts a leaf inside pod 0: alone. Group 1 = {2..5} starts a leaf but crosses from pod 0 to
  // pod 1 away from a pod's start: alone it would be one pod, so it runs on every machine.
  // Group 2 = {6, 7} lies within pod 1: alone.
  Scenario sc;
  sc.cluster.machines = 8;
  sc.cluster.gpus_per_machine = 1;
  sc.cluster.network_bandwidth = 1e9;
  sc.cluster.network.topology = NetworkTopology::fat_tree;
  sc.cluster.network.machines_per_leaf = 2;
  sc.cluster.network.leaves_per_pod = 2;
  IterationModel model{Topology::build(sc.cluster), {}, {}, {}, {}, seconds(2), {}, {0, 0, 1, 1, 1, 1, 2, 2},
                       {{}, {}, {}}};
  const auto groups = make_span_groups(sc, model, group_placement(8, 2), ScheduleInput{});
  REQUIRE(groups.size() == 3);
  REQUIRE(groups[0].topology.has_value());
  CHECK(groups[0].topology->machines() == 2);
  CHECK_FALSE(groups[1].topology.has_value());
  REQUIRE(groups[2].topology.has_value());
  CHECK(groups[2].placement.holders == std::vector<std::vector<int>>{{0, 1}, {0, 1}});
}

TEST_CASE("megatron study: run_with_checkpoint refuses a model without a training task graph") {
  // The megatron unit computes its schedule in closed form: no task graph, hence no first task
  // to gate and no optimizer step to hold back. The public function used to index the graph at
  // task -1 (a segfault found by a program using the installed library); it must name what is
  // missing, and the study (evaluate_scheduler) still answers through run_checkpoint_alone.
  const Scenario s = load_document(single_stage(12));
  const IterationStudy study = prepare_iteration_study(s);
  REQUIRE_FALSE(study.model.has_training_graph());
  const CheckpointPlan plan = make_plan(SchedulerKind::gemini, study.input);
  REQUIRE_FALSE(plan.chunks.empty());
  bool refused = false;
  try {
    (void)run_with_checkpoint(study.model, plan, study.placement, s.cluster.gpus_per_machine, study.input.alpha);
  } catch (const ModelError& e) {
    refused = true;
    CHECK(e.parameter() == "/training/parallelism");
    CHECK(e.message().find("training task graph") != std::string::npos);
    CHECK(e.message().find("run_checkpoint_alone") != std::string::npos);
  }
  CHECK(refused);
  // One copy of every GPU's shard is sent (replicas 2), so the plan's completion is after the
  // iteration's start: a positive checkpoint time from the study's own path.
  const SchedulerOutcome o = evaluate_scheduler(study, SchedulerKind::gemini);
  CHECK(o.checkpoint_time > SimTime::zero());
}

TEST_CASE("megatron: a group inside a machine pays NVLink's step latency, never the network's") {
  // tp = 8 on one DGX A100 (single_stage): each of a layer's tensor-parallel calls is a ring of
  // t = 8 ranks inside the machine. Forward, four calls of (t - 1) steps each under sequence
  // parallelism, or two all-reduces of 2 (t - 1) steps without it: 28 steps either way, so
  // adding 1 ms to the NVLink step latency adds 28 ms to a layer's forward collectives. (With a
  // step latency of its own, 3.5 us rather than the 3.4 us default, the ring model times them
  // rather than the GPU type's measured curves, which carry their latency inside.)
  json base = single_stage(12);
  base["cluster"]["nvlink_latency"] = "3.5us";
  const MegatronIteration a = simulate_megatron_iteration(load_document(base));
  json slower_nvlink = base;
  slower_nvlink["cluster"]["nvlink_latency"] = "1003.5us";  // 3.5 us + 1 ms
  const MegatronIteration b = simulate_megatron_iteration(load_document(slower_nvlink));
  CHECK((b.layer_tp_forward - a.layer_tp_forward) == milliseconds(28));
  // The network's latency (the data-parallel ring between the two machines) leaves the
  // tensor-parallel calls as they were: a latency fitted over InfiniBand never reaches them.
  json slower_network = base;
  slower_network["cluster"]["network"] = {{"latency", "1010us"}};
  const MegatronIteration c = simulate_megatron_iteration(load_document(slower_network));
  CHECK(c.layer_tp_forward == a.layer_tp_forward);
  CHECK(c.iteration_time > a.iteration_time);
}
