// Phases, exposed time by cause, and the two idle-span views (workload/iteration_analysis.hpp,
// workload/profile.hpp), on programs worked by hand and on both engines.
#include <doctest/doctest.h>

#include "ckptsim/workload/iteration_analysis.hpp"
#include "tiny_cluster.hpp"

using namespace ckptsim;

namespace {

GpuWork busy_ms(double ms) { return {ComputePass::memory_bound, ComputePart::none, ms * 1e6}; }

// Runs a hand-written program on the tiny cluster (HBM 1e9 B/s for the busy_for uses, 1e9 B/s
// NICs, ring latency `latency` per step) and fills the model as simulate_iteration would.
IterationModel model_of(StreamProgram p, SimTime latency) {
  const Scenario s = testing::tiny_scenario();
  IterationModel m{Topology::build(s.cluster), {}, {}, {}, {}, {}, {}, {}, {}};
  ProgramCosts costs;
  costs.latency = latency;
  costs.hbm_bandwidth = 1e9;
  costs.compute = ComputeModel(1e9);
  m.workload.program.program = std::move(p);
  m.workload.built = build_program(m.workload.program.program, m.topology, costs);
  m.run = run_task_graph(m.workload.built.graph, m.topology.capacities());
  m.profile.iteration_time = m.run.makespan;
  m.profile.machine_spans = machine_idle_spans(m.workload.graph(), m.topology, profiler_busy(m.workload, m.run), m.run.makespan);
  m.profile.silent_spans = machine_idle_spans(m.workload.graph(), m.topology, silent_busy(m.workload, m.run), m.run.makespan);
  return m;
}

}  // namespace

TEST_CASE("network-silent time exceeds the profiler's idle time by exactly the collectives' waits for their peers") {
  // Compute A [0, 1] ms; a reduce-scatter of 2e6 B issued at 0 from the reduce stream, which
  // waits for A; then compute B [1, 3] ms. The RS's kernel starts at 1 ms (its input is ready),
  // waits 0.2 ms for its peer (one ring step's latency), then moves 1e6 B per NIC in 1 ms.
  //   profiler: busy [1, 2.2], idle [0, 1] + [2.2, 3] = 1.8 ms;
  //   silent:   busy [1.2, 2.2], idle [0, 1.2] + [2.2, 3] = 2.0 ms.
  // The difference, 0.2 ms, is the RS's wait for its peer.
  StreamProgram p;
  p.compute(busy_ms(1), TaskCategory::backward, {});
  p.marker(Stream::reduce, {Stream::compute});
  p.collective(CollectiveKind::reduce_scatter, Group::data_parallel, 2e6, Cause::bandwidth, TaskCategory::reduce_scatter,
               {Stream::reduce});
  p.compute(busy_ms(2), TaskCategory::backward, {});
  const IterationModel m = model_of(std::move(p), microseconds(200));
  CHECK(m.run.makespan == milliseconds(3));
  CHECK(m.profile.idle_time(0) == microseconds(1800));
  CHECK(m.profile.silent_time(0) == milliseconds(2));
  CHECK(m.profile.silent_time(0) - m.profile.idle_time(0) == microseconds(200));
  REQUIRE(m.profile.machine_spans[0].size() == 2);
  CHECK(m.profile.machine_spans[0][1].start == microseconds(2200));
  REQUIRE(m.profile.silent_spans[0].size() == 2);
}

TEST_CASE("two collectives back to back: the peers' waits of both, and none between them in the profiler's view") {
  // AG1 then AG2 on the NCCL stream, 2e6 B each, 0.3 ms of latency each: AG1 [0, 1.3] (bytes
  // [0.3, 1.3]), AG2 [1.3, 2.6] (bytes [1.6, 2.6]); then compute 1 ms after AG2: iteration 3.6 ms.
  //   profiler: busy [0, 2.6], idle 1.0 ms;   silent: idle [0, 0.3] + [1.3, 1.6] + [2.6, 3.6] = 1.6 ms.
  // Silent - profiler = 0.6 ms = the two latencies.
  StreamProgram p;
  p.collective(CollectiveKind::all_gather, Group::data_parallel, 2e6, Cause::bandwidth, TaskCategory::all_gather, {});
  const int ag2 = p.collective(CollectiveKind::all_gather, Group::data_parallel, 2e6, Cause::bandwidth, TaskCategory::all_gather, {});
  p.marker(Stream::compute, {}, {ag2});
  p.compute(busy_ms(1), TaskCategory::forward, {});
  const IterationModel m = model_of(std::move(p), microseconds(300));
  CHECK(m.run.makespan == microseconds(3600));
  CHECK(m.profile.idle_time(0) == milliseconds(1));
  CHECK(m.profile.silent_time(0) == microseconds(1600));
  CHECK(m.profile.machine_spans[0].size() == 1);
}

