#include "ckptsim/workload/stream_program.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

const char* name_of(Stream stream) {
  switch (stream) {
    case Stream::host: return "host";
    case Stream::compute: return "compute";
    case Stream::gather: return "gather";
    case Stream::pre_gather: return "pre-gather";
    case Stream::reduce: return "reduce";
    case Stream::comm: return "NCCL (sharding group)";
    case Stream::comm_replica: return "NCCL (replicate group)";
  }
  return "?";
}

const char* name_of(Cause cause) {
  switch (cause) {
    case Cause::none: return "none";
    case Cause::on_demand_gather: return "on-demand gather";
    case Cause::in_flight_limit: return "in-flight limit";
    case Cause::host_sync: return "host sync";
    case Cause::bandwidth: return "bandwidth";
  }
  return "?";
}

int StreamProgram::add(ProgramOp op) {
  for (int a : op.after) {
    if (a < 0 || a >= static_cast<int>(ops_.size())) throw std::logic_error("stream program: an event names a later operation");
  }
  const int id = static_cast<int>(ops_.size());
  last_[static_cast<std::size_t>(op.stream)] = id;
  ops_.push_back(std::move(op));
  return id;
}

int StreamProgram::host_wait(int event, Cause cause, TaskCategory category) {
  ProgramOp op;
  op.kind = ProgramOp::Kind::host_wait;
  op.stream = Stream::host;
  op.category = category;
  op.cause = cause;
  if (event >= 0) op.after.push_back(event);
  return add(std::move(op));
}

int StreamProgram::host_work(SimTime duration, Cause cause, TaskCategory category) {
  if (duration <= SimTime::zero()) return -1;
  ProgramOp op;
  op.kind = ProgramOp::Kind::host_work;
  op.stream = Stream::host;
  op.category = category;
  op.cause = cause;
  op.duration = duration;
  return add(std::move(op));
}

int StreamProgram::compute(GpuWork use, TaskCategory category, std::vector<Stream> waits, int layer, int index,
                           std::string label) {
  ProgramOp op;
  op.kind = ProgramOp::Kind::compute;
  op.stream = Stream::compute;
  op.category = category;
  op.use = use;
  op.waits = std::move(waits);
  op.layer = layer;
  op.index = index;
  op.label = std::move(label);
  return add(std::move(op));
}

int StreamProgram::copy(Stream stream, double bytes, Cause cause, std::vector<Stream> waits, std::vector<int> after) {
  ProgramOp op;
  op.kind = ProgramOp::Kind::copy;
  op.stream = stream;
  op.category = TaskCategory::copy;
  op.cause = cause;
  op.bytes = bytes;
  op.waits = std::move(waits);
  op.after = std::move(after);
  return add(std::move(op));
}

int StreamProgram::collective(CollectiveKind kind, Group group, double bytes, Cause cause, TaskCategory category,
                              std::vector<Stream> waits, int index, std::string label, int count) {
  ProgramOp op;
  op.kind = ProgramOp::Kind::collective;
  op.stream = group == Group::replicate ? Stream::comm_replica : Stream::comm;
  op.category = category;
  op.cause = cause;
  op.collective = kind;
  op.group = group;
  op.bytes = bytes;
  op.waits = std::move(waits);
  op.index = index;
  op.label = std::move(label);
  op.count = std::max(1, count);
  return add(std::move(op));
}

int StreamProgram::marker(Stream stream, std::vector<Stream> waits, std::vector<int> after) {
  ProgramOp op;
  op.kind = ProgramOp::Kind::marker;
  op.stream = stream;
  op.waits = std::move(waits);
  op.after = std::move(after);
  return add(std::move(op));
}

namespace {

CollectiveScope scope_of(Group group) {
  switch (group) {
    case Group::data_parallel: return CollectiveScope::every_rank;
    case Group::shard: return CollectiveScope::within_machine;
    case Group::replicate: return CollectiveScope::across_machines;
  }
  return CollectiveScope::every_rank;
}

// The phases of one (kind, group) for 1 byte, shaped once: their resources and latencies do
// not depend on the size and their bytes are proportional to it.
struct PhaseTemplate {
  std::vector<FlowPhase> phases;
  std::vector<int> uses;
  std::vector<char> crosses_nic;
};

class Templates {
 public:
  Templates(TaskGraph& graph, const Topology& topology, const ProgramCosts& costs)
      : graph_(graph), topology_(topology), costs_(costs) {}
  const PhaseTemplate& get(CollectiveKind kind, Group group) {
    const auto key = std::make_pair(static_cast<int>(kind), static_cast<int>(group));
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second;
    PhaseTemplate t;
    CollectiveShape shape{kind, costs_.algorithm, 1.0, costs_.gpus_per_machine, costs_.latency,
                          costs_.collective_efficiency, costs_.host_staging, scope_of(group)};
    t.phases = collective_phases(topology_, shape);
    for (const FlowPhase& p : t.phases) {
      t.uses.push_back(graph_.add_uses(p.uses));
      const bool nic = std::any_of(p.uses.begin(), p.uses.end(),
                                   [&](const ResourceUse& u) { return topology_.machine_of_nic(u.resource) >= 0; });
      t.crosses_nic.push_back(nic ? 1 : 0);
    }
    return cache_.emplace(key, std::move(t)).first->second;
  }

