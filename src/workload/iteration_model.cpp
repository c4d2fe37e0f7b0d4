#include "ckptsim/workload/iteration_model.hpp"

#include <algorithm>

namespace ckptsim {

Zero3Options zero3_options(const Scenario& scenario) {
  Zero3Options o;
  o.algorithm = parse_collective_algorithm(scenario.cluster.network.collective);
  const Zero3Spec& z = scenario.training.zero3;
  o.knobs = Zero3Knobs{z.prefetch_bucket_size, z.param_persistence_threshold, z.max_live_parameters,
                       z.max_reuse_distance, z.reduce_bucket_size};
  o.host_lookahead = z.host_lookahead;
  return o;
}

IterationModel simulate_iteration(const Scenario& scenario) {
  IterationModel m{Topology::build(scenario.cluster), {}, {}, {}, {}};
  m.workload = make_zero3_iteration(scenario, m.topology, zero3_options(scenario));
  m.run = run_task_graph(m.workload.graph, m.topology.capacities());
  m.profile = extract_profile(m.workload.graph, m.run, m.topology, m.workload.network_tasks);
  m.memory = gpu_memory(scenario, m.workload.shape, m.workload.schedule.peak_live);
  return m;
}

const char* IterationBreakdown::limit() const {
  return exposed_communication > compute ? "exposed communication" : "compute";
}

IterationBreakdown breakdown(const IterationModel& model) {
  IterationBreakdown b;
  for (int id : model.workload.compute_tasks) b.compute += model.workload.graph.task(id).duration;
  b.boundary = model.workload.graph.task(model.workload.boundary_task).duration;
  b.optimizer = model.workload.graph.task(model.workload.optimizer_task).duration;
  b.exposed_communication = model.run.makespan - b.compute - b.boundary - b.optimizer;
  b.network_busy = model.run.makespan - model.profile.idle_time(0);
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
