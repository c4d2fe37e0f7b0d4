// The stream-program builder (workload/stream_program.hpp): CUDA stream order, wait_stream
// captured at enqueue time, host waits, events, and one NCCL stream per process group; each on
// a program worked by hand on the tiny cluster (2 machines x 1 GPU, 1e9 B/s NICs: a ring
// collective of S bytes takes S / 2e9 s).
#include <doctest/doctest.h>

#include "ckptsim/network/topology.hpp"
#include "ckptsim/workload/stream_program.hpp"
#include "tiny_cluster.hpp"

using namespace ckptsim;

namespace {

// Memory-bound compute of `ms` milliseconds at 1e9 B/s of HBM.
GpuWork busy_for(double ms) { return {ComputePass::memory_bound, ComputePart::none, ms * 1e6}; }

struct Built {
  Topology topology;
  BuiltProgram program;
  GraphRun run;
  [[nodiscard]] SimTime start(int op) const { return run.timing[static_cast<std::size_t>(program.op_first_task[static_cast<std::size_t>(op)])].start; }
  [[nodiscard]] SimTime ready(int op) const { return run.timing[static_cast<std::size_t>(program.op_first_task[static_cast<std::size_t>(op)])].ready; }
  [[nodiscard]] SimTime end(int op) const { return run.timing[static_cast<std::size_t>(program.op_last_task[static_cast<std::size_t>(op)])].end; }
};

Built run(const StreamProgram& p, SimTime latency = SimTime::zero()) {
  const Scenario s = testing::tiny_scenario();
  Built b{Topology::build(s.cluster), {}, {}};
  ProgramCosts costs;
  costs.latency = latency;
  costs.hbm_bandwidth = 1e9;
  costs.compute = ComputeModel(1e9);
  b.program = build_program(p, b.topology, costs);
  b.run = run_task_graph(b.program.graph, b.topology.capacities());
  return b;
}

}  // namespace

TEST_CASE("one NCCL stream per process group: collectives of a group run one at a time, another group's beside") {
  // AG and RS of the data-parallel group, both issued at 0 from different streams, 2e6 bytes
  // each (1 ms alone): the RS waits for the AG on the group's NCCL stream, [0, 1] then [1, 2] ms.
  StreamProgram p;
  const int ag = p.collective(CollectiveKind::all_gather, Group::data_parallel, 2e6, Cause::bandwidth, TaskCategory::all_gather, {Stream::gather});
  const int rs = p.collective(CollectiveKind::reduce_scatter, Group::data_parallel, 2e6, Cause::bandwidth, TaskCategory::reduce_scatter, {Stream::reduce});
  // The replicate group has its own NCCL stream: its all-reduce of 1e6 bytes (2 x 1/2 x 1e6 =
  // 1e6 B per NIC, 1 ms alone) runs at once, sharing each NIC with the AG: 0.5e9 B/s each until
  // the all-reduce ends at 2 ms (1e6 B at 0.5e9); the AG's 1e6 B are done then too, the RS runs
  // [2, 3] ms.
  const int ar = p.collective(CollectiveKind::all_reduce, Group::replicate, 1e6, Cause::bandwidth, TaskCategory::all_reduce, {});
  const Built b = run(p);
  CHECK(b.start(ag) == SimTime::zero());
  CHECK(b.end(ar) == milliseconds(2));
  CHECK(b.end(ag) == milliseconds(2));
  CHECK(b.start(rs) == milliseconds(2));
  CHECK(b.end(rs) == milliseconds(3));
}

TEST_CASE("wait_stream captures the stream at enqueue time; later work on it is not waited for") {
  // A (1 ms) on compute; a reduce-stream copy of 1e6 B (1 ms) waiting for the compute stream;
  // then B (5 ms) on compute. The copy runs [1, 2] ms: it waits for A, not for B.
  StreamProgram p;
  const int a = p.compute(busy_for(1), TaskCategory::backward, {});
  const int copy = p.copy(Stream::reduce, 1e6, Cause::bandwidth, {Stream::compute});
  const int b = p.compute(busy_for(5), TaskCategory::backward, {});
  const Built r = run(p);
  CHECK(r.end(a) == milliseconds(1));
  CHECK(r.start(copy) == milliseconds(1));
  CHECK(r.end(copy) == milliseconds(2));
  CHECK(r.end(b) == milliseconds(6));
}

TEST_CASE("a host wait holds back everything the host enqueues after it") {
  // AG of 4e6 B (2 ms); the host waits for it; then compute C (1 ms), which has no data
  // dependency on the AG but cannot be launched before the host gets past the wait: [2, 3] ms.
  // An event wait (`after`) on the gather stream starts at the AG's end as well.
  StreamProgram p;
  const int ag = p.collective(CollectiveKind::all_gather, Group::data_parallel, 4e6, Cause::on_demand_gather, TaskCategory::all_gather, {});
  const int wait = p.host_wait(ag, Cause::host_sync);
  const int c = p.compute(busy_for(1), TaskCategory::forward, {});
  const int after = p.marker(Stream::gather, {}, {ag});
  const Built r = run(p);
  CHECK(r.end(ag) == milliseconds(2));
  CHECK(r.end(wait) == milliseconds(2));
  CHECK(r.start(c) == milliseconds(2));
  CHECK(r.end(c) == milliseconds(3));
  CHECK(r.start(after) == milliseconds(2));
}

TEST_CASE("a collective's latency is paid after it is ready, before its bytes flow") {
  // Ring over 2 ranks: (n-1) x 0.5 ms of latency, then 2e6 B at 1e9 B/s per NIC (1 ms).
  StreamProgram p;
  const int ag = p.collective(CollectiveKind::all_gather, Group::data_parallel, 2e6, Cause::bandwidth, TaskCategory::all_gather, {});
  const Built r = run(p, microseconds(500));
  CHECK(r.ready(ag) == SimTime::zero());
  CHECK(r.start(ag) == microseconds(500));
  CHECK(r.end(ag) == microseconds(1500));
  // Only collectives that cross a NIC are network tasks (both views of the idle spans use them).
  CHECK(r.program.network_tasks.size() == 1);
}

TEST_CASE("a collective of count c: c latencies and its bytes, the time of c back-to-back collectives alone") {
  // Ring over 2 ranks: 1 step of 1 us per collective. Five all-gathers of 4e5 B (each 2e5 B
  // per NIC at 1e9 B/s: 0.2 ms, plus 1 us) back to back end at 5 x 201 us = 1.005 ms; one
  // collective of 2e6 B with count 5 takes 5 x 1 us of latency and 1 ms of bytes: the same.
  StreamProgram single;
  const int one = single.collective(CollectiveKind::all_gather, Group::data_parallel, 2e6, Cause::bandwidth,
                                    TaskCategory::all_gather, {}, -1, "five", 5);
  CHECK(single.op(one).count == 5);
  const Built a = run(single, microseconds(1));
  CHECK(a.end(one) == microseconds(1005));
  StreamProgram many;
  int last = -1;
  for (int i = 0; i < 5; ++i) {
    last = many.collective(CollectiveKind::all_gather, Group::data_parallel, 4e5, Cause::bandwidth, TaskCategory::all_gather, {});
  }
  const Built b = run(many, microseconds(1));
  CHECK(b.end(last) == microseconds(1005));
  // A count below 1 is one collective.
  StreamProgram zero;
  CHECK(zero.op(zero.collective(CollectiveKind::all_gather, Group::data_parallel, 1, Cause::bandwidth,
                                TaskCategory::all_gather, {}, -1, {}, 0)).count == 1);
}
