#include "ckptsim/workload/iteration_model.hpp"

#include <algorithm>
#include <array>
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

// The buffer terms replayed in host order: a buffer is live from the operation at which the
// host allocates it to the one at which it frees it. That is the least the program needs: a
// host running further ahead holds more, until the allocator makes it wait
// (memory_pressure.hpp). Each term goes through its own pool of the caching allocator and
// counts what the pool reserves; phases by operation: [0, backward_op) loss, [backward_op,
// step_op) backward, then the step.
std::vector<GpuMemoryTerm> buffer_terms(const EngineProgram& program) {
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
  const auto& buffers = program.buffers;
  for (std::size_t i = 0; i < buffers.size(); ++i) {
    const EngineBuffer& b = buffers[i];
    if (b.bytes <= 0 || b.alloc_op < 0) continue;
    auto it = std::find(names.begin(), names.end(), b.term);
    const auto k = static_cast<std::size_t>(it - names.begin());
    if (it == names.end()) {
      names.push_back(b.term);
      events.emplace_back();
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
    term.name = names[k] + " (allocator, host order)";
    CachingAllocator pool;
    std::vector<std::size_t> handle(buffers.size());
    for (const Event& e : list) {
      if (e.order == 1) handle[e.buffer] = pool.allocate(allocator_bytes(buffers[e.buffer].bytes));
      else pool.release(handle[e.buffer]);
      auto& peak = term.phase_bytes[phase_of(e.op)];
      peak = std::max(peak, static_cast<double>(pool.reserved()));
    }
    terms.push_back(std::move(term));
  }
  return terms;
}

}  // namespace

std::vector<GpuMemoryTerm> queued_buffer_terms(const EngineProgram& program, const BuiltProgram& built, const GraphRun& run) {
  std::vector<GpuMemoryTerm> terms;
  const auto& buffers = program.queued_gradients;
  if (buffers.empty()) return terms;
  struct Change {
    SimTime at;
    double bytes;  // negative: a free (sorted first at the same time)
    std::size_t phase;
  };
  std::vector<Change> changes;
  for (const EngineBuffer& b : buffers) {
    if (b.bytes <= 0 || b.alloc_op < 0 || b.free_op < 0) continue;
    const SimTime from = run.timing[static_cast<std::size_t>(built.op_first_task[static_cast<std::size_t>(b.alloc_op)])].start;
    const SimTime to = end_of(run, built.op_last_task[static_cast<std::size_t>(b.free_op)]);
    if (to <= from) continue;
    std::size_t phase = 0;
    if (program.backward_op >= 0 && b.alloc_op >= program.backward_op) phase = b.alloc_op >= program.step_op ? 2 : 1;
    changes.push_back({from, b.bytes, phase});
    changes.push_back({to, -b.bytes, phase});
  }
  std::sort(changes.begin(), changes.end(), [](const Change& a, const Change& b) {
    return a.at != b.at ? a.at < b.at : a.bytes < b.bytes;
  });
  GpuMemoryTerm term;
  term.name = buffers.front().term + " (simulated peak)";
  std::array<double, 3> live{};
  for (const Change& c : changes) {
    live[c.phase] += c.bytes;
    term.phase_bytes[c.phase] = std::max(term.phase_bytes[c.phase], live[c.phase]);
  }
  terms.push_back(std::move(term));
  return terms;
}

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

EngineProgram iteration_program(const Scenario& scenario, const TransformerShape& shape, const ComputeModel& compute,
                                ActivationMemory* activations_out) {
  const ClusterSpec& c = scenario.cluster;
  EngineInput input{&scenario, shape, compute, c.machines, std::max(1, c.gpus_per_machine)};
  // The memory the gathered parameters may take before the allocator makes the host wait
  // (memory_pressure.hpp): the capacity minus every other term's peak.
  const EngineMemory fixed = engine_memory(scenario.training.engine, input);
  const ActivationMemory activations = activation_memory(shape, fixed.layer_gradients, fixed.held_gradient);
  input.buffer_budget = std::max(0.0, gpu_memory(scenario, shape, fixed.terms, fixed.communicators, activations).free());
  if (activations_out != nullptr) *activations_out = activations;
  return make_engine_program(scenario.training.engine, input);
}

IterationModel simulate_iteration(const Scenario& scenario) {
  if (scenario.training.parallelism == Parallelism::megatron)
    throw ModelError("/training/parallelism",
                     "the ZeRO-3 engines' iteration model cannot run a megatron layout (the megatron unit of "
                     "workload/parallelism_model.hpp runs it)");
  check_network(scenario);
  IterationModel m{Topology::build(scenario.cluster), {}, {}, {}, {}, {}, {}, {}, {}};
  IterationWorkload& w = m.workload;
  w.engine = scenario.training.engine;
  w.shape = TransformerShape::from(scenario);
  w.compute = ComputeModel::from(scenario, w.shape);
  const ClusterSpec& c = scenario.cluster;
  ActivationMemory activations;
  w.program = iteration_program(scenario, w.shape, w.compute, &activations);
  ProgramCosts costs;
  costs.algorithm = c.network.collective;
  costs.gpus_per_machine = std::max(1, c.gpus_per_machine);
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
  // A checkpoint of the states this iteration starts from must be sent before the update
  // (checkpoint_run.hpp): a span that opens after the update starts (DeepSpeed's _post_step
  // gathers, then the step end) belongs to the next checkpoint's window, and is left out.
  const SimTime update = m.run.timing[static_cast<std::size_t>(w.optimizer_task)].start;
  m.profile.machine_spans.for_each_list(
      [&](std::vector<IdleSpan>& spans) { std::erase_if(spans, [&](const IdleSpan& x) { return x.start > update; }); });
  m.profile.silent_spans = machine_idle_spans(w.graph(), m.topology, silent_busy(w, m.run), m.run.makespan);
  std::vector<GpuMemoryTerm> terms = w.program.memory.terms;
  for (GpuMemoryTerm& t : buffer_terms(w.program)) terms.push_back(std::move(t));
  for (GpuMemoryTerm& t : queued_buffer_terms(w.program, w.built, m.run)) terms.push_back(std::move(t));
  m.memory = gpu_memory(scenario, w.shape, std::move(terms), w.program.memory.communicators, activations);
  return m;
}

}  // namespace ckptsim
