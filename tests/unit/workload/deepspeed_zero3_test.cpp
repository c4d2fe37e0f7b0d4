// DeepSpeed ZeRO-3 v0.7.3 as a stream program (workload/deepspeed_zero3.hpp): on-demand gathers
// without a trace, the release rule that gathers again for the recomputation and the backward,
// the fetch-event limit that stalls the host, and stage 3's gradient buckets. Hand-worked on the
// tiny cluster (tiny_cluster.hpp: an all-gather of E elements takes E / 1e9 s).
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/workload/deepspeed_zero3.hpp"
#include "ckptsim/workload/iteration_model.hpp"
#include "ckptsim/workload/stream_program.hpp"
#include "tiny_cluster.hpp"

using namespace ckptsim;

namespace {

const TaskTiming& timing(const IterationModel& m, int task) { return m.run.timing[static_cast<std::size_t>(task)]; }

// The operations of one kind, in program order.
std::vector<int> ops_where(const IterationModel& m, bool (*pred)(const ProgramOp&)) {
  std::vector<int> out;
  const auto& ops = m.workload.program.program.ops();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (pred(ops[i])) out.push_back(static_cast<int>(i));
  }
  return out;
}

// A module's gather (its gather group's index); not _post_step's gathers of the persistent tensors.
bool is_gather(const ProgramOp& op) {
  return op.kind == ProgramOp::Kind::collective && op.category == TaskCategory::all_gather && op.index >= 0;
}
bool is_use(const ProgramOp& op) {
  return op.kind == ProgramOp::Kind::compute &&
         (op.category == TaskCategory::forward || op.category == TaskCategory::recompute || op.category == TaskCategory::backward);
}
bool is_fetch_limit(const ProgramOp& op) { return op.kind == ProgramOp::Kind::host_wait && op.cause == Cause::in_flight_limit; }

Scenario invalid_trace(int layers) {
  Scenario s = testing::tiny_scenario(layers);
  s.training.zero3.trace = Zero3Trace::invalid;
  s.training.zero3.reduce_bucket_size = 1e8;  // above every gradient of the model: one flush, after the last use
  return s;
}

}  // namespace

TEST_CASE("without a trace every use gathers its module on demand and its compute waits for that gather") {
  // 2 layers with recomputation: uses E, 4 per layer (8), E (output), E (output backward), then
  // per layer 4 recomputed + 4 backward (16), E (embedding backward): 28. Every module (E = 1e6,
  // QKV 3e6, O 1e6, FC 4e6 elements) is above the persistence threshold, and without a trace
  // each is released after its use, so every use has its own on-demand gather.
  const IterationModel m = simulate_iteration(invalid_trace(2));
  const std::vector<int> gathers = ops_where(m, is_gather);
  const std::vector<int> uses = ops_where(m, is_use);
  REQUIRE(uses.size() == 28);
  REQUIRE(gathers.size() == uses.size());
  const auto& ops = m.workload.program.program.ops();
  for (std::size_t j = 0; j < uses.size(); ++j) {
    CHECK(ops[static_cast<std::size_t>(gathers[j])].cause == Cause::on_demand_gather);
    // Compute is far faster than the gathers, so use j starts exactly when its gather ends.
    const SimTime gathered = timing(m, m.workload.built.op_last_task[static_cast<std::size_t>(gathers[j])]).end;
    CHECK(timing(m, m.workload.built.op_first_task[static_cast<std::size_t>(uses[j])]).start == gathered);
  }
}

