#include "ckptsim/workload/iteration_model.hpp"

#include <algorithm>
#include <map>

#include "ckptsim/core/error.hpp"
#include "ckptsim/workload/caching_allocator.hpp"

namespace ckptsim {

namespace {

void check_network(const Scenario& scenario) {
  const NetworkSpec& n = scenario.cluster.network;
  if (n.collective_efficiency <= 0 || n.collective_efficiency > 1) {
    throw ModelError("/cluster/network/collective_efficiency", "must be in (0, 1]");
  }
  if (n.p2p_efficiency <= 0 || n.p2p_efficiency > 1) throw ModelError("/cluster/network/p2p_efficiency", "must be in (0, 1]");
}

SimTime end_of(const GraphRun& run, int task) {
  return task >= 0 ? run.timing[static_cast<std::size_t>(task)].end : SimTime::zero();
}

// Each buffer term replayed in host order: a buffer is live from its allocating operation to
// the operation at which the host frees it. That is the least the program needs: a host running
// further ahead holds more, until the allocator makes it wait (memory_pressure.hpp). A term of
// its own pool goes through the caching allocator and counts what the pool reserves; phases by
// operation: [0, backward_op) loss, [backward_op, step_op) backward, then the step.
std::vector<GpuMemoryTerm> buffer_terms(const EngineProgram& program, bool pooled_only) {
  struct Event {
    int op;
    int order;  // frees (0) before allocations (1) at the same operation
    std::size_t buffer;
  };
  auto phase_of = [&](int op) -> std::size_t {
    if (program.backward_op >= 0 && op >= program.backward_op) return op >= program.step_op ? 2 : 1;
    return 0;
  };
  std::vector<std::string> names;
  std::vector<std::vector<Event>> events;
  std::vector<char> pooled;
  const auto& buffers = program.buffers;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const EngineBuffer& b = buffers[i];
    if (b.bytes <= 0 || b.alloc_op < 0 || (pooled_only && !b.own_pool)) continue;
    auto it = std::find(names.begin(), names.end(), b.term);
    const auto k = static_cast<std::size_t>(it - names.begin());
    if (it == names.end()) {
      names.push_back(b.term);
      events.emplace_back();
      pooled.push_back(b.own_pool ? 1 : 0);
    }
    events[k].push_back({b.alloc_op, 1, i});
    events[k].push_back({std::max(b.alloc_op, b.free_op), 0, i});
  }
  std::vector<GpuMemoryTerm> terms;
  for (std::size_t k = 0; k < names.size(); ++k) {
    auto& list = events[k];
    std::sort(list.begin(), list.end(), [](const Event& a, const Event& b) {
      return a.op != b.op ? a.op < b.op : (a.order != b.order ? a.order < b.order : a.buffer < b.buffer);
    });
    GpuMemoryTerm term;
    term.name = names[k] + (pooled[k] ? " (allocator, host order)" : " (host order)");
    CachingAllocator pool;
    std::vector<std::size_t> handle(buffers.size());
    double live = 0;
    for (const Event& e : list) {
      const double bytes = buffers[e.buffer].bytes;
      if (pooled[k]) {
        if (e.order == 1) handle[e.buffer] = pool.allocate(static_cast<std::int64_t>(bytes));
        else pool.release(handle[e.buffer]);
      }
      live += e.order == 1 ? bytes : -bytes;
      auto& peak = term.phase_bytes[phase_of(e.op)];
      peak = std::max(peak, pooled[k] ? static_cast<double>(pool.reserved()) : live);
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

std::vector<GpuMemoryTerm> all_terms(const EngineProgram& program, bool with_pooled_buffers) {
  std::vector<GpuMemoryTerm> terms = program.memory_terms;
  for (GpuMemoryTerm& t : buffer_terms(program, false)) {
    const bool pooled_term = t.name.find("(allocator") != std::string::npos;
    if (with_pooled_buffers || !pooled_term) terms.push_back(std::move(t));
  }
  return terms;
}

GpuMemory memory_of(const Scenario& scenario, const TransformerShape& shape, const EngineProgram& program,
                    bool with_pooled_buffers) {
  return gpu_memory(scenario, shape, all_terms(program, with_pooled_buffers), program.communicators,
                    program.layer_gradients, program.held_gradient);
}

}  // namespace

std::vector<BusyInterval> silent_busy(const IterationWorkload& w, const GraphRun& run) {
  std::vector<BusyInterval> busy;
  for (int t : w.built.network_tasks) {
    const TaskTiming& tt = run.timing[static_cast<std::size_t>(t)];
    busy.push_back({tt.start, tt.end, t, t});
  }
  return busy;
}

std::vector<BusyInterval> profiler_busy(const IterationWorkload& w, const GraphRun& run) {
  std::vector<BusyInterval> busy;
  std::vector<char> seen(w.program.program.size(), 0);
  for (int t : w.built.network_tasks) {
    const int op = w.op_of(t);
    if (op < 0 || seen[static_cast<std::size_t>(op)]) continue;
    seen[static_cast<std::size_t>(op)] = 1;
    const auto o = static_cast<std::size_t>(op);
    // The start event fires when the collective's kernel starts: the host has issued it, the
    // NCCL stream's previous operation and the stream it waits for (its input) are done. From
    // then on it is busy, waiting for its peers (each ring step's latency) or moving bytes.
    const SimTime from = run.timing[static_cast<std::size_t>(w.built.op_first_task[o])].ready;
    const int last = w.built.op_last_task[o];
    busy.push_back({from, end_of(run, last), last, t});
  }
  return busy;
}

IterationModel simulate_iteration(const Scenario& scenario) {
  check_network(scenario);
  IterationModel m{Topology::build(scenario.cluster), {}, {}, {}, {}};
  IterationWorkload& w = m.workload;
  w.engine = scenario.training.engine;
  w.shape = TransformerShape::from(scenario);
  w.compute = ComputeModel::from(scenario, w.shape);
  const ClusterSpec& c = scenario.cluster;
  EngineInput input{&scenario, w.shape, w.compute, c.machines, std::max(1, c.gpus_per_machine)};
  // The memory the gathered parameters may take before the allocator makes the host wait
  // (memory_pressure.hpp): the capacity minus every other term's peak, from a first writing of
  // the program (cheap; nothing is simulated, and the host waits it adds change no allocation).
  {
    const EngineProgram sizing = make_engine_program(w.engine, input);
    input.buffer_budget = std::max(0.0, memory_of(scenario, w.shape, sizing, false).free());
  }
  w.program = make_engine_program(w.engine, input);
  ProgramCosts costs;
  costs.algorithm = parse_collective_algorithm(c.network.collective);
  costs.gpus_per_machine = input.gpus_per_machine;
  costs.latency = c.network.latency;
  costs.collective_efficiency = c.network.collective_efficiency;
  costs.host_staging = !c.gpudirect_rdma;
  costs.hbm_bandwidth = c.gpu_memory_bandwidth;
  costs.compute = w.compute;
  w.built = build_program(w.program.program, m.topology, costs);
  w.first_task = w.built.start_task;
  w.optimizer_task = w.built.op_first_task[static_cast<std::size_t>(w.program.update_op)];
  m.run = run_task_graph(w.built.graph, m.topology.capacities());
  m.profile.iteration_time = m.run.makespan;
  m.profile.machine_spans = machine_idle_spans(w.graph(), m.topology, profiler_busy(w, m.run), m.run.makespan);
  m.profile.silent_spans = machine_idle_spans(w.graph(), m.topology, silent_busy(w, m.run), m.run.makespan);
  m.memory = memory_of(scenario, w.shape, w.program, true);
  return m;
}

}  // namespace ckptsim
