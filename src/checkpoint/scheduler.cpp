#include "ckptsim/checkpoint/scheduler.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <mutex>
#include <stdexcept>

#include "ckptsim/checkpoint/partition.hpp"
#include "ckptsim/checkpoint/plan_check.hpp"
#include "ckptsim/core/error.hpp"

namespace ckptsim {

double CheckpointPlan::buffer_bytes() const {
  std::vector<double> largest(static_cast<std::size_t>(std::max(1, sub_buffers)), 0.0);
  for (const PlannedChunk& c : chunks) {
    auto& l = largest[static_cast<std::size_t>(c.sub_buffer)];
    l = std::max(l, c.bytes);
  }
  double total = 0;
  for (double l : largest) total += l;
  return total;
}

double CheckpointPlan::sent_bytes() const {
  double total = 0;
  for (const PlannedChunk& c : chunks) total += c.bytes;
  return total;
}

namespace {

CheckpointPlan from_partition(SchedulerKind name, const ScheduleInput& in, const PartitionInput& pin, int sub_buffers) {
  const Partition part = partition_checkpoint(pin);
  CheckpointPlan plan;
  plan.scheduler = name;
  plan.shard_bytes = in.shard_bytes;
  plan.copies = in.copies;
  plan.sub_buffers = sub_buffers;
  plan.chunk_limit = pin.chunk_bytes;
  plan.spans = in.spans;
  plan.leftover_bytes = part.leftover_bytes;
  plan.leftover_time = part.leftover_time;
  const int d = static_cast<int>(in.spans.size());
  const SimTime after_last = d > 0 ? in.spans.back().start + in.spans.back().length : SimTime::zero();
  for (std::size_t i = 0; i < part.chunks.size(); ++i) {
    const PartitionChunk& c = part.chunks[i];
    PlannedChunk pc;
    pc.index = static_cast<int>(i);
    pc.copy = c.copy;
    pc.span = c.span;
    pc.offset = c.offset;
    pc.bytes = c.bytes;
    pc.sub_buffer = static_cast<int>(i % static_cast<std::size_t>(sub_buffers));
    pc.planned_start = (c.span < d ? in.spans[static_cast<std::size_t>(c.span)].start : after_last) + c.offset;
    plan.chunks.push_back(pc);
  }
  if (!std::isfinite(plan.chunk_limit)) {
    plan.chunk_limit = 0;
    for (const PlannedChunk& c : plan.chunks) plan.chunk_limit = std::max(plan.chunk_limit, c.bytes);
  }
  return plan;
}

PartitionInput partition_input(const ScheduleInput& in) {
  PartitionInput p;
  for (const IdleSpan& s : in.spans) p.spans.push_back(s.length);
  p.shard_bytes = in.shard_bytes;
  p.copies = in.copies;
  p.bandwidth = in.bandwidth;
  p.alpha = in.alpha;
  p.mu = in.span_safety;
  return p;
}

int checked_sub_buffers(const ScheduleInput& in) {
  if (in.sub_buffers < 1) throw ModelError("/strategy/sub_buffers", "the traffic scheduler needs at least 1 sub-buffer");
  if (!(in.buffer_bytes > 0)) throw ModelError("/strategy/gpu_buffer", "the traffic scheduler needs a positive GPU buffer");
  return in.sub_buffers;
}

CheckpointPlan gemini(const ScheduleInput& in) {
  const int p = checked_sub_buffers(in);
  PartitionInput pin = partition_input(in);
  pin.chunk_bytes = in.buffer_bytes / p;
  return from_partition(SchedulerKind::gemini, in, pin, p);
}

CheckpointPlan single_buffer(const ScheduleInput& in) {
  checked_sub_buffers(in);
  PartitionInput pin = partition_input(in);
  pin.chunk_bytes = in.buffer_bytes;
  return from_partition(SchedulerKind::single_buffer, in, pin, 1);
}

CheckpointPlan naive(const ScheduleInput& in) {
  PartitionInput pin = partition_input(in);
  pin.one_chunk_per_span = true;
  return from_partition(SchedulerKind::naive, in, pin, 1);
}

CheckpointPlan blocking(const ScheduleInput& in) {
  const int p = checked_sub_buffers(in);
  // No idle spans: everything is "leftover" placed from time 0 with the spans left out.
  PartitionInput pin = partition_input(in);
  pin.spans.clear();
  pin.chunk_bytes = in.buffer_bytes / p;
  ScheduleInput no_spans = in;
  no_spans.spans.clear();
  CheckpointPlan plan = from_partition(SchedulerKind::blocking, no_spans, pin, p);
  for (PlannedChunk& c : plan.chunks) c.span = -1;
  plan.spans = in.spans;
  plan.blocks_training = true;
  plan.leftover_bytes = 0;
  plan.leftover_time = SimTime::zero();
  return plan;
}

}  // namespace

const Registry<SchedulerFactory>& scheduler_registry() {
  static const Registry<SchedulerFactory> registry = [] {
    const auto name = [](SchedulerKind kind) { return std::string(name_of(kind)); };
    Registry<SchedulerFactory> r("checkpoint traffic scheduler");
    r.add(name(SchedulerKind::blocking), "all checkpoint traffic at the iteration start; training waits (GEMINI 7.4 ablation)", blocking);
    r.add(name(SchedulerKind::naive), "one chunk per idle span, buffer as large as the largest span's worth", naive);
    r.add(name(SchedulerKind::single_buffer), "chunks of R in one GPU buffer, no pipelining of GPU-to-CPU copies", single_buffer);
    r.add(name(SchedulerKind::gemini), "GEMINI Algorithm 2: p pipelined sub-buffers of R/p, span safety mu, leftover after the last span",
          gemini);
    return r;
  }();
  return registry;
}

CheckpointPlan plan_for(const ScheduleInput& input) {
  CheckpointPlan plan;
  plan.shard_bytes = input.shard_bytes;
  plan.copies = input.copies;
  plan.spans = input.spans;
  return plan;
}

namespace {

// Schedulers a program registered (register_scheduler). Their names are in the scenario layer's
// list (scenario/scheduler_id.hpp), which the loader reads; their functions are here, by id,
// behind a mutex of their own. Registration takes this mutex, then the list's
// (add_scheduler_name); nothing takes them in the other order. A function runs with no lock
// held, so it may call make_plan itself (a wrapper of a built-in or of another registered one).

struct RegisteredScheduler {
  std::string description;
  SchedulerFunction plan;
};

/// Entry k holds the scheduler with id kBuiltinSchedulers + k (null: a name added to the list
/// without register_scheduler, which has no plan).
struct RegisteredSchedulerTable {
  std::mutex mutex;
  std::deque<std::shared_ptr<const RegisteredScheduler>> entries;
};

RegisteredSchedulerTable& registered_scheduler_table() {
  static RegisteredSchedulerTable table;
  return table;
}

std::shared_ptr<const RegisteredScheduler> registered_scheduler(SchedulerId scheduler) {
  RegisteredSchedulerTable& table = registered_scheduler_table();
  const std::lock_guard<std::mutex> lock(table.mutex);
  const auto k = static_cast<std::size_t>(scheduler.index() - kBuiltinSchedulers);
  if (scheduler.index() < kBuiltinSchedulers || k >= table.entries.size() || !table.entries[k])
    throw ModelError("/strategy/scheduler", "the scheduler \"" + name_of(scheduler) +
                                                "\" has a name but no plan function: register it with register_scheduler");
  return table.entries[k];
}

}  // namespace

SchedulerId register_scheduler(const std::string& name, const std::string& description, SchedulerFunction plan) {
  if (!plan)
    throw InputError("register_scheduler", "", "a plan function for the scheduler \"" + name + "\"", "an empty std::function");
  RegisteredSchedulerTable& table = registered_scheduler_table();
  const std::lock_guard<std::mutex> lock(table.mutex);
  const SchedulerId id = add_scheduler_name(name);  // refuses bad and taken names
  const auto k = static_cast<std::size_t>(id.index() - kBuiltinSchedulers);
  if (table.entries.size() <= k) table.entries.resize(k + 1);
  table.entries[k] = std::make_shared<const RegisteredScheduler>(RegisteredScheduler{description, std::move(plan)});
  return id;
}

std::string scheduler_description(SchedulerId scheduler) {
  if (const auto kind = scheduler.builtin()) return scheduler_registry().at(name_of(*kind)).description;
  return registered_scheduler(scheduler)->description;
}

CheckpointPlan make_plan(SchedulerId scheduler, const ScheduleInput& input) {
  if (const auto kind = scheduler.builtin()) return scheduler_registry().at(name_of(*kind)).factory(input);
  const std::shared_ptr<const RegisteredScheduler> entry = registered_scheduler(scheduler);
  CheckpointPlan plan = entry->plan(input);
  plan.scheduler = scheduler;
  complete_plan(plan, input);
  check_plan(plan, input, name_of(scheduler));
  return plan;
}

}  // namespace ckptsim
