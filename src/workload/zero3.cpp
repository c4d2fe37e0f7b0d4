#include "ckptsim/workload/zero3.hpp"

#include <stdexcept>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

// Appends the phases of one collective as chained transfer tasks; returns the last one.
int add_collective(Zero3Iteration& it, const std::vector<FlowPhase>& phases, const std::vector<int>& phase_uses,
                   TaskCategory category, int stage, std::vector<int> deps) {
  int last = -1;
  for (std::size_t p = 0; p < phases.size(); ++p) {
    Task t;
    t.kind = TaskKind::transfer;
    t.category = category;
    t.latency = phases[p].latency;
    t.bytes = phases[p].bytes;
    t.uses = phase_uses[p];
    t.deps = p == 0 ? std::move(deps) : std::vector<int>{last};
    t.layer = stage;
    t.phase = static_cast<int>(p);
    last = it.graph.add(std::move(t));
    it.network_tasks.push_back(last);
  }
  if (last < 0) {  // nothing to move (a single GPU): a marker keeps the stream order
    Task t;
    t.category = TaskCategory::marker;
    t.deps = std::move(deps);
    t.layer = stage;
    last = it.graph.add(std::move(t));
  }
  return last;
}

}  // namespace

Zero3Iteration make_zero3_iteration(const Scenario& scenario, const Topology& topology, const Zero3Options& options) {
  const ClusterSpec& c = scenario.cluster;
  if (c.gpu_peak_flops <= 0) throw ModelError("/cluster/gpu_peak_flops", "the iteration model needs a positive FLOP rate");
  if (scenario.training.compute_efficiency <= 0 || scenario.training.compute_efficiency > 1)
    throw ModelError("/training/compute_efficiency", "the iteration model needs a fraction in (0, 1]");
  Zero3Iteration it;
  it.shape = TransformerShape::from(scenario);
  it.compute_rate = c.gpu_peak_flops * scenario.training.compute_efficiency;
  const int layers = it.shape.layers;
  const int stages = layers + 1;  // + output stage
  const double w = it.shape.word_bytes();

  // Collective phases depend only on byte counts; layers share them (two distinct sizes).
  auto phases_for = [&](CollectiveKind kind, double bytes) {
    return collective_phases(topology, CollectiveShape{kind, options.algorithm, bytes, c.gpus_per_machine, c.network.latency});
  };
  struct Shaped {
    std::vector<FlowPhase> phases;
    std::vector<int> uses;
  };
  auto shaped = [&](CollectiveKind kind, double bytes) {
    Shaped s{phases_for(kind, bytes), {}};
    for (const FlowPhase& p : s.phases) s.uses.push_back(it.graph.add_uses(p.uses));
    return s;
  };
  const Shaped ag_layer = shaped(CollectiveKind::all_gather, it.shape.layer_parameters() * w);
  const Shaped ag_output = shaped(CollectiveKind::all_gather, it.shape.embedding_parameters() * w);
  const Shaped rs_layer = shaped(CollectiveKind::reduce_scatter, it.shape.layer_parameters() * w);
  const Shaped rs_output = shaped(CollectiveKind::reduce_scatter, it.shape.embedding_parameters() * w);

  // Compute order: F(0..L-1), F(out), B(out), B(L-1..0). Gather order: every compute but B(out).
  struct Step {
    bool forward;
    int stage;
  };
  std::vector<Step> order;
  for (int k = 0; k < stages; ++k) order.push_back({true, k});
  order.push_back({false, layers});
  for (int k = layers - 1; k >= 0; --k) order.push_back({false, k});

  std::vector<int> compute(order.size(), -1);
  int last_gather = -1;
  int last_reduce = -1;
  for (std::size_t j = 0; j < order.size(); ++j) {
    const Step step = order[j];
    const bool is_output = step.stage == layers;
    int gather = -1;
    if (step.forward || !is_output) {
      std::vector<int> deps;
      if (last_gather >= 0) deps.push_back(last_gather);
      const auto lag = static_cast<std::ptrdiff_t>(j) - 1 - options.prefetch;
      if (lag >= 0) deps.push_back(compute[static_cast<std::size_t>(lag)]);
      const Shaped& s = is_output ? ag_output : ag_layer;
      gather = add_collective(it, s.phases, s.uses, TaskCategory::all_gather, step.stage, std::move(deps));
      if (last_gather < 0) it.first_task = gather;
      last_gather = gather;
    }
    Task t;
    t.kind = TaskKind::compute;
    t.category = step.forward ? TaskCategory::forward : TaskCategory::backward;
    t.layer = step.stage;
    if (step.forward) {
      t.flops = is_output ? it.shape.output_forward_flops() : it.shape.layer_forward_flops();
    } else {
      t.flops = is_output ? it.shape.output_backward_flops() : it.shape.layer_backward_flops();
    }
    t.duration = transfer_time(t.flops, it.compute_rate);
    if (j > 0) t.deps.push_back(compute[j - 1]);
    if (gather >= 0) t.deps.push_back(gather);
    compute[j] = it.graph.add(std::move(t));
    if (!step.forward) {
      std::vector<int> deps{compute[j]};
      if (last_reduce >= 0) deps.push_back(last_reduce);
      const Shaped& s = is_output ? rs_output : rs_layer;
      last_reduce = add_collective(it, s.phases, s.uses, TaskCategory::reduce_scatter, step.stage, std::move(deps));
    }
  }
  Task opt;
  opt.kind = TaskKind::compute;
  opt.category = TaskCategory::optimizer;
  opt.deps = {compute.back(), last_reduce};
  it.optimizer_task = it.graph.add(std::move(opt));
  return it;
}

}  // namespace ckptsim
