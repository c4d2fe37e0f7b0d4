// PyTorch FSDP as a stream program (workload/fsdp.hpp): the all-gather limiter, backward
// prefetch, reduce-scatter per unit, and HYBRID_SHARD's groups; hand-worked on the tiny cluster
// (tiny_cluster.hpp).
#include <doctest/doctest.h>

#include <algorithm>

#include "ckptsim/workload/iteration_model.hpp"
#include "tiny_cluster.hpp"

using namespace ckptsim;

namespace {

Scenario fsdp(int layers) {
  Scenario s = testing::tiny_scenario(layers);
  s.training.engine = EngineKind::fsdp;
  return s;
}

SimTime end_of_op(const IterationModel& m, int op) {
  return m.run.timing[static_cast<std::size_t>(m.workload.built.op_last_task[static_cast<std::size_t>(op)])].end;
}
SimTime issued(const IterationModel& m, int op) {  // when the host reached it
  const int host = m.workload.built.op_host_task[static_cast<std::size_t>(op)];
  return host >= 0 ? m.run.timing[static_cast<std::size_t>(host)].end : SimTime::zero();
}

struct ForwardUnits {
  std::vector<int> gather;   // per block: its forward all-gather
  std::vector<int> compute;  // per block: its forward
};

ForwardUnits forward_units(const IterationModel& m, int layers) {
  ForwardUnits u{std::vector<int>(static_cast<std::size_t>(layers), -1), std::vector<int>(static_cast<std::size_t>(layers), -1)};
  const auto& ops = m.workload.program.program.ops();
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const ProgramOp& op = ops[i];
    if (op.index < 0 || op.index >= layers) continue;
    const auto k = static_cast<std::size_t>(op.index);
    if (op.kind == ProgramOp::Kind::collective && op.category == TaskCategory::all_gather && u.gather[k] < 0) u.gather[k] = static_cast<int>(i);
    if (op.kind == ProgramOp::Kind::compute && op.category == TaskCategory::forward) u.compute[k] = static_cast<int>(i);
  }
  return u;
}

// Most blocks whose forward all-gather the host has issued while their forward has not ended,
// at any issue instant.
int most_in_flight(const IterationModel& m, const ForwardUnits& u) {
  int most = 0;
  for (int g : u.gather) {
    const SimTime t = issued(m, g);
    int count = 0;
    for (std::size_t k = 0; k < u.gather.size(); ++k) count += (issued(m, u.gather[k]) <= t && end_of_op(m, u.compute[k]) > t) ? 1 : 0;
    most = std::max(most, count);
  }
  return most;
}

}  // namespace

TEST_CASE("FSDP's limiter: at most two blocks gathered ahead of the forward") {
  // Compute slowed to 1e9 FLOP/s: a block's forward (2·T·(4h^2 + 2hf) = 24e6 FLOPs at T = 1) takes
  // 24 ms, a block's all-gather (12e6 elements) 12 ms. Each block's post-forward queues a free
  // event; before block k's all-gather the host pops the oldest of 2 queued events and waits:
  // block k-2's forward has ended. So when block k's gather is issued, only blocks k-1 and k
  // are gathered and not yet done: never more than 2.
  Scenario s = fsdp(6);
  s.cluster.gpu_peak_flops = 1e9;
  const IterationModel limited = simulate_iteration(s);
  const ForwardUnits u = forward_units(limited, 6);
  for (std::size_t k = 2; k < u.gather.size(); ++k) CHECK(issued(limited, u.gather[k]) >= end_of_op(limited, u.compute[k - 2]));
  CHECK(most_in_flight(limited, u) == 2);
  // Without the limiter the host issues every block's gather before the first forward ends.
  s.training.fsdp.limit_all_gathers = false;
  const IterationModel free = simulate_iteration(s);
  CHECK(most_in_flight(free, forward_units(free, 6)) == 6);
}

TEST_CASE("FSDP: one all-gather per block in forward and in backward, one reduce-scatter per block") {
  // FULL_SHARD with activation recomputation inside the unit: 3 layers -> forward: root + 3
  // all-gathers, backward: 3 (the root stays unsharded after forward); reduce-scatters: 3 blocks
  // + the root. Each block's is w x P_l = 2 x 12,013,000 bytes.
  const IterationModel m = simulate_iteration(fsdp(3));
  int gathers = 0;
  int reduces = 0;
  for (const ProgramOp& op : m.workload.program.program.ops()) {
    if (op.kind != ProgramOp::Kind::collective) continue;
    if (op.category == TaskCategory::all_gather) ++gathers;
    if (op.category == TaskCategory::reduce_scatter) {
      ++reduces;
      if (op.index < 3) CHECK(op.bytes == doctest::Approx(2.0 * 12013000));
    }
  }
  CHECK(gathers == 4 + 3);
  CHECK(reduces == 4);
}

