// The megatron parallelism unit (parallelism_model.hpp): the megatron iteration model's step as
// the iteration study sees it.
#include <algorithm>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "ckptsim/workload/megatron_iteration.hpp"
#include "ckptsim/workload/megatron_layout.hpp"
#include "parallelism_units.hpp"

namespace ckptsim {
namespace {

/// The fullest stage's memory as the shared GPU memory breakdown (every term in every phase:
/// the model does not split the step into phases).
GpuMemory stage_memory(const Scenario& s, const MegatronIteration& it) {
  const MegatronStage* fullest = &it.stages.front();
  for (const MegatronStage& st : it.stages)
    if (st.memory.total() > fullest->memory.total()) fullest = &st;
  const MegatronMemory& m = fullest->memory;
  GpuMemory g;
  g.capacity = s.cluster.gpu_memory_bytes;
  g.terms = {{"parameters (16-bit)", m.parameters, kEveryPhase},
             {"gradients", m.gradients, kEveryPhase},
             {"optimizer states", m.optimizer, kEveryPhase},
             {"activations (in flight)", m.activations, kEveryPhase}};
  return g;
}

class MegatronParallelism final : public ParallelismModel {
 public:
  [[nodiscard]] Parallelism kind() const override { return Parallelism::megatron; }
  [[nodiscard]] std::string_view description() const override {
    return "Megatron-LM tensor, pipeline, data, context and expert parallelism (training.megatron), its schedule in closed form";
  }
  [[nodiscard]] IterationModel simulate(const Scenario& s) const override {
    const MegatronIteration it = simulate_megatron_iteration(s);
    return megatron_iteration_model(s, it);
  }
  [[nodiscard]] std::vector<WorkEstimate> work(const Scenario& s) const override {
    std::vector<WorkEstimate> out = estimate_megatron_work(s);
    // Every machine's copies of the shared spans in both views (header): at most one more than the
    // busy intervals of all stages, each stage at most 4·m·v transfers, 2·m·v operations and 3
    // collectives (the silent view's reduce in its buckets, at most one more per bucket of 4e7
    // parameters), so 2 x machines x (p·(6·m·v + 3) + 1) spans of 24 bytes, plus the buckets.
    const MegatronSpec& g = s.training.megatron;
    const double spans = static_cast<double>(g.pp) * (6.0 * g.micro_batches * g.virtual_stages + 3) + 1;
    const double buckets = std::max(0.0, s.model.parameters) / 4e7;
    out.push_back({"/cluster/machines x /training/megatron/pp x /training/megatron/virtual_stages x /training/megatron/micro_batches",
                   "memory for every machine's idle spans", 24.0 * s.cluster.machines * (2 * spans + buckets), kMaxMemoryBytes,
                   WorkUnit::bytes,
                   s.source_file, fmt::format("{} x {} x {} x {}", s.cluster.machines, g.pp, g.virtual_stages, g.micro_batches)});
    return out;
  }
  [[nodiscard]] std::vector<int> data_parallel_units(const Scenario& s) const override {
    return MegatronLayout::from(s).replica_units();
  }
  [[nodiscard]] StorageCheckpointBytes storage_bytes(const Scenario& s) const override {
    // One copy of everything (header): the optimizer's state and the 16-bit (or fp32) parameters.
    const double word = s.training.word_bytes();
    const double whole = s.checkpoint_bytes() + s.model.parameters * word;
    return {whole, s.training.megatron.fully_parallel_load ? whole : megatron_every_rank_load_bytes(s)};
  }
  [[nodiscard]] std::vector<CollectiveSize> network_collective_sizes(const Scenario& s) const override {
    std::vector<CollectiveSize> sizes;
    // The step report's collective table (megatron_iteration.hpp): those on the network, less
    // the pipeline's point-to-point transfers.
    for (const MegatronCollective& c : simulate_megatron_iteration(s).collectives)
      if (c.link == "network" && c.bytes > 0 && c.name.find("send") == std::string::npos)
        sizes.push_back({c.bytes, c.bytes * static_cast<double>(c.calls)});
    return sizes;
  }
};

}  // namespace

IterationModel megatron_iteration_model(const Scenario& s, const MegatronIteration& it) {
  IterationModel m{Topology::build(s.cluster), {}, {}, {}, stage_memory(s, it), {}, {}, {}, {}};
  double shard = 0;
  std::vector<std::pair<SimTime, SimTime>> busy;
  std::vector<std::pair<SimTime, SimTime>> silent;
  for (const MegatronStage& st : it.stages) {
    shard = std::max(shard, st.checkpoint_shard);
    for (const PipelineSpan& iv : st.network_busy) busy.emplace_back(iv.from, iv.to);
    for (const PipelineSpan& iv : st.silent_busy) silent.emplace_back(iv.from, iv.to);
  }
  // The step starts when the last reduce is done (megatron_iteration.hpp).
  const SimTime step = it.step_start;
  const MegatronLayout& L = it.layout;
  m.workload.program.summary = fmt::format("megatron tp {} x cp {} x dp {} x pp {} (ep {}, {} chunks per rank), {} micro-batches",
                                           L.tp(), L.cp(), L.dp(), L.pp(), L.ep(), L.virtual_stages(), s.training.megatron.micro_batches);
  m.step_start = step;
  m.checkpoint_shard_bytes = shard;
  m.profile.iteration_time = it.iteration_time;
  m.profile.machine_spans.assign(s.cluster.machines, spans_outside(std::move(busy), step));
  // Each machine's own spans: those of the pipeline stages its ranks belong to. Pipeline ranks
  // vary slowest (megatron_layout.hpp): rank n is in stage n div (t·c·d), so machine j's G ranks
  // hold the stages from j·G div (t·c·d) to ((j + 1)·G - 1) div (t·c·d) (one when t·c·d >= G and
  // the machine does not straddle a stage). Machines holding the same stages form a span group.
  std::map<std::pair<std::int64_t, std::int64_t>, int> group_index;
  m.group_of.assign(static_cast<std::size_t>(s.cluster.machines), 0);
  const std::int64_t g = L.gpus_per_machine();
  const std::int64_t per_stage = static_cast<std::int64_t>(L.tp()) * L.cp() * L.dp();
  for (int machine = 0; machine < s.cluster.machines; ++machine) {
    const std::pair<std::int64_t, std::int64_t> held{machine * g / per_stage, ((machine + 1) * g - 1) / per_stage};
    const auto [it_group, added] = group_index.emplace(held, static_cast<int>(m.group_spans.size()));
    if (added) {
      std::vector<std::pair<SimTime, SimTime>> own;
      for (std::int64_t p = held.first; p <= held.second; ++p)
        for (const PipelineSpan& iv : it.stages[static_cast<std::size_t>(p)].network_busy) own.emplace_back(iv.from, iv.to);
      m.group_spans.push_back(spans_outside(std::move(own), step));
    }
    m.group_of[static_cast<std::size_t>(machine)] = it_group->second;
  }
  // The network-silent view over the whole step (workload/profile.hpp): no schedule uses it.
  m.profile.silent_spans.assign(s.cluster.machines,
                                spans_outside(std::move(silent), it.iteration_time));
  return m;
}

const ParallelismModel& megatron_parallelism() {
  static const MegatronParallelism unit;
  return unit;
}

}  // namespace ckptsim
