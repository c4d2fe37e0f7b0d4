// The one table of strategies, indexed by StrategyKind (scenario/kinds.hpp): adding a strategy
// is its file in strategies/ plus its row here (CONTRIBUTING.md, "Adding a strategy").
#include <array>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/run/strategy.hpp"
#include "strategies/strategies.hpp"

namespace ckptsim {
namespace {

using Table = std::array<const Strategy*, EnumNames<StrategyKind>::table.size()>;

/// In StrategyKind's name-table order; checked on first use (a row out of order is a bug).
const Table& table() {
  static const Table rows = [] {
    const Table t{&strategies::gemini(),        &strategies::remote_periodic(), &strategies::remote_highfreq(),
                  &strategies::in_memory_blocking(), &strategies::erasure_coded(), &strategies::multi_level(),
                  &strategies::none()};
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
}  // namespace ckptsim
