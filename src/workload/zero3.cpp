#include "ckptsim/workload/zero3.hpp"

#include "ckptsim/core/error.hpp"
#include "ckptsim/workload/kernel_time.hpp"

namespace ckptsim {

Zero3Program make_zero3_program(const TransformerShape& shape) {
  Zero3Program p;
  const double h = shape.hidden;
  const double f = shape.ffn;
  // Module 0: the tied embedding (+ final LayerNorm); layer k: 1 + 4k .. 4 + 4k.
  p.modules.push_back({{shape.vocabulary * h, h, h}});
  for (int k = 0; k < shape.layers; ++k) {
    p.modules.push_back({{3 * h * h, 3 * h, h, h}});  // QKV + LayerNorm 1
    p.modules.push_back({{h * h, h}});                // O
    p.modules.push_back({{h * f, f, h, h}});          // FC1 + LayerNorm 2
    p.modules.push_back({{f * h, h}});                // FC2
  }
  // Each (use, pass)'s FLOPs once (kernels.hpp), not once per layer.
  double flops[kComputeUses][kPasses] = {};
  for (int u = 0; u < kComputeUses; ++u)
    for (int q = 0; q < kPasses; ++q) {
      const auto use = static_cast<ComputeUse>(u);
      if (q == static_cast<int>(Pass::recompute) && (use == ComputeUse::embedding || use == ComputeUse::output)) continue;
      for (const Kernel& k : use_kernels(shape, use, static_cast<Pass>(q))) flops[u][q] += k.flops;
    }
  auto use = [&](int module, ComputeUse kind, Pass pass, TaskCategory c, int layer, bool gradient) {
    p.uses.push_back({module, gradient ? p.modules[static_cast<std::size_t>(module)].total() : 0.0});
    p.flops.push_back(flops[static_cast<int>(kind)][static_cast<int>(pass)]);
    p.compute.emplace_back(kind, pass);
    p.category.push_back(c);
    p.layer.push_back(layer);
  };
  use(0, ComputeUse::embedding, Pass::forward, TaskCategory::forward, -1, false);
  for (int k = 0; k < shape.layers; ++k) {
    for (int i = 0; i < 4; ++i) use(1 + 4 * k + i, kLayerUses[i], Pass::forward, TaskCategory::forward, k, false);
  }
  use(0, ComputeUse::output, Pass::forward, TaskCategory::forward, -1, false);
  use(0, ComputeUse::output, Pass::backward, TaskCategory::backward, -1, false);
  for (int k = shape.layers - 1; k >= 0; --k) {
    if (shape.recompute) {
      for (int i = 0; i < 4; ++i)
        use(1 + 4 * k + i, kLayerUses[i], Pass::recompute, TaskCategory::recompute, k, false);
    }
    for (int i = 3; i >= 0; --i) use(1 + 4 * k + i, kLayerUses[i], Pass::backward, TaskCategory::backward, k, true);
  }
  use(0, ComputeUse::embedding, Pass::backward, TaskCategory::backward, -1, true);
  return p;
}

namespace {

// A collective's phases for any size: the phases' resources and latencies do not depend on the
// byte count and their bytes are proportional to it, so they are shaped once per kind.
struct CollectiveTemplate {
  std::vector<FlowPhase> phases;  // for 1 byte
  std::vector<int> uses;
};

CollectiveTemplate shape_collective(TaskGraph& graph, const Topology& topology, CollectiveKind kind,
                                    const Zero3Options& options, const ClusterSpec& c) {
  CollectiveTemplate t;
  t.phases = collective_phases(topology, CollectiveShape{kind, options.algorithm, 1.0, c.gpus_per_machine, c.network.latency,
                                                         c.network.collective_efficiency, !c.gpudirect_rdma});
  for (const FlowPhase& p : t.phases) t.uses.push_back(graph.add_uses(p.uses));
  return t;
}

// Appends the phases of one collective of `bytes` as chained transfer tasks; returns the last.
int add_collective(Zero3Iteration& it, const CollectiveTemplate& shape, double bytes, TaskCategory category, int index,
                   std::vector<int> deps) {
  int last = -1;
  for (std::size_t p = 0; p < shape.phases.size(); ++p) {
    Task t;
    t.kind = TaskKind::transfer;
    t.category = category;
    t.latency = shape.phases[p].latency;
    t.bytes = shape.phases[p].bytes * bytes;
    t.uses = shape.uses[p];
    t.deps = p == 0 ? std::move(deps) : std::vector<int>{last};
    t.layer = index;
    t.phase = static_cast<int>(p);
    last = it.graph.add(std::move(t));
    it.network_tasks.push_back(last);
  }
  if (last < 0) {  // nothing to move (a single GPU): a marker keeps the stream order
    Task t;
    t.category = TaskCategory::marker;
    t.deps = std::move(deps);
    t.layer = index;
    last = it.graph.add(std::move(t));
  }
  return last;
}

void check_inputs(const Scenario& scenario) {
  const ClusterSpec& c = scenario.cluster;
  if (c.network.collective_efficiency <= 0 || c.network.collective_efficiency > 1) {
    throw ModelError("/cluster/network/collective_efficiency", "must be in (0, 1]");
  }
  if (c.network.p2p_efficiency <= 0 || c.network.p2p_efficiency > 1) {
    throw ModelError("/cluster/network/p2p_efficiency", "must be in (0, 1]");
  }
}

/// The step phases' shape: the rank's partition, its tensors (every module's), the batch.
StepShape step_shape(const Scenario& scenario, const Zero3Program& program, const TransformerShape& shape) {
  StepShape x;
  const double ranks = static_cast<double>(scenario.cluster.machines) * scenario.cluster.gpus_per_machine;
  x.partition_elements = shape.parameters() / ranks;
  for (const SubModule& m : program.modules) x.tensors += static_cast<double>(m.tensors.size());
  x.sub_group_size = scenario.training.zero3.sub_group_size;
  x.tokens = shape.micro_batch * shape.sequence;
  x.word_bytes = shape.word_bytes();
  x.host_bandwidth = scenario.cluster.gpu_cpu_bandwidth;
  return x;
}

}  // namespace

Zero3Iteration make_zero3_iteration(const Scenario& scenario, const Topology& topology, const Zero3Options& options) {
  check_inputs(scenario);
  const ClusterSpec& c = scenario.cluster;
  Zero3Iteration it;
  it.shape = TransformerShape::from(scenario);
  const ComputeTimes times(it.shape, c, scenario.training.compute_efficiency);
  const double w = it.shape.word_bytes();
  const Zero3Program program = make_zero3_program(it.shape);
  it.schedule = plan_zero3(program.modules, program.uses, options.knobs);
  const CollectiveTemplate ag = shape_collective(it.graph, topology, CollectiveKind::all_gather, options, c);
  const CollectiveTemplate rs = shape_collective(it.graph, topology, CollectiveKind::reduce_scatter, options, c);

  Task start;
  start.category = TaskCategory::marker;
  it.first_task = it.graph.add(std::move(start));
  const std::size_t n_uses = program.uses.size();
  it.compute_tasks.assign(n_uses, -1);
  std::size_t next_gather = 0;
  std::size_t next_bucket = 0;
  const auto& gathers = it.schedule.gathers;
  const auto& buckets = it.schedule.buckets;
  for (std::size_t j = 0; j < n_uses; ++j) {
    // Gathers issued when the host reaches use j.
    for (; next_gather < gathers.size() && gathers[next_gather].step == static_cast<int>(j); ++next_gather) {
      const auto lag = static_cast<std::ptrdiff_t>(j) - 1 - options.host_lookahead;
      std::vector<int> deps{lag < 0 ? it.first_task : it.compute_tasks[static_cast<std::size_t>(lag)]};
      if (!it.gather_tasks.empty()) deps.push_back(it.gather_tasks.back());
      it.gather_tasks.push_back(add_collective(it, ag, gathers[next_gather].elements * w, TaskCategory::all_gather,
                                               static_cast<int>(next_gather), std::move(deps)));
    }
    Task t;
    t.kind = TaskKind::compute;
    t.category = program.category[j];
    t.layer = program.layer[j];
    t.phase = program.uses[j].module;
    t.flops = program.flops[j];
    t.duration = times.duration(program.compute[j].first, program.compute[j].second);
    t.deps.push_back(j == 0 ? it.first_task : it.compute_tasks[j - 1]);
    if (const int g = it.schedule.waits_on[j]; g >= 0) t.deps.push_back(it.gather_tasks[static_cast<std::size_t>(g)]);
    it.compute_tasks[j] = it.graph.add(std::move(t));
    for (; next_bucket < buckets.size() && buckets[next_bucket].after_use == static_cast<int>(j); ++next_bucket) {
      std::vector<int> deps{it.compute_tasks[j]};
      if (!it.reduce_tasks.empty()) deps.push_back(it.reduce_tasks.back());
      it.reduce_tasks.push_back(add_collective(it, rs, buckets[next_bucket].elements * w, TaskCategory::reduce_scatter,
                                               static_cast<int>(next_bucket), std::move(deps)));
    }
  }
  const KernelTimer step_timer = KernelTimer::memory_only(c);
  const StepShape step = step_shape(scenario, program, it.shape);
  it.boundary_phases = boundary_phases(step_timer, step);
  it.optimizer_phases = optimizer_step_phases(step_timer, step);
  Task boundary;
  boundary.kind = TaskKind::compute;
  boundary.category = TaskCategory::boundary;
  boundary.duration = total_duration(it.boundary_phases);
  for (const FlowPhase& p : ag.phases) boundary.duration += p.latency * 2;
  for (const FlowPhase& p : rs.phases) boundary.duration += p.latency * 2;
  boundary.deps = {it.compute_tasks.back()};
  if (!it.reduce_tasks.empty()) boundary.deps.push_back(it.reduce_tasks.back());
  it.boundary_task = it.graph.add(std::move(boundary));

  Task opt;
  opt.kind = TaskKind::compute;
  opt.category = TaskCategory::optimizer;
  opt.duration = total_duration(it.optimizer_phases);
  opt.deps = {it.boundary_task};
  it.optimizer_task = it.graph.add(std::move(opt));
  return it;
}

}  // namespace ckptsim