 private:
  TaskGraph& graph_;
  const Topology& topology_;
  const ProgramCosts& costs_;
  std::map<std::pair<int, int>, PhaseTemplate> cache_;
};

// The dependencies of operation `i` (as task ids), from the last operations of the streams
// when it was enqueued.
std::vector<int> dependencies(const ProgramOp& op, const std::array<int, kStreams>& last_task, int start_task,
                              const std::vector<int>& op_last_task) {
  std::vector<int> deps;
  auto add = [&](int t) {
    if (t >= 0 && std::find(deps.begin(), deps.end(), t) == deps.end()) deps.push_back(t);
  };
  add(last_task[static_cast<std::size_t>(op.stream)]);
  if (op.stream != Stream::host) add(last_task[static_cast<std::size_t>(Stream::host)]);
  for (Stream s : op.waits) add(last_task[static_cast<std::size_t>(s)]);
  for (int a : op.after) add(op_last_task[static_cast<std::size_t>(a)]);
  if (deps.empty()) deps.push_back(start_task);
  return deps;
}

}  // namespace

BuiltProgram build_program(const StreamProgram& program, const Topology& topology, const ProgramCosts& costs) {
  BuiltProgram b;
  // One task per operation (a collective's phases may add more); sized once, so that the
  // growing vectors are neither moved nor their fresh pages touched twice.
  const std::size_t n = program.size() + 1;
  b.graph.reserve(n);
  b.task_op.reserve(n);
  b.op_stream_prev.reserve(n);
  b.op_host_task.reserve(n);
  Templates templates(b.graph, topology, costs);
  Task start;
  start.category = TaskCategory::marker;
  b.start_task = b.graph.add(std::move(start));
  b.task_op.push_back(-1);
  std::array<int, kStreams> last_task{};
  last_task.fill(-1);
  const auto& ops = program.ops();
  b.op_first_task.assign(ops.size(), -1);
  b.op_last_task.assign(ops.size(), -1);
  auto add_task = [&](Task t, int op) {
    const int id = b.graph.add(std::move(t));
    b.task_op.push_back(op);
    return id;
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const ProgramOp& op = ops[i];
    const int id = static_cast<int>(i);
    std::vector<int> deps = dependencies(op, last_task, b.start_task, b.op_last_task);
    b.op_stream_prev.push_back(last_task[static_cast<std::size_t>(op.stream)]);
    b.op_host_task.push_back(op.stream == Stream::host ? -1 : last_task[static_cast<std::size_t>(Stream::host)]);
    Task base;
    base.category = op.category;
    base.layer = op.layer;
    base.phase = op.index;
    int first = -1;
    int last = -1;
    switch (op.kind) {
      case ProgramOp::Kind::compute:
      case ProgramOp::Kind::copy:
      case ProgramOp::Kind::host_work: {
        Task t = base;
        t.kind = TaskKind::compute;
        if (op.kind == ProgramOp::Kind::compute) {
          t.duration = costs.compute.duration(op.use);
          t.flops = costs.compute.flops(op.use);
        } else if (op.kind == ProgramOp::Kind::copy) {
          if (op.bytes > 0 && !(costs.hbm_bandwidth > 0)) {
            throw ModelError("/cluster/gpu_memory_bandwidth", "the engine's copies need the GPU memory bandwidth");
          }
          t.duration = transfer_time(op.bytes, costs.hbm_bandwidth);
        } else {
          t.duration = op.duration;
        }
        t.deps = std::move(deps);
        first = last = add_task(std::move(t), id);
        if (op.kind == ProgramOp::Kind::compute) b.compute_tasks.push_back(last);
        break;
      }
      case ProgramOp::Kind::host_wait:
      case ProgramOp::Kind::marker: {
        Task t = base;
        t.kind = TaskKind::marker;
        t.deps = std::move(deps);
        first = last = add_task(std::move(t), id);
        break;
      }
      case ProgramOp::Kind::collective: {
        const PhaseTemplate& shape = templates.get(op.collective, op.group);
        for (std::size_t p = 0; p < shape.phases.size(); ++p) {
          Task t = base;
          t.kind = TaskKind::transfer;
          t.layer = op.index;  // collectives: group or bucket index, then the phase
          t.phase = static_cast<int>(p);
          t.latency = shape.phases[p].latency * static_cast<std::int64_t>(op.count);
          t.bytes = shape.phases[p].bytes * op.bytes;
          t.uses = shape.uses[p];
          t.deps = p == 0 ? std::move(deps) : std::vector<int>{last};
          const int task = add_task(std::move(t), id);
          if (first < 0) first = task;
          last = task;
          if (shape.crosses_nic[p]) b.network_tasks.push_back(task);
        }
        if (last < 0) {  // nothing to move (one GPU, or a group of one): a marker keeps the order
          Task t = base;
          t.kind = TaskKind::marker;
          t.deps = std::move(deps);
          first = last = add_task(std::move(t), id);
        }
        break;
      }
    }
    b.op_first_task[i] = first;
    b.op_last_task[i] = last;
    last_task[static_cast<std::size_t>(op.stream)] = last;
  }
  return b;
}

}  // namespace ckptsim
