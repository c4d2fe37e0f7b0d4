#pragma once
// TaskGraph: the operations of one training iteration (and, once the checkpoint layer adds
// them, its checkpoint traffic) as a directed acyclic graph.
//
// A task is
//   compute   a fixed duration on a stream (streams are expressed as dependencies: each task
//             depends on the previous one of its stream);
//   transfer  a per-message latency, then a flow of `bytes` over resources shared max-min
//             fairly with every other flow alive (network/flow_set.hpp);
//   marker    zero time, for joins.
// A task becomes ready when all its dependencies ended, and not before
//   end(anchor) + anchor_delay   and   not_before.
// Uses lists are kept once in the graph's pool and shared by every task using them (all
// all-gathers of one iteration cross the same links).
#include <cstdint>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/flow_solver.hpp"

namespace ckptsim {

enum class TaskKind { compute, transfer, marker };

enum class TaskCategory {
  forward,
  recompute,       ///< a layer's forward run again in backward (activation recomputation)
  backward,
  boundary,        ///< iteration-boundary synchronization before the optimizer step
  optimizer,
  all_gather,
  reduce_scatter,
  all_reduce,      ///< HSDP's gradient all-reduce across replicas; the step's scalar all-reduces
  copy,            ///< a memory-bound copy on a side stream (flatten, reassembly, bucket copy)
  host,            ///< the host waiting (an event, a synchronize) or working
  checkpoint_send,
  checkpoint_copy,
  local_copy,
  marker,
};

const char* to_string(TaskCategory c);

struct Task {
  TaskKind kind = TaskKind::marker;
  TaskCategory category = TaskCategory::marker;
  SimTime duration;        ///< compute
  double flops = 0;        ///< compute, per GPU
  SimTime latency;         ///< transfer: paid before the flow starts
  double bytes = 0;        ///< transfer: bytes of the flow (per stream)
  int uses = -1;           ///< transfer: index into TaskGraph::uses_pool()
  std::vector<int> deps;
  int anchor = -1;         ///< also a dependency; start >= end(anchor) + anchor_delay
  SimTime anchor_delay;
  SimTime not_before;
  int layer = -1;          ///< stage index (workload), or chunk index (checkpoint)
  int phase = 0;           ///< phase of a multi-phase collective, or replica copy index
};

class TaskGraph {
 public:
  /// Adds a task; its anchor (if any) is added to its dependencies. Returns its index.
  int add(Task task);
  /// Adds a use list to the pool; returns its index.
  int add_uses(std::vector<ResourceUse> uses);
  void add_dependency(int task, int dependency);
  /// Room for `tasks` tasks in all, so that adding them moves none (a hint: more may be added).
  void reserve(std::size_t tasks) { tasks_.reserve(tasks); }

  [[nodiscard]] const std::vector<Task>& tasks() const { return tasks_; }
  [[nodiscard]] const Task& task(int i) const { return tasks_[static_cast<std::size_t>(i)]; }
  [[nodiscard]] const std::vector<ResourceUse>& uses(int i) const { return uses_pool_[static_cast<std::size_t>(i)]; }
  [[nodiscard]] std::size_t size() const { return tasks_.size(); }

 private:
  std::vector<Task> tasks_;
  std::vector<std::vector<ResourceUse>> uses_pool_;
};

/// When each task became ready, started its work (after the latency, for transfers) and ended.
struct TaskTiming {
  SimTime ready;
  SimTime start;
  SimTime end;
};

struct GraphRun {
  std::vector<TaskTiming> timing;
  SimTime makespan;
  std::int64_t rate_solves = 0;
};

/// Runs the graph from time 0 on resources of `capacity` (bytes/s). Throws std::logic_error if
/// some task never becomes ready (a dependency cycle).
/// Complexity: O(#tasks log #tasks) for events plus one max-min solve per instant at which the
/// set of flows changes, each O(rounds x uses of the flows alive).
GraphRun run_task_graph(const TaskGraph& graph, const std::vector<double>& capacity);

}  // namespace ckptsim
