#pragma once
// Strategy: one checkpoint-and-recovery strategy as one unit (CONTRIBUTING.md, "Adding a
// strategy"; docs/architecture.md, "Strategies").
//
// Each StrategyKind (scenario/kinds.hpp) has exactly one implementation of this interface, in
// its own file src/run/strategies/<name>.cpp, and one row in the table of strategy_of()
// (src/run/strategy_table.cpp). Everything the rest of ckptsim asks of a strategy goes through
// it, never through `if (kind == ...)`:
//   - costs(): its part of StrategyCosts (run/strategy_costs.hpp, whose header gives every
//     strategy's first-order formulas): the recovery tier its checkpoints land in (which decides
//     what a failure retrieves from where in the run model and the closed forms), its periods,
//     its stall and completion, and any retrieval it computes itself;
//   - period_field(): the scenario field that sets its checkpoint period (named when a period
//     leaves the clock, run/run_horizon.hpp);
//   - configuration() and add_costs_json(): its line of the run and analyze reports and its own
//     members of the costs JSON;
//   - parameters(): the scenario fields it reads beyond the shared ones (cluster, model, storage,
//     training), each a row of the parameter table (src/scenario/parameters.cpp);
//   - description(): the line `ckptsim list strategies` prints;
//   - report_sections(): the sections it adds to the analyze and run reports beyond those every
//     strategy has (Eq. 1 and the Young/Daly intervals, a level table, the holder-loss line, the
//     erasure code's summary); the output layer holds one writer per section
//     (output/report_sections.hpp), since their figures come from the closed forms above this layer.
// What its fields say about CPU memory (none, replicas planned by the traffic scheduler,
// replicas of a partner level, an erasure code) is the strategy's checkpoint layout, declared
// in scenario/checkpoint_layout.hpp because the loader's checks and the iteration model
// (layers below this one) read it.
//
// Contract (tests/unit/run/strategy_contract_test.cpp, over every registered strategy): costs
// finite and non-negative, stall <= completion, the persistent period a multiple of the
// checkpoint period, no retrieval cheaper than reading local CPU memory, every parameter it names
// a row of the parameter table; the closed form within its tolerance of the Monte Carlo on a
// small case (tests/unit/analysis/strategy_closed_form_test.cpp); "none" loses everything since
// the start.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/core/registry.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/kinds.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// A section of the analyze and run reports (and of the analyze JSON) that only some strategies
/// have; each is written by one unit of the output layer (output/report_sections.hpp).
enum class ReportSection {
  young_daly,         ///< Eq. 1 for one failure and the Young/Daly intervals of its one period
  checkpoint_levels,  ///< the multi-level table (analysis/multi_level_model.hpp), its stalls per level
  holder_loss,        ///< P(a hardware failure leaves some checkpoint without holders)
  erasure_code,       ///< the code's memory, traffic and exact recovery probabilities
};

class Strategy {
 public:
  Strategy() = default;
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;
  virtual ~Strategy() = default;

  [[nodiscard]] virtual StrategyKind kind() const = 0;
  /// One line for `ckptsim list strategies`.
  [[nodiscard]] virtual std::string_view description() const = 0;
  /// The scenario fields (JSON pointers) it reads beyond the cluster, model, storage and
  /// training fields every strategy's costs use.
  [[nodiscard]] virtual std::vector<std::string_view> parameters() const = 0;
  /// Fills its part of `c`: the shared fields (iteration time, the three retrievals, replicas,
  /// placement, adaptive interval) are set before; strategy.checkpoint_duration is applied
  /// after (compute_strategy_costs).
  virtual void costs(const CostInputs& in, StrategyCosts& c) const = 0;
  /// The field that sets the checkpoint period.
  [[nodiscard]] virtual std::string period_field(const Scenario& s) const;
  /// Its configuration for the run report's strategy line, e.g. " (2 replicas, group placement,
  /// every 1 iteration(s))"; empty when there is nothing to say.
  [[nodiscard]] virtual std::string configuration(const StrategyCosts& c) const = 0;
  /// Members of the costs JSON beyond those every strategy writes (output/run_report.hpp).
  virtual void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const;
  /// The report sections it adds, in the order they print within each part of a report.
  [[nodiscard]] virtual std::vector<ReportSection> report_sections() const = 0;
};

/// The strategy of `kind` (one immutable object per kind, shared by every thread).
const Strategy& strategy_of(StrategyKind kind);

/// Every strategy, in StrategyKind's name-table order, as a registry for `ckptsim list`.
const Registry<const Strategy*>& strategy_registry();

}  // namespace ckptsim
