// The one table of strategies, indexed by StrategyKind (scenario/kinds.hpp): adding a strategy
// is its file in strategies/ plus its row here (CONTRIBUTING.md, "Adding a strategy"). And
// compute_strategy_costs (strategy_costs.hpp), which fills the fields every strategy shares,
// asks the scenario's strategy for the rest, then checks the result against the clock.
#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/run/unread_fields.hpp"
#include "ckptsim/workload/parallelism_model.hpp"
#include "strategies/strategies.hpp"

namespace ckptsim {
namespace {

using Table = std::array<const Strategy*, EnumNames<StrategyKind>::table.size()>;

/// In StrategyKind's name-table order; checked on first use (a row out of order is a bug).
const Table& table() {
  static const Table rows = [] {
    const Table t{&strategies::gemini(),        &strategies::remote_periodic(), &strategies::remote_highfreq(),
                  &strategies::in_memory_blocking(), &strategies::erasure_coded(), &strategies::multi_level(),
                  &strategies::torchft(),     &strategies::just_in_time(), &strategies::async_two_phase(),
                  &strategies::diloco(),      &strategies::none(),            &strategies::moe_partial(),
                  &strategies::shadow()};
    for (std::size_t i = 0; i < t.size(); ++i)
      if (t[i]->kind() != EnumNames<StrategyKind>::table[i].value ||
          static_cast<std::size_t>(t[i]->kind()) != i)
        throw std::logic_error(fmt::format("strategy table row {} is not {}", i, EnumNames<StrategyKind>::table[i].name));
    return t;
  }();
  return rows;
}

}  // namespace

std::string Strategy::period_field(const Scenario&) const { return "/strategy/every_iterations"; }

void Strategy::add_costs_json(const StrategyCosts&, nlohmann::json&) const {}

const Strategy& strategy_of(StrategyKind kind) {
  const auto index = static_cast<std::size_t>(kind);
  if (index >= table().size()) throw std::logic_error("strategy_of: a StrategyKind outside the table");
  return *table()[index];
}

const Registry<const Strategy*>& strategy_registry() {
  static const Registry<const Strategy*> registry = [] {
    Registry<const Strategy*> r("strategy");
    for (const Strategy* s : table()) r.add(std::string(name_of(s->kind())), std::string(s->description()), s);
    return r;
  }();
  return registry;
}

namespace strategies {

std::string replicas_configuration(const StrategyCosts& c) {
  return fmt::format(" ({} replicas, {} placement, every {} iteration(s))", c.replicas, name_of(c.placement),
                     c.every_iterations);
}

std::string storage_configuration(const StrategyCosts& c) {
  return fmt::format(" (every {} iteration(s){})", c.every_iterations, c.adaptive_interval ? " at first, adaptive" : "");
}

}  // namespace strategies

namespace {

/// `bytes` through storage when every machine moves its share at once: the aggregate
/// bytes / bandwidth, or each machine's bytes / N / client_bandwidth when that is longer (so the load time
/// is flat while the per-client limit binds, and grows with the machines once the aggregate does).
SimTime storage_transfer_time(const Scenario& s, double bytes, const char* what) {
  const SimTime aggregate = checked_transfer_time(bytes, s.storage.bandwidth, "/storage/bandwidth", what);
  if (!s.storage.client_bandwidth) return aggregate;
  return std::max(aggregate, checked_transfer_time(bytes / static_cast<double>(s.cluster.machines), *s.storage.client_bandwidth,
                                                   "/storage/client_bandwidth", "a machine's share of a checkpoint to or from storage"));
}

/// The failure-free run, T x iterations plus a stall per checkpoint, must fit the clock.
void check_run_length(const Scenario& s, const StrategyCosts& c) {
  if (!s.run.iterations) return;
  const std::int64_t j = *s.run.iterations;
  const SimTime training = checked_multiply(c.iteration_time, j, "/run/iterations", "the run's failure-free length");
  const std::int64_t checkpoints = !takes_checkpoints(c.tier) ? 0 : (j - 1) / std::max<std::int64_t>(1, c.every_iterations);
  SimTime length = checked_add(training, checked_multiply(c.stall, checkpoints, "/run/iterations", "the run's checkpoint stalls"),
                               "/run/iterations", "the run's failure-free length");
  if (c.tier != CheckpointTier::multi_level) return;
  // Multi-level: levels 2 and 3 add their extra stall at every multiple of their periods.
  const std::pair<std::int64_t, SimTime> extra[] = {{c.partner_every_iterations, c.partner_stall - c.stall},
                                                    {c.persistent_every_iterations, c.persistent_stall - c.partner_stall}};
  for (const auto& [every, stall] : extra)
    if (every > 0)
      length = checked_add(length, checked_multiply(stall, (j - 1) / every, "/run/iterations", "the run's checkpoint stalls"),
                           "/run/iterations", "the run's failure-free length");
}

StrategyCosts strategy_costs_in_range(const Scenario& s, const IterationCosts* iteration) {
  StrategyCosts c;
  c.strategy = s.strategy.kind;
  if (s.training.iteration_time) {
    c.iteration_time = *s.training.iteration_time;
  } else if (iteration != nullptr) {
    c.iteration_time = iteration->iteration_time;
  } else {
    c.iteration_time = first_order_iteration_time(s);
  }
  if (c.iteration_time <= SimTime::zero())
    throw ModelError("/training/iteration_time", "the strategy costs need a positive iteration time");
  if (c.iteration_time > kMaxDuration)
    throw ModelError("/training/iteration_time",
                     clock_range_message("the iteration model's iteration time", c.iteration_time.seconds()) +
                         "; check the model, cluster and training fields or give the iteration time explicitly");
  const double shard = s.checkpoint_bytes_per_machine();
  // What storage holds and what a load reads (the parallelism unit's; workload/parallelism_model.hpp).
  const StorageCheckpointBytes stored = parallelism_model(s.training.parallelism).storage_bytes(s);
  const CostInputs in{s,
                      iteration,
                      c.iteration_time,
                      shard,
                      storage_transfer_time(s, stored.save, "a checkpoint's upload to storage"),
                      checked_transfer_time(shard, s.training.serialization_bandwidth,
                                            "/training/serialization_bandwidth", "a shard's snapshot or reload"),
                      storage_transfer_time(s, stored.load, "a checkpoint's load from storage")};
  c.retrieval_local = in.load;
  // Host to host from a peer's CPU memory at f·B_n (network/achieved_bandwidth.hpp), then loaded.
  c.retrieval_peer = checked_add(checked_transfer_time(shard, p2p_machine_bandwidth(s.cluster), "/cluster/network_bandwidth",
                                                       "a shard's retrieval from a peer"),
                                 in.load, "/cluster/network_bandwidth", "a shard's retrieval from a peer");
  c.retrieval_storage = checked_add(in.storage_load, in.load, "/storage/bandwidth", "a retrieval from storage");
  c.storage_save_bytes = stored.save;
  c.storage_load_bytes = stored.load;
  c.replicas = s.strategy.replicas;
  c.placement = s.strategy.placement;
  c.replication_jump = s.strategy.replication_jump;

  strategy_of(s.strategy.kind).costs(in, c);
  // An explicit completion time, for the strategies that take checkpoints (none and torchft take
  // none: they do not read it).
  if (s.strategy.checkpoint_duration && takes_checkpoints(c.tier))
    c.completion = std::max(c.stall, *s.strategy.checkpoint_duration);
  check_run_length(s, c);
  check_run_horizon(s, c, strategy_of(s.strategy.kind).period_field(s));  // every term together: what a replica can add up (run_horizon.hpp)
  return c;
}

}  // namespace

StrategyCosts compute_strategy_costs(const Scenario& s, const IterationCosts* iteration) {
  try {
    StrategyCosts c = strategy_costs_in_range(s, iteration);
    // After the strategy's own (diloco's: what it does not model), the fields nothing reads.
    for (std::string& w : unread_field_messages(s)) c.warnings.push_back(std::move(w));
    return c;
  } catch (const ModelError& e) {
    // Name the file as well as the field when the scenario came from one.
    if (s.source_file.empty()) throw;
    const std::string message = std::string(e.what()).substr(e.parameter().size() + 2);
    throw ModelError(s.source_file + ": " + e.parameter(), message);
  }
}

}  // namespace ckptsim