TEST_CASE("BACKWARD_PRE issues the next block's gather before this block's backward; none waits") {
  // With backward prefetch the block below is gathered while this block's backward runs: only
  // the last block's backward gather is on demand. Without it every backward gather is issued
  // at its block's own pre-backward hook.
  auto on_demand_backward_gathers = [](FsdpBackwardPrefetch mode) {
    Scenario s = fsdp(4);
    s.training.fsdp.backward_prefetch = mode;
    const IterationModel m = simulate_iteration(s);
    int count = 0;
    const auto& ops = m.workload.program.program.ops();
    for (int i = m.workload.program.backward_op; i < static_cast<int>(ops.size()); ++i) {
      const ProgramOp& op = ops[static_cast<std::size_t>(i)];
      if (op.kind == ProgramOp::Kind::collective && op.category == TaskCategory::all_gather && op.cause == Cause::on_demand_gather) ++count;
    }
    return count;
  };
  CHECK(on_demand_backward_gathers(FsdpBackwardPrefetch::backward_pre) == 1);
  CHECK(on_demand_backward_gathers(FsdpBackwardPrefetch::none) == 4);
}

TEST_CASE("HYBRID_SHARD: gathers and reduce-scatters inside the machine, the gradient all-reduced across machines") {
  // 2 machines of 2 GPUs: the shard group is a machine (NVLink only), the replicate group one
  // GPU per machine. Only the all-reduces cross a NIC: per block one of S = w x P_l bytes over
  // G = 2 rings (one per local rank), each moving 2 x (N-1)/N x S/G = S/2 bytes.
  Scenario s = fsdp(2);
  s.cluster.gpus_per_machine = 2;
  s.training.fsdp.sharding_strategy = FsdpSharding::hybrid_shard;
  const IterationModel m = simulate_iteration(s);
  for (int task : m.workload.built.network_tasks) {
    const ProgramOp* op = m.workload.op_for(task);
    REQUIRE(op != nullptr);
    CHECK(op->category == TaskCategory::all_reduce);
    if (op->index < 2 && op->bytes > 1e3) CHECK(m.workload.graph().task(task).bytes == doctest::Approx(2.0 * 12013000 / 2));
  }
  // Model states are sharded over the machine's 2 GPUs only: 16 B x P / 2.
  const double p = m.workload.shape.parameters();
  CHECK(m.memory.terms[2].name == "model states (16 B x P / n)");
  CHECK(m.memory.terms[2].bytes_in(MemoryPhase::loss) == doctest::Approx(16.0 * p / 2));
}

TEST_CASE("FSDP: a block's unsharded gradient waits for its reduction on the post-backward stream") {
  // HYBRID_SHARD on 2 machines of 2 GPUs, compute at 1e9 FLOP/s: a block's backward takes at
  // most 3 x 24 ms (backward twice its 24 ms forward, plus the recomputed forward). Its gradient
  // (w x P_l = 2 x 12,013,000 = 24,026,000 B) is record_stream'ed on the post-backward stream,
  // so from the start of the next backward it is held until that stream's all-reduce across
  // machines ends. Each moves S/2 = 12,013,000 B through a NIC:
  //   NIC 1e7 B/s: 1.2 s per block, longer than two block backwards (<= 144 ms), and the
  //     post-backward stream runs them one after the other: when the embedding's backward starts,
  //     blocks 2, 1 and 0 still wait: 3 x 24,026,000 = 72,078,000 B;
  //   NIC 1e12 B/s: 12 us, over long before the next block's backward ends: one at a time,
  //     24,026,000 B.
  auto queued = [](double nic) {
    Scenario s = fsdp(3);
    s.cluster.gpus_per_machine = 2;
    s.cluster.gpu_peak_flops = 1e9;
    s.cluster.network_bandwidth = nic;
    s.training.fsdp.sharding_strategy = FsdpSharding::hybrid_shard;
    const IterationModel m = simulate_iteration(s);
    for (const GpuMemoryTerm& t : m.memory.terms)
      if (t.name == "unsharded gradients queued for the reduce-scatter (simulated peak)") return t.bytes_in(MemoryPhase::backward);
    return -1.0;
  };
  CHECK(queued(1e7) == doctest::Approx(3 * 24'026'000.0));
  CHECK(queued(1e12) == doctest::Approx(24'026'000.0));
}

TEST_CASE("hook host time: FSDP's 4 hooks per unit add exactly 4 (L + 1) c where the host leads") {
  // 3 blocks and the root: pre-forward, post-forward, pre-backward, post-backward each = 16
  // hook calls per step. Every GPU operation on the tiny cluster lasts at most milliseconds, so
  // with hooks of 1 s or 2 s the host is the critical path: each GPU operation has ended before
  // the next hook does, and going from c = 1 s to 2 s adds exactly 16 x 1 s.
  auto iteration = [](SimTime c) {
    Scenario s = fsdp(3);
    s.training.hook_host_time = c;
    return simulate_iteration(s).run.makespan;
  };
  CHECK(iteration(seconds(2)) - iteration(seconds(1)) == seconds(16));
  // At c = 0 no host work is written at all: the iteration is the one without hooks, shorter
  // than 16 x 1 s by more than the (millisecond) GPU work of the hooked case.
  CHECK(iteration(SimTime::zero()) < seconds(1));
}
