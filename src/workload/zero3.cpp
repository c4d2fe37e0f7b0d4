#include "ckptsim/workload/zero3.hpp"

#include "ckptsim/core/error.hpp"

namespace ckptsim {

Zero3Program make_zero3_program(const TransformerShape& shape) {
  Zero3Program p;
  const double h = shape.hidden;
  const double f = shape.ffn;
  const double tokens = shape.micro_batch * shape.sequence;
  // Module 0: the tied embedding (+ final LayerNorm); layer k: 1 + 4k .. 4 + 4k.
  p.modules.push_back({{shape.vocabulary * h, h, h}});
  for (int k = 0; k < shape.layers; ++k) {
    p.modules.push_back({{3 * h * h, 3 * h, h, h}});  // QKV + LayerNorm 1
    p.modules.push_back({{h * h, h}});                // O
    p.modules.push_back({{h * f, f, h, h}});          // FC1 + LayerNorm 2
    p.modules.push_back({{f * h, h}});                // FC2
  }
  const double forward[4] = {6 * tokens * h * h, 2 * tokens * h * h + 4 * tokens * shape.sequence * h,
                             2 * tokens * h * f, 2 * tokens * h * f};
  auto use = [&](int module, double flops, TaskCategory c, int layer, bool gradient) {
    p.uses.push_back({module, gradient ? p.modules[static_cast<std::size_t>(module)].total() : 0.0});
    p.flops.push_back(flops);
    p.category.push_back(c);
    p.layer.push_back(layer);
  };
  use(0, 0, TaskCategory::forward, -1, false);
  for (int k = 0; k < shape.layers; ++k) {
    for (int i = 0; i < 4; ++i) use(1 + 4 * k + i, forward[i], TaskCategory::forward, k, false);
  }
  use(0, shape.output_forward_flops(), TaskCategory::forward, -1, false);
  use(0, shape.output_backward_flops(), TaskCategory::backward, -1, false);
  for (int k = shape.layers - 1; k >= 0; --k) {
    if (shape.recompute) {
      for (int i = 0; i < 4; ++i) use(1 + 4 * k + i, forward[i], TaskCategory::recompute, k, false);
    }
    for (int i = 3; i >= 0; --i) use(1 + 4 * k + i, 2 * forward[i], TaskCategory::backward, k, true);
  }
  use(0, 0, TaskCategory::backward, -1, true);
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
  if (c.gpu_peak_flops <= 0) throw ModelError("/cluster/gpu_peak_flops", "the iteration model needs a positive GPU peak FLOP rate");
  if (c.gpu_memory_bandwidth <= 0) {
    throw ModelError("/cluster/gpu_memory_bandwidth", "the iteration model needs the GPU memory bandwidth (optimizer step)");
  }
  if (scenario.training.compute_efficiency <= 0 || scenario.training.compute_efficiency > 1) {
    throw ModelError("/training/compute_efficiency", "must be in (0, 1]");
  }
  if (c.network.collective_efficiency <= 0 || c.network.collective_efficiency > 1) {
    throw ModelError("/cluster/network/collective_efficiency", "must be in (0, 1]");
  }
  if (c.network.p2p_efficiency <= 0 || c.network.p2p_efficiency > 1) {
    throw ModelError("/cluster/network/p2p_efficiency", "must be in (0, 1]");
  }
}

}  // namespace

Zero3Iteration make_zero3_iteration(const Scenario& scenario, const Topology& topology, const Zero3Options& options) {
  check_inputs(scenario);
  const ClusterSpec& c = scenario.cluster;
  Zero3Iteration it;
  it.shape = TransformerShape::from(scenario);
  it.compute_rate = c.gpu_peak_flops * scenario.training.compute_efficiency;
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
    t.duration = transfer_time(t.flops, it.compute_rate);
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
  Task boundary;
  boundary.kind = TaskKind::compute;
  boundary.category = TaskCategory::boundary;
  for (const FlowPhase& p : ag.phases) boundary.duration += p.latency * 2;
  for (const FlowPhase& p : rs.phases) boundary.duration += p.latency * 2;
  boundary.deps = {it.compute_tasks.back()};
  if (!it.reduce_tasks.empty()) boundary.deps.push_back(it.reduce_tasks.back());
  it.boundary_task = it.graph.add(std::move(boundary));

  Task opt;
  opt.kind = TaskKind::compute;
  opt.category = TaskCategory::optimizer;
  const double ranks = static_cast<double>(c.machines) * c.gpus_per_machine;
  opt.duration = transfer_time(kOptimizerBytesPerParameter * it.shape.parameters() / ranks, c.gpu_memory_bandwidth);
  opt.deps = {it.boundary_task};
  it.optimizer_task = it.graph.add(std::move(opt));
  return it;
}

}  // namespace ckptsim
