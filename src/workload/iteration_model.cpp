#include "ckptsim/workload/iteration_model.hpp"

namespace ckptsim {

Zero3Options zero3_options(const Scenario& scenario) {
  Zero3Options o;
  o.algorithm = parse_collective_algorithm(scenario.cluster.network.collective);
  return o;
}

IterationModel simulate_iteration(const Scenario& scenario) {
  IterationModel m{Topology::build(scenario.cluster), {}, {}, {}};
  m.workload = make_zero3_iteration(scenario, m.topology, zero3_options(scenario));
  m.run = run_task_graph(m.workload.graph, m.topology.capacities());
  m.profile = extract_profile(m.workload.graph, m.run, m.topology, m.workload.network_tasks);
  return m;
}

double free_gpu_memory(const Scenario& scenario, const TransformerShape& shape, int prefetch) {
  const double ranks = static_cast<double>(scenario.cluster.machines) * scenario.cluster.gpus_per_machine;
  return scenario.cluster.gpu_memory_bytes - shape.gpu_memory_per_rank(ranks, prefetch);
}

}  // namespace ckptsim
