#include "ckptsim/workload/iteration_analysis.hpp"

#include <algorithm>

namespace ckptsim {

SimTime IterationBreakdown::compute() const {
  SimTime sum;
  for (const PhaseTime& p : phases) sum += p.time;
  return sum;
}

SimTime IterationBreakdown::exposed_total() const {
  SimTime sum;
  for (SimTime t : exposed) sum += t;
  return sum;
}

SimTime IterationBreakdown::phase(TaskCategory category) const {
  for (const PhaseTime& p : phases) {
    if (p.category == category) return p.time;
  }
  return SimTime::zero();
}

SimTime IterationBreakdown::exposed_by(Cause cause) const {
  for (std::size_t i = 0; i < kExposureCauses.size(); ++i) {
    if (kExposureCauses[i] == cause) return exposed[i];
  }
  return SimTime::zero();
}

namespace {

std::size_t cause_index(Cause c) {
  for (std::size_t i = 0; i < kExposureCauses.size(); ++i) {
    if (kExposureCauses[i] == c) return i;
  }
  return kExposureCauses.size() - 1;  // bandwidth: what a chain without a label waited for
}

// Attributes [from, to] of the compute stream's wait that ends when `task` becomes ready.
void attribute(const IterationModel& m, int task, SimTime from, SimTime to,
               std::array<SimTime, kExposureCauses.size()>& out) {
  const TaskGraph& graph = m.workload.graph();
  const auto& timing = m.run.timing;
  Cause held_by = Cause::none;  // the cause of the latest host wait the chain passed
  int cur = task;
  SimTime time = to;
  while (time > from) {
    const Task& t = graph.task(cur);
    // The dependency that ended last; on a tie a host wait (the host's decision held it back).
    int binding = -1;
    auto host_wait = [&](int task_id) {
      const ProgramOp* o = m.workload.op_for(task_id);
      return o != nullptr && o->kind == ProgramOp::Kind::host_wait;
    };
    for (int d : t.deps) {
      if (binding < 0) {
        binding = d;
        continue;
      }
      const SimTime de = timing[static_cast<std::size_t>(d)].end;
      const SimTime be = timing[static_cast<std::size_t>(binding)].end;
      if (de > be || (de == be && host_wait(d) && !host_wait(binding))) binding = d;
    }
    const ProgramOp* op = m.workload.op_for(cur);
    const Cause own = op != nullptr && op->cause != Cause::none ? op->cause : Cause::bandwidth;
    if (binding < 0 || timing[static_cast<std::size_t>(binding)].end < time) {
      // Ready later than its dependencies (a not-before time): the task itself held it.
      const SimTime start = binding < 0 ? from : std::max(from, timing[static_cast<std::size_t>(binding)].end);
      out[cause_index(held_by != Cause::none ? held_by : own)] += time - start;
      time = start;
      if (binding < 0) break;
      continue;
    }
    const ProgramOp* dep = m.workload.op_for(binding);
    if (dep != nullptr && dep->kind == ProgramOp::Kind::host_wait && dep->cause != Cause::none) held_by = dep->cause;
    const Cause dep_cause = dep != nullptr && dep->cause != Cause::none ? dep->cause : Cause::bandwidth;
    const SimTime start = std::max(from, timing[static_cast<std::size_t>(binding)].ready);
    out[cause_index(held_by != Cause::none ? held_by : dep_cause)] += time - start;
    time = start;
    cur = binding;
  }
}

}  // namespace

IterationBreakdown breakdown(const IterationModel& m) {
  IterationBreakdown b;
  const IterationWorkload& w = m.workload;
  const auto& ops = w.program.program.ops();
  std::vector<SimTime> by_category(static_cast<std::size_t>(TaskCategory::marker) + 1);
  SimTime stream_end;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].stream != Stream::compute) continue;
    const int task = w.built.op_first_task[i];
    const TaskTiming& t = m.run.timing[static_cast<std::size_t>(task)];
    if (t.ready > stream_end) attribute(m, task, stream_end, t.ready, b.exposed);
    if (ops[i].kind == ProgramOp::Kind::compute) by_category[static_cast<std::size_t>(ops[i].category)] += t.end - t.start;
    stream_end = std::max(stream_end, t.end);
  }
  if (m.run.makespan > stream_end) {
    int last = 0;
    for (std::size_t i = 0; i < m.run.timing.size(); ++i) {
      if (m.run.timing[i].end > m.run.timing[static_cast<std::size_t>(last)].end) last = static_cast<int>(i);
    }
    // The tail: the last task to end held the iteration open (its own time, then its chain).
    const TaskTiming& t = m.run.timing[static_cast<std::size_t>(last)];
    const ProgramOp* op = w.op_for(last);
    const Cause own = op != nullptr && op->cause != Cause::none ? op->cause : Cause::bandwidth;
    const SimTime start = std::max(stream_end, t.ready);
    b.exposed[cause_index(own)] += m.run.makespan - start;
    if (start > stream_end) attribute(m, last, stream_end, start, b.exposed);
  }
  for (std::size_t c = 0; c < by_category.size(); ++c) {
    if (by_category[c] > SimTime::zero()) b.phases.push_back({static_cast<TaskCategory>(c), by_category[c]});
  }
  b.profiler_idle = m.profile.idle_time(0);
  b.silent_idle = m.profile.silent_time(0);
  return b;
}

const std::vector<SimTime>& SpanDistribution::bucket_upper_bounds() {
  static const std::vector<SimTime> bounds{milliseconds(1), milliseconds(10), milliseconds(100), seconds(1)};
  return bounds;
}

SpanDistribution span_distribution(const std::vector<IdleSpan>& spans) {
  SpanDistribution d;
  const auto& bounds = SpanDistribution::bucket_upper_bounds();
  d.histogram.assign(bounds.size() + 1, 0);
  for (const IdleSpan& s : spans) {
    ++d.count;
    d.total += s.length;
    d.longest = std::max(d.longest, s.length);
    std::size_t b = 0;
    while (b < bounds.size() && s.length >= bounds[b]) ++b;
    ++d.histogram[b];
  }
  return d;
}

}  // namespace ckptsim