TEST_CASE("an invalid trace gathers every recomputed layer twice in backward, a complete one once") {
  // 3 layers; max_reuse_distance 2e7 elements; a prefetch bucket of 1 element, so each step
  // prefetches the next module not gathered (walking past gathered ones). Within one layer's
  // backward the recomputed module is used again after at most O + FC1 + FC2 + FC2 + FC1 + O =
  // 1 + 4 + 4 + 4 + 4 + 1 = 18e6 elements (plus biases), so with a complete trace it stays
  // gathered from its recomputation to its backward; layer 0's forward use is more than 2e7
  // elements before its recomputation (and the prefetcher, one module ahead in the forward,
  // never passed that far), so it is released and gathered once for the recomputation. Without
  // a trace every use gathers: the recomputation and the backward, twice as many.
  TransformerShape shape = TransformerShape::from(testing::tiny_scenario(3));
  const Zero3Layout layout = zero3_layout(shape);
  Zero3Knobs knobs;
  knobs.max_reuse_distance = 2e7;
  knobs.prefetch_bucket_size = 1;
  auto gathers_for_layer0_in_backward = [&](bool complete) {
    knobs.complete_trace = complete;
    const Zero3Schedule plan = plan_zero3(layout.modules, layout.uses, knobs);
    std::size_t first_backward = 0;
    while (layout.category[first_backward] == TaskCategory::forward) ++first_backward;
    int count = 0;
    for (const GatherGroup& g : plan.gathers) {
      if (g.step < static_cast<int>(first_backward)) continue;
      for (int module : g.modules) count += (module >= 1 && module <= 4) ? 1 : 0;  // layer 0: modules 1-4
    }
    return count;
  };
  CHECK(gathers_for_layer0_in_backward(true) == 4);
  CHECK(gathers_for_layer0_in_backward(false) == 8);
}

TEST_CASE("the fetch-event limit: with three events outstanding the host waits for the oldest") {
  // Without a trace and with instant compute the host issues use j's gather, then (from the
  // fourth fetch event on) waits for event j-3: the end of the gather three uses back. The
  // gathers run back to back on the NCCL stream, so the host, released at the end of gather
  // j-4 by the previous wait, is stalled for exactly the duration of gather j-3: its elements
  // / 1e9 s.
  const IterationModel m = simulate_iteration(invalid_trace(2));
  const std::vector<int> waits = ops_where(m, is_fetch_limit);
  const std::vector<int> gathers = ops_where(m, is_gather);
  const std::vector<int> uses = ops_where(m, is_use);
  // One event per use (each module has one gathered tensor): a wait before events 3, 4, ...
  REQUIRE(waits.size() == uses.size() - 3);
  const auto& ops = m.workload.program.program.ops();
  for (std::size_t k = 0; k < waits.size(); ++k) {
    const auto op = static_cast<std::size_t>(waits[k]);
    const SimTime released = timing(m, m.workload.built.op_last_task[op]).end;
    const int before = m.workload.built.op_stream_prev[op];  // the host's previous operation
    const SimTime stalled = released - (before >= 0 ? timing(m, before).end : SimTime::zero());
    const double elements = ops[static_cast<std::size_t>(gathers[k])].bytes / 2;  // gather of use k = (k+3) - 3
    CHECK(std::abs(static_cast<double>(stalled.ns()) - elements) <= 1.0);  // E ns at 1e9 elements/s
  }
}

TEST_CASE("stage 3's buckets: flush before a gradient that would overflow, the rest after the last") {
  // Gradients 3e8, 3e8, 3e8 with 5e8 buckets: the second would make 6e8 > 5e8, so the 3e8
  // bucket is flushed before it; same before the third; the last 3e8 after every gradient.
  const std::vector<BucketFlush> f = plan_buckets({3e8, 3e8, 3e8}, 5e8);
  REQUIRE(f.size() == 3);
  CHECK(f[0].before == 1);
  CHECK(f[1].before == 2);
  CHECK(f[2].before == 3);
  for (const BucketFlush& b : f) CHECK(b.elements == 3e8);
  // A gradient larger than the bucket is flushed alone: [6e8] then [1e8].
  const std::vector<BucketFlush> big = plan_buckets({6e8, 1e8}, 5e8);
  REQUIRE(big.size() == 2);
  CHECK(big[0].elements == 6e8);
  CHECK(big[1].elements == 1e8);
}

