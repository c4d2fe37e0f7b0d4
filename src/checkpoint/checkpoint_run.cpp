#include "ckptsim/checkpoint/checkpoint_run.hpp"

#include <algorithm>
#include <stdexcept>

#include "ckptsim/core/error.hpp"
#include "ckptsim/network/collectives.hpp"

namespace ckptsim {

std::vector<std::vector<int>> ordered_peers(const Placement& placement) {
  const int n = placement.machines;
  std::vector<std::vector<int>> peers(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    for (int h : placement.holders[static_cast<std::size_t>(i)]) {
      if (h != i) peers[static_cast<std::size_t>(i)].push_back(h);
    }
    auto distance = [&](int h) { return ((h - i) % n + n) % n; };
    std::sort(peers[static_cast<std::size_t>(i)].begin(), peers[static_cast<std::size_t>(i)].end(),
              [&](int a, int b) { return distance(a) < distance(b); });
  }
  return peers;
}

namespace {

struct UsePools {
  std::vector<int> send;  // per copy index
  std::vector<int> copy;  // per copy index
  int local = -1;
};

UsePools add_use_pools(TaskGraph& graph, const Topology& topology, const Placement& placement, int copies, int g,
                       SendLinks links) {
  if (placement.machines != topology.machines()) {
    throw std::logic_error("checkpoint: placement and cluster disagree on the number of machines");
  }
  const auto peers = ordered_peers(placement);
  UsePools pools;
  const int n = topology.machines();
  for (int j = 0; j < copies; ++j) {
    std::vector<ResourceUse> send;
    std::vector<ResourceUse> copy;
    for (int i = 0; i < n; ++i) {
      const auto& p = peers[static_cast<std::size_t>(i)];
      if (static_cast<int>(p.size()) <= j) throw std::logic_error("checkpoint: a machine has fewer peers than copies");
      const int peer = p[static_cast<std::size_t>(j)];
      add_route_uses(send, topology, topology.route(i, peer), static_cast<double>(g), links.nic_efficiency);
      if (links.host_staging) add_use(send, topology.pcie(i), 1.0);
      add_use(copy, topology.pcie(peer), 1.0);
    }
    pools.send.push_back(graph.add_uses(std::move(send)));
    pools.copy.push_back(graph.add_uses(std::move(copy)));
  }
  std::vector<ResourceUse> local;
  for (int i = 0; i < n; ++i) local.push_back({topology.pcie(i), 1.0});
  pools.local = graph.add_uses(std::move(local));
  return pools;
}

/// The tasks add_plan_tasks adds: a send and a copy per chunk, and the local copy.
std::size_t plan_task_count(const CheckpointPlan& plan) { return 2 * plan.chunks.size() + 1; }

// Adds the plan's tasks to `run.graph`. `anchors_of_span[k]` is the task opening span k
// (-1: none, use the planned clock time). `leftover_anchor`/`leftover_delay` place span d.
void add_plan_tasks(CheckpointRun& run, const Topology& topology, const CheckpointPlan& plan, const Placement& placement,
                    int g, SimTime alpha, bool anchored, SendLinks links) {
  TaskGraph& graph = run.graph;
  graph.reserve(graph.size() + plan_task_count(plan));
  const UsePools pools = add_use_pools(graph, topology, placement, plan.copies, g, links);
  const int d = static_cast<int>(plan.spans.size());
  const int p = std::max(1, plan.sub_buffers);
  for (const PlannedChunk& c : plan.chunks) {
    Task send;
    send.kind = TaskKind::transfer;
    send.category = TaskCategory::checkpoint_send;
    send.latency = alpha;
    send.bytes = c.bytes;
    send.uses = pools.send[static_cast<std::size_t>(c.copy)];
    send.layer = c.index;
    send.phase = c.copy;
    int anchor = -1;
    SimTime delay = c.offset;
    if (anchored && c.span >= 0 && d > 0) {
      const IdleSpan& span = plan.spans[static_cast<std::size_t>(std::min(c.span, d - 1))];
      anchor = span.anchor;
      if (c.span >= d) delay = span.length + c.offset;
    }
    if (anchor >= 0) {
      send.anchor = anchor;
      send.anchor_delay = delay;
    } else {
      send.not_before = c.span < 0 ? c.offset : c.planned_start;
    }
    if (!run.send_tasks.empty()) send.deps.push_back(run.send_tasks.back());
    const auto idx = static_cast<std::size_t>(c.index);
    if (idx >= static_cast<std::size_t>(p)) send.deps.push_back(run.copy_tasks[idx - static_cast<std::size_t>(p)]);
    const int s = graph.add(std::move(send));
    run.send_tasks.push_back(s);

    Task copy;
    copy.kind = TaskKind::transfer;
    copy.category = TaskCategory::checkpoint_copy;
    copy.bytes = c.bytes;
    copy.uses = pools.copy[static_cast<std::size_t>(c.copy)];
    copy.layer = c.index;
    copy.phase = c.copy;
    copy.deps.push_back(s);
    if (!run.copy_tasks.empty()) copy.deps.push_back(run.copy_tasks.back());
    run.copy_tasks.push_back(graph.add(std::move(copy)));
  }
  Task local;
  local.kind = TaskKind::transfer;
  local.category = TaskCategory::local_copy;
  local.bytes = plan.shard_bytes;
  local.uses = pools.local;
  local.not_before = plan.local_copy_start;
  run.local_copy_task = graph.add(std::move(local));
}

void measure(CheckpointRun& r) {
  const auto& t = r.run.timing;
  r.sends_done = r.send_tasks.empty() ? SimTime::zero() : t[static_cast<std::size_t>(r.send_tasks.back())].end;
  r.checkpoint_time = t[static_cast<std::size_t>(r.local_copy_task)].end;
  for (int k : r.copy_tasks) r.checkpoint_time = std::max(r.checkpoint_time, t[static_cast<std::size_t>(k)].end);
  // Sub-buffer occupancy of a receiving GPU: +bytes when a send is issued, -bytes when its
  // copy ends. Releases at an instant are applied before acquisitions at the same instant.
  std::vector<std::pair<SimTime, double>> changes;
  for (std::size_t c = 0; c < r.send_tasks.size(); ++c) {
    const double bytes = r.graph.task(r.send_tasks[c]).bytes;
    changes.emplace_back(t[static_cast<std::size_t>(r.send_tasks[c])].ready, bytes);
    changes.emplace_back(t[static_cast<std::size_t>(r.copy_tasks[c])].end, -bytes);
  }
  std::sort(changes.begin(), changes.end());
  double held = 0;
  for (const auto& [time, delta] : changes) {
    held += delta;
    r.peak_buffer_bytes = std::max(r.peak_buffer_bytes, held);
  }
}

}  // namespace

CheckpointRun run_with_checkpoint(const IterationModel& model, const CheckpointPlan& plan, const Placement& placement,
                                  int gpus_per_machine, SimTime alpha, SendLinks links) {
  // The plan's tasks are tied into the training graph (the optimizer step waits for them, a
  // blocking plan gates the iteration's first task): a model without that graph (the megatron
  // parallelism model computes its schedule in closed form) has neither task to tie them to.
  const TaskGraph& training = model.workload.graph();
  const auto in_graph = [&](int task) { return task >= 0 && static_cast<std::size_t>(task) < training.size(); };
  if (!in_graph(model.workload.first_task) || !in_graph(model.workload.optimizer_task))
    throw ModelError("/training/parallelism",
                     "run_with_checkpoint needs the iteration's training task graph (its first task and optimizer "
                     "step), and this iteration model has none (a closed-form parallelism model such as megatron: "
                     "IterationModel::has_training_graph() is false); run_checkpoint_alone simulates the plan's "
                     "traffic without it, as evaluate_scheduler does for such models");
  CheckpointRun r;
  // Sized for the plan's tasks before the training graph is copied in, so that adding them does
  // not move the copy (its thousands of tasks) into new memory.
  r.graph.reserve(model.workload.graph().size() + plan_task_count(plan));
  r.graph = model.workload.graph();
  add_plan_tasks(r, model.topology, plan, placement, gpus_per_machine, alpha, !model.profile.imported, links);
  const int optimizer = model.workload.optimizer_task;
  if (!r.send_tasks.empty()) r.graph.add_dependency(optimizer, r.send_tasks.back());
  r.graph.add_dependency(optimizer, r.local_copy_task);
  if (plan.blocks_training && !r.send_tasks.empty()) r.graph.add_dependency(model.workload.first_task, r.send_tasks.back());
  r.run = run_task_graph(r.graph, model.topology.capacities());
  // The iteration ends with the last training task (the optimizer's, or what follows it).
  for (std::size_t i = 0; i < model.workload.graph().size(); ++i) r.iteration_time = std::max(r.iteration_time, r.run.timing[i].end);
  measure(r);
  return r;
}

CheckpointRun run_checkpoint_alone(const Topology& topology, const CheckpointPlan& plan, const Placement& placement,
                                   int gpus_per_machine, SimTime alpha, SendLinks links) {
  CheckpointRun r;
  add_plan_tasks(r, topology, plan, placement, gpus_per_machine, alpha, false, links);
  r.run = run_task_graph(r.graph, topology.capacities());
  measure(r);
  r.iteration_time = r.sends_done;
  return r;
}

}  // namespace ckptsim
