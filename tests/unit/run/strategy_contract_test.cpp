// The contract every registered strategy keeps (run/strategy.hpp), checked over the whole table:
// a strategy added to it is held to the same properties without a test of its own.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;
using namespace ckptsim::test;

namespace {

/// small_scenario (16 machines, 0.75 GB shard, T = 60 s) with the fields every strategy needs:
/// coding groups of 4 with 1 parity for erasure-coded, levels for multi-level.
Scenario contract_scenario(StrategyKind kind) {
  Scenario s = small_scenario(kind);
  s.strategy.group_size = 4;
  s.strategy.parity = 1;
  s.strategy.encode_bandwidth = 1e9;
  s.strategy.local_interval = minutes(2);
  s.strategy.partner_interval = minutes(10);
  return s;
}

bool is_parameter(std::string_view pointer) {
  const auto rows = scenario_parameters();
  return std::any_of(rows.begin(), rows.end(), [&](const ParameterDoc& p) { return p.pointer == pointer; });
}

}  // namespace

TEST_CASE("strategy table: one strategy per kind, in the name table's order") {
  const auto& entries = strategy_registry().entries();
  REQUIRE(entries.size() == EnumNames<StrategyKind>::table.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const StrategyKind kind = EnumNames<StrategyKind>::table[i].value;
    CHECK(entries[i].name == name_of(kind));
    CHECK(&strategy_of(kind) == entries[i].factory);
    CHECK(strategy_of(kind).kind() == kind);
    CHECK_FALSE(entries[i].description.empty());
  }
}

TEST_CASE("strategy contract: every parameter a strategy names is a row of the parameter table") {
  for (const auto& entry : strategy_registry().entries()) {
    CAPTURE(entry.name);
    for (const std::string_view p : entry.factory->parameters()) {
      CAPTURE(p);
      CHECK(p.rfind("/strategy/", 0) == 0);
      CHECK(is_parameter(p));
    }
    // Its period field is a parameter too (or, without a period of its own, the iteration time).
    const Scenario s = contract_scenario(entry.factory->kind());
    const std::string period = entry.factory->period_field(s);
    CHECK((is_parameter(period) || period == "the iteration time"));
  }
}

TEST_CASE("strategy contract: costs finite, non-negative and consistent") {
  for (const auto& entry : strategy_registry().entries()) {
    CAPTURE(entry.name);
    const Scenario s = contract_scenario(entry.factory->kind());
    const StrategyCosts c = compute_strategy_costs(s, nullptr);
    CHECK(c.strategy == entry.factory->kind());
    // The explicit iteration time wins over the first-order one (strategy_costs.hpp).
    CHECK(c.iteration_time == seconds(60));
    for (const SimTime t : {c.stall, c.completion, c.upload, c.retrieval_local, c.retrieval_peer, c.retrieval_storage,
                            c.partner_stall, c.persistent_stall, c.encode})
      CHECK(t >= SimTime::zero());
    // A checkpoint is usable no sooner than the stall that carries it has passed.
    CHECK(c.stall <= c.completion);
    CHECK(c.every_iterations >= 1);
    // Nested periods: the persistent track and the partner level fall on checkpoints.
    if (c.persistent_every_iterations > 0) CHECK(c.persistent_every_iterations % c.every_iterations == 0);
    if (c.partner_every_iterations > 0) {
      CHECK(c.partner_every_iterations % c.every_iterations == 0);
      if (c.persistent_every_iterations > 0) CHECK(c.persistent_every_iterations % c.partner_every_iterations == 0);
      // Cumulative levels: S <= S2 <= S3.
      CHECK(c.stall <= c.partner_stall);
      CHECK(c.partner_stall <= c.persistent_stall);
    }
    // Every retrieval ends by loading the shard at B_ser (0.75 GB at 1 GB/s = 0.75 s): none is
    // cheaper than reading the machine's own CPU memory.
    CHECK(c.retrieval_local == milliseconds(750));
    CHECK(c.retrieval_peer >= c.retrieval_local);
    CHECK(c.retrieval_storage >= c.retrieval_local);
    // Its report line says something exactly when it checkpoints.
    CHECK(entry.factory->configuration(c).empty() == (c.tier == CheckpointTier::none));
  }
}

TEST_CASE("strategy contract: no strategy loses more than the progress since the start; none loses all of it") {
  // One software failure at 3030 s (machine 3; CPU memory kept): 50.5 iterations of T = 60 s
  // since the start. A strategy rolls back to its last usable checkpoint, at the latest the
  // start; "none" always rolls back to the start and loses the whole 3030 s.
  const auto path = std::filesystem::temp_directory_path() / "ckptsim_strategy_contract_trace.csv";
  {
    std::ofstream csv(path);
    csv << "# synthetic: one software failure (test input)\ntime,machine,type\n3030,3,software\n";
  }
  for (const auto& entry : strategy_registry().entries()) {
    CAPTURE(entry.name);
    Scenario s = contract_scenario(entry.factory->kind());
    s.failures.process = FailureProcessKind::trace;
    s.failures.trace_file = path.string();
    s.strategy.checkpoint_stall = SimTime::zero();
    const StrategyCosts c = compute_strategy_costs(s, nullptr);
    const ReplicaResult r = RunModel(s, c).simulate(0);
    REQUIRE(r.failures() == 1);
    CHECK(r.breakdown.lost_progress <= seconds(3030));
    CHECK(r.breakdown.lost_progress >= SimTime::zero());
    if (c.tier == CheckpointTier::none) {
      CHECK(r.breakdown.lost_progress == seconds(3030));
      CHECK(r.recoveries[static_cast<int>(RecoveryTier::scratch)] == 1);
    }
  }
  std::filesystem::remove(path);
}