TEST_CASE("GPT-2 100B: DeepSpeed's default buckets over the backward of the last layer, per tensor") {
  // h = 8192, f = 32768; the last layer's backward produces, in hook order, FC2's tensors
  // (f·h = 268,435,456 and h), FC1's (h·f, f, h, h), O's (h·h, h), QKV's (3h^2, 3h, h, h).
  // Buckets of 5e8: FC2 (268,443,648) — FC1's weight would overflow — then FC1 + O
  // (268,435,456 + 32,768 + 16,384 + 67,108,864 + 8,192 = 335,601,664) — QKV's weight would
  // overflow — then QKV and the next layer's FC2 weight... the first two flushes:
  const double h = 8192, f = 32768;
  const std::vector<double> grads{f * h, h, h * f, f, h, h, h * h, h, 3 * h * h, 3 * h, h, h, f * h, h};
  const std::vector<BucketFlush> b = plan_buckets(grads, 5e8);
  REQUIRE(b.size() >= 3);
  CHECK(b[0].elements == 268443648.0);
  CHECK(b[1].elements == 335601664.0);
  double reduced = 0;
  for (const BucketFlush& x : b) reduced += x.elements;
  double total = 0;
  for (double g : grads) total += g;
  CHECK(reduced == total);  // every gradient reduced exactly once
}

TEST_CASE("the complete trace prefetches: the first use gathers on demand, one bucket takes the rest") {
  // Default knobs. The first use (the embedding) finds nothing gathered: one on-demand gather.
  // The prefetcher then walks the trace taking every module not gathered until the bucket
  // holds 5e7 elements; the 12 layer modules of 3 layers hold 3 x 12e6 = 3.6e7 < 5e7, so they
  // all go in one coalesced gather at step 0; with reuse distance 1e9 > the whole trace nothing
  // is released before its last use, so nothing is gathered again.
  const IterationModel m = simulate_iteration(testing::tiny_scenario(3));
  const std::vector<int> gathers = ops_where(m, is_gather);
  REQUIRE(gathers.size() == 2);
  CHECK(m.workload.program.program.op(gathers[0]).cause == Cause::on_demand_gather);
  CHECK(m.workload.program.program.op(gathers[1]).cause == Cause::bandwidth);
  CHECK(m.workload.program.program.op(gathers[1]).bytes == doctest::Approx(2.0 * 3 * 12e6));
}

TEST_CASE("_post_step gathers every persistent tensor again, one all-gather each, and the host synchronizes") {
  // The tiny model's persistent tensors (below 1e5 elements): per layer QKV's bias 3000 and
  // LayerNorm 1000 + 1000, O's bias 1000, FC1's bias 4000 and LayerNorm 1000 + 1000, FC2's bias
  // 1000: 8 tensors, 13,000 elements; the embedding's final LayerNorm 1000 + 1000. Two layers:
  // 18 tensors, 28,000 elements, 56,000 bytes at 16 bits.
  Scenario s = testing::tiny_scenario(2);
  s.cluster.network.latency = microseconds(1);
  const Zero3Persistent persistent = zero3_persistent(zero3_layout(TransformerShape::from(s)), 1e5);
  CHECK(persistent.tensors == 18);
  CHECK(persistent.elements == 28000.0);
  const IterationModel m = simulate_iteration(s);
  const auto& ops = m.workload.program.program.ops();
  int found = -1;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].kind == ProgramOp::Kind::collective && ops[i].category == TaskCategory::all_gather && ops[i].index < 0) {
      CHECK(found < 0);  // one such operation
      found = static_cast<int>(i);
    }
  }
  REQUIRE(found > m.workload.program.update_op);  // after fused Adam
  const ProgramOp& g = ops[static_cast<std::size_t>(found)];
  CHECK(g.count == 18);
  CHECK(g.bytes == 56000.0);
  // The compute stream waits for it (Work.wait), then the host (torch.cuda.synchronize()).
  const auto next = static_cast<std::size_t>(found + 1);
  CHECK(ops[next].stream == Stream::compute);
  CHECK(ops[next].after == std::vector<int>{found});
  CHECK(ops[next + 1].kind == ProgramOp::Kind::host_wait);
  CHECK(ops[next + 1].after == std::vector<int>{found});
  // Alone on the network: 18 ring latencies of (n - 1) = 1 step x 1 us, then half of 56,000 B
  // through each 1e9 B/s NIC: 18 + 28 = 46 us from ready to end.
  const TaskTiming& first = timing(m, m.workload.built.op_first_task[static_cast<std::size_t>(found)]);
  const TaskTiming& last = timing(m, m.workload.built.op_last_task[static_cast<std::size_t>(found)]);
  CHECK(first.start - first.ready == microseconds(18));
  CHECK(last.end - first.ready == microseconds(46));
}

