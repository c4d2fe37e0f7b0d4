#include "ckptsim/workload/task_graph.hpp"

#include <algorithm>
#include <stdexcept>

#include "ckptsim/core/event_queue.hpp"
#include "ckptsim/network/flow_set.hpp"

namespace ckptsim {

const char* to_string(TaskCategory c) {
  switch (c) {
    case TaskCategory::forward: return "forward";
    case TaskCategory::recompute: return "recompute";
    case TaskCategory::backward: return "backward";
    case TaskCategory::boundary: return "boundary";
    case TaskCategory::optimizer: return "optimizer";
    case TaskCategory::all_gather: return "all-gather";
    case TaskCategory::reduce_scatter: return "reduce-scatter";
    case TaskCategory::all_reduce: return "all-reduce";
    case TaskCategory::copy: return "copy";
    case TaskCategory::host: return "host";
    case TaskCategory::checkpoint_send: return "checkpoint-chunk";
    case TaskCategory::checkpoint_copy: return "gpu-to-cpu-copy";
    case TaskCategory::local_copy: return "local-copy";
    case TaskCategory::marker: return "marker";
  }
  return "?";
}

int TaskGraph::add(Task task) {
  if (task.anchor >= 0 && std::find(task.deps.begin(), task.deps.end(), task.anchor) == task.deps.end()) {
    task.deps.push_back(task.anchor);
  }
  tasks_.push_back(std::move(task));
  return static_cast<int>(tasks_.size()) - 1;
}

int TaskGraph::add_uses(std::vector<ResourceUse> uses) {
  uses_pool_.push_back(std::move(uses));
  return static_cast<int>(uses_pool_.size()) - 1;
}

void TaskGraph::add_dependency(int task, int dependency) {
  tasks_[static_cast<std::size_t>(task)].deps.push_back(dependency);
}

namespace {

enum class EventType : std::uint8_t { start, latency_done, compute_done };
struct Event {
  EventType type;
  int task;
};

}  // namespace

GraphRun run_task_graph(const TaskGraph& graph, const std::vector<double>& capacity) {
  const auto& tasks = graph.tasks();
  const std::size_t n = tasks.size();
  GraphRun run;
  run.timing.assign(n, TaskTiming{});
  // Dependents in compressed-row form.
  std::vector<int> waiting(n, 0);
  std::vector<std::size_t> first(n + 1, 0);
  for (const Task& t : tasks) {
    for (int d : t.deps) ++first[static_cast<std::size_t>(d) + 1];
  }
  for (std::size_t i = 0; i < n; ++i) first[i + 1] += first[i];
  std::vector<int> dependents(first[n]);
  {
    std::vector<std::size_t> fill(first.begin(), first.end() - 1);
    for (std::size_t i = 0; i < n; ++i) {
      waiting[i] = static_cast<int>(tasks[i].deps.size());
      for (int d : tasks[i].deps) dependents[fill[static_cast<std::size_t>(d)]++] = static_cast<int>(i);
    }
  }
  std::vector<SimTime> ready(n);
  for (std::size_t i = 0; i < n; ++i) ready[i] = tasks[i].not_before;

  EventQueue<Event> events;
  events.reserve(n);
  FlowSet flows(capacity);
  std::size_t finished = 0;

  for (std::size_t i = 0; i < n; ++i) {
    if (waiting[i] == 0) events.schedule(ready[i], Event{EventType::start, static_cast<int>(i)});
  }

  auto complete = [&](int id, SimTime t) {
    run.timing[static_cast<std::size_t>(id)].end = t;
    ++finished;
    for (std::size_t k = first[static_cast<std::size_t>(id)]; k < first[static_cast<std::size_t>(id) + 1]; ++k) {
      const auto d = static_cast<std::size_t>(dependents[k]);
      SimTime at = t;
      if (tasks[d].anchor == id) at = t + tasks[d].anchor_delay;
      ready[d] = std::max(ready[d], at);
      if (--waiting[d] == 0) events.schedule(ready[d], Event{EventType::start, static_cast<int>(d)});
    }
  };

  while (!events.empty() || flows.size() > 0) {
    SimTime t = events.empty() ? SimTime::max() : events.top().time;
    if (auto c = flows.next_completion(); c && *c < t) t = *c;
    for (auto tag : flows.advance_to(t)) complete(static_cast<int>(tag), t);
    while (!events.empty() && events.top().time <= t) {
      const Event e = events.pop().payload;
      const Task& task = tasks[static_cast<std::size_t>(e.task)];
      TaskTiming& timing = run.timing[static_cast<std::size_t>(e.task)];
      switch (e.type) {
        case EventType::start:
          timing.ready = t;
          if (task.kind == TaskKind::compute) {
            timing.start = t;
            events.schedule(t + task.duration, Event{EventType::compute_done, e.task});
          } else if (task.kind == TaskKind::transfer) {
            events.schedule(t + task.latency, Event{EventType::latency_done, e.task});
          } else {
            timing.start = t;
            complete(e.task, t);
          }
          break;
        case EventType::latency_done:
          timing.start = t;
          if (task.bytes > 0 && task.uses >= 0) {
            flows.add(graph.uses(task.uses), task.bytes, e.task);
          } else {
            complete(e.task, t);
          }
          break;
        case EventType::compute_done:
          complete(e.task, t);
          break;
      }
    }
  }
  if (finished != n) throw std::logic_error("task graph: some tasks never became ready (dependency cycle)");
  for (const TaskTiming& tt : run.timing) run.makespan = std::max(run.makespan, tt.end);
  run.rate_solves = flows.solves();
  return run;
}

}  // namespace ckptsim
