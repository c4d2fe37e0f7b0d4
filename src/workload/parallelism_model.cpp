// The table of parallelism models and the ZeRO-3 unit (parallelism_model.hpp).
#include "ckptsim/workload/parallelism_model.hpp"

#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "parallelism_units.hpp"

namespace ckptsim {
namespace {

/// DeepSpeed ZeRO-3 and FSDP: the engine's program as a task graph (iteration_model.hpp).
class Zero3Parallelism final : public ParallelismModel {
 public:
  [[nodiscard]] Parallelism kind() const override { return Parallelism::zero3; }
  [[nodiscard]] std::string_view description() const override {
    return "sharded data parallelism (training.engine), simulated as a task graph on the flow-level network";
  }
  [[nodiscard]] IterationModel simulate(const Scenario& scenario) const override { return simulate_iteration(scenario); }
  [[nodiscard]] std::vector<WorkEstimate> work(const Scenario& s) const override {
    // A product of three fields: all three are named, with their values (the one to lower may be any).
    return {{"/model/layers x /cluster/machines x /cluster/gpus_per_machine", "the iteration model's training flows (3 per layer per GPU)",
             estimate_iteration_flows(s), kMaxIterationFlows, WorkUnit::flows, s.source_file,
             fmt::format("{} x {} x {}", s.model.layers, s.cluster.machines, s.cluster.gpus_per_machine)},
            {"/model/layers", "the engine's program and task graph (about 100 operations per layer, 1 KiB each)",
             estimate_program_bytes(s), kMaxMemoryBytes, WorkUnit::bytes, s.source_file, fmt::format("{} layers", s.model.layers)}};
  }
  [[nodiscard]] std::vector<int> data_parallel_units(const Scenario& s) const override {
    std::vector<int> units(static_cast<std::size_t>(std::max(0, s.cluster.machines)));
    std::iota(units.begin(), units.end(), 0);
    return units;
  }
  [[nodiscard]] StorageCheckpointBytes storage_bytes(const Scenario& s) const override {
    return {s.checkpoint_bytes(), s.checkpoint_bytes()};
  }
  [[nodiscard]] std::vector<CollectiveSize> network_collective_sizes(const Scenario& s) const override {
    std::vector<CollectiveSize> sizes;
    if (s.cluster.machines < 2) return sizes;
    const TransformerShape shape = TransformerShape::from(s);
    const EngineProgram p = iteration_program(s, shape, ComputeModel::from(s, shape));
    // The sharding group of HYBRID_SHARD stays inside a machine; the others cross machines. A
    // batched operation is `count` collectives of bytes / count each (stream_program.hpp).
    for (const ProgramOp& op : p.program.ops())
      if (op.kind == ProgramOp::Kind::collective && op.group != Group::shard && op.bytes > 0)
        sizes.push_back({op.bytes / std::max(1, op.count), op.bytes});
    return sizes;
  }
};

}  // namespace

const ParallelismModel& zero3_parallelism() {
  static const Zero3Parallelism unit;
  return unit;
}

const ParallelismModel& parallelism_model(Parallelism kind) {
  using Table = std::array<const ParallelismModel*, EnumNames<Parallelism>::table.size()>;
  // In Parallelism's name-table order; checked on first use (a row out of order is a bug).
  static const Table rows = [] {
    const Table t{&zero3_parallelism(), &megatron_parallelism()};
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i]->kind() != EnumNames<Parallelism>::table[i].value || static_cast<std::size_t>(t[i]->kind()) != i)
        throw std::logic_error(fmt::format("parallelism table row {} is not {}", i, EnumNames<Parallelism>::table[i].name));
    return t;
  }();
  const auto index = static_cast<std::size_t>(kind);
  if (index >= rows.size()) throw std::logic_error("parallelism_model: a Parallelism outside the table");
  return *rows[index];
}

std::vector<IdleSpan> spans_outside(std::vector<std::pair<SimTime, SimTime>> busy, SimTime until) {
  std::sort(busy.begin(), busy.end());
  std::vector<IdleSpan> out;
  SimTime at = SimTime::zero();
  for (const auto& [from, to] : busy) {
    if (at >= until) break;
    if (from > at) out.push_back({at, std::min(from, until) - at, -1});
    at = std::max(at, to);
  }
  if (at < until) out.push_back({at, until - at, -1});
  return out;
}

double estimate_program_bytes(const Scenario& s) { return 100.0 * 1024.0 * std::max(1, s.model.layers); }

double estimate_iteration_flows(const Scenario& s) {
  return 3.0 * s.model.layers * s.cluster.machines * s.cluster.gpus_per_machine;
}

}  // namespace ckptsim