TEST_CASE("queued gradients: each counts from the start of the next gradient-writing use to the end of its copy") {
  // A hand-built run on the tiny cluster, HBM copies at 1e9 B/s:
  //   op 0: 1e6 B on the compute stream            [0, 1] ms
  //   op 1: 3e6 B on the reduce stream after op 0   [1, 4] ms (gradient a's copy)
  //   op 2: 1e6 B on the compute stream            [1, 2] ms (the next gradient-writing use)
  // Gradient a (100 B): from op 2's start to op 1's end, [1, 4]; gradient b (50 B): [1, 2]
  // (op 2 to op 2); gradient c (30 B): op 1's start 1 ms to op 0's end 1 ms — ends when it
  // begins, never queued. Peak: 150 B over [1, 2] ms, in the backward (ops from 0 to 9).
  StreamProgram p;
  p.copy(Stream::compute, 1e6, Cause::none);
  p.copy(Stream::reduce, 3e6, Cause::bandwidth, {Stream::compute});
  p.copy(Stream::compute, 1e6, Cause::none);
  const Scenario s = testing::tiny_scenario();
  const Topology topology = Topology::build(s.cluster);
  ProgramCosts costs;
  costs.hbm_bandwidth = 1e9;
  const BuiltProgram built = build_program(p, topology, costs);
  const GraphRun run = run_task_graph(built.graph, topology.capacities());
  EngineProgram program;
  program.backward_op = 0;
  program.step_op = 10;
  program.queued_gradients = {{"queued", 100, 2, 1}, {"queued", 50, 2, 2}, {"queued", 30, 1, 0}};
  const std::vector<GpuMemoryTerm> terms = queued_buffer_terms(program, built, run);
  REQUIRE(terms.size() == 1);
  CHECK(terms[0].bytes_in(MemoryPhase::loss) == 0.0);
  CHECK(terms[0].bytes_in(MemoryPhase::backward) == 150.0);
  CHECK(terms[0].bytes_in(MemoryPhase::optimizer_step) == 0.0);
  // Without queued gradients, no term.
  program.queued_gradients.clear();
  CHECK(queued_buffer_terms(program, built, run).empty());
}

TEST_CASE("hook host time: DeepSpeed's pre and post submodule hooks add 2 c per use where the host leads") {
  // v0.7.3 registers a pre and a post hook on every submodule, forward and backward
  // (parameter_offload.py 341-451: _pre_forward_module_hook, _post_forward_module_hook and their
  // backward counterparts), so each use of the layout (forward, recomputed forward, backward)
  // costs 2 hook calls. With 1 s or 2 s per call the host is the critical path on the tiny
  // cluster (GPU operations of milliseconds): the difference is exactly 2 x uses x 1 s.
  auto run = [](SimTime c) {
    Scenario s = testing::tiny_scenario(2);
    s.training.hook_host_time = c;
    return simulate_iteration(s);
  };
  const IterationModel one = run(seconds(1));
  const auto uses = static_cast<std::int64_t>(zero3_layout(one.workload.shape).uses.size());
  CHECK(uses > 0);
  CHECK(run(seconds(2)).run.makespan - one.run.makespan == seconds(2.0 * static_cast<double>(uses)));
}