TEST_CASE("exposed time by cause: an on-demand gather, then a host held by an in-flight limit") {
  // AG1 (on demand, 2e6 elements = 4e6 B: 2 ms) then compute C1 (1 ms) waiting for it; the host
  // then waits for C1's end (an in-flight limit) before issuing AG2 (1 ms) and C2 (1 ms).
  //   C1 waits [0, 2] for AG1: on-demand gather 2 ms;
  //   AG2 is issued at 3 ms (C1's end), C2 waits [3, 4]: AG2's own 1 ms counts as on-demand
  //   gather; nothing of the wait precedes the host wait inside [3, 4].
  // Iteration 5 ms = compute 2 ms + exposed 3 ms.
  StreamProgram p;
  const int ag1 = p.collective(CollectiveKind::all_gather, Group::data_parallel, 4e6, Cause::on_demand_gather, TaskCategory::all_gather, {});
  p.marker(Stream::compute, {}, {ag1});
  const int c1 = p.compute(busy_ms(1), TaskCategory::forward, {});
  p.host_wait(c1, Cause::in_flight_limit);
  const int ag2 = p.collective(CollectiveKind::all_gather, Group::data_parallel, 2e6, Cause::on_demand_gather, TaskCategory::all_gather, {});
  p.marker(Stream::compute, {}, {ag2});
  p.compute(busy_ms(1), TaskCategory::forward, {});
  const IterationModel m = model_of(std::move(p), SimTime::zero());
  const IterationBreakdown b = breakdown(m);
  CHECK(m.run.makespan == milliseconds(5));
  CHECK(b.phase(TaskCategory::forward) == milliseconds(2));
  CHECK(b.exposed_by(Cause::on_demand_gather) == milliseconds(3));
  CHECK(b.exposed_by(Cause::in_flight_limit) == SimTime::zero());
  CHECK(b.compute() + b.exposed_total() == m.run.makespan);
}

TEST_CASE("a host wait on an earlier gather counts what came before it as the wait's cause") {
  // AG1 (4 ms) on demand; the host waits for it (a host sync) before issuing AG2 (1 ms); compute
  // waits for AG2. The wait [0, 5] splits: AG2's own [4, 5] is on-demand gather; the time before
  // the host could issue AG2, [0, 4], is the host sync.
  StreamProgram p;
  const int ag1 = p.collective(CollectiveKind::all_gather, Group::data_parallel, 8e6, Cause::on_demand_gather, TaskCategory::all_gather, {});
  p.host_wait(ag1, Cause::host_sync);
  const int ag2 = p.collective(CollectiveKind::all_gather, Group::data_parallel, 2e6, Cause::on_demand_gather, TaskCategory::all_gather, {});
  p.marker(Stream::compute, {}, {ag2});
  p.compute(busy_ms(1), TaskCategory::forward, {});
  const IterationBreakdown b = breakdown(model_of(std::move(p), SimTime::zero()));
  CHECK(b.exposed_by(Cause::host_sync) == milliseconds(4));
  CHECK(b.exposed_by(Cause::on_demand_gather) == milliseconds(1));
}

TEST_CASE("phases and exposed time add up to the iteration for every engine and knob") {
  // The attribution walks every wait of the compute stream back to its start, so the identity
  // holds exactly whatever the program.
  std::vector<Scenario> cases;
  for (Zero3Trace trace : {Zero3Trace::complete, Zero3Trace::invalid}) {
    Scenario s = testing::tiny_scenario(4);
    s.training.zero3.trace = trace;
    s.cluster.gpu_peak_flops = 5e9;  // comparable to the gathers
    cases.push_back(s);
  }
  for (FsdpSharding sharding : {FsdpSharding::full_shard, FsdpSharding::hybrid_shard}) {
    Scenario s = testing::tiny_scenario(4);
    s.training.engine = EngineKind::fsdp;
    s.training.fsdp.sharding_strategy = sharding;
    s.cluster.gpus_per_machine = 2;
    s.cluster.gpu_peak_flops = 5e9;
    cases.push_back(s);
  }
  for (const Scenario& s : cases) {
    const IterationModel m = simulate_iteration(s);
    const IterationBreakdown b = breakdown(m);
    CHECK(b.compute() + b.exposed_total() == m.profile.iteration_time);
    CHECK(b.silent_idle >= b.profiler_idle);
  }
}

TEST_CASE("both views: spans never overlap the busy intervals of their view, and sum to its idle time") {
  Scenario s = testing::tiny_scenario(3);
  s.cluster.gpu_peak_flops = 5e9;
  const IterationModel m = simulate_iteration(s);
  for (int view = 0; view < 2; ++view) {
    const auto busy = view == 0 ? profiler_busy(m.workload, m.run) : silent_busy(m.workload, m.run);
    const auto& spans = view == 0 ? m.profile.machine_spans.at(0) : m.profile.silent_spans.at(0);
    REQUIRE(!spans.empty());
    SimTime idle;
    for (const IdleSpan& span : spans) {
      idle += span.length;
      for (const BusyInterval& b : busy) CHECK_FALSE((b.from < span.start + span.length && span.start < b.to));
      // A span opens at the end of its anchor (the profiler's: a collective's last task).
      if (span.anchor >= 0) CHECK(m.run.timing[static_cast<std::size_t>(span.anchor)].end == span.start);
    }
    CHECK(idle == (view == 0 ? m.profile.idle_time(0) : m.profile.silent_time(0)));
    CHECK(idle < m.profile.iteration_time);
  }
}
