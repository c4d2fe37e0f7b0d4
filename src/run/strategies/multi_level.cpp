// Multi-level checkpoints in the manner of SCR (Moody et al., SC '10): level 1 a snapshot into
// the machine's own CPU memory, level 2 copies to the m - 1 partner holders of the placement,
// level 3 the write to storage, each with its own interval; a failure recovers from the cheapest
// level that survived. Formulas: run/strategy_costs.hpp, "multi-level".
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/core/checked_time.hpp"

namespace ckptsim::strategies {
namespace {

class MultiLevel final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::multi_level; }
  [[nodiscard]] std::string_view description() const override {
    return "SCR-style multi-level: own CPU memory / partners' CPU memory / storage, each with its "
           "own interval; a failure recovers from the cheapest level that survived";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/local_interval",    "/strategy/partner_interval",  "/strategy/persistent_interval",
            "/strategy/replicas",          "/strategy/placement",         "/strategy/adaptive_interval",
            "/strategy/adaptive_prior_mtbf", "/strategy/checkpoint_stall", "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    adaptive_interval_costs(in, c);
    c.tier = CheckpointTier::multi_level;
    const auto& st = in.s.strategy;
    // strategy.checkpoint_stall replaces S_1; the levels above add their copies to it.
    c.stall = st.checkpoint_stall.value_or(in.load);
    c.partner_stall = checked_add(c.stall, replica_bytes_time(in), "/cluster/network_bandwidth", "a level-2 checkpoint");
    c.persistent_stall = checked_add(c.partner_stall, in.storage_transfer, "/storage/bandwidth", "a level-3 checkpoint");
    c.completion = c.stall;
    c.every_iterations = periods_nearest(st.local_interval, in.t);
    const SimTime level1_block = checked_multiply(in.t, c.every_iterations, "/strategy/local_interval", "the level-1 period");
    c.partner_every_iterations =
        nested_period(st.partner_interval, level1_block, c.every_iterations, "/strategy/partner_interval");
    if (st.persistent_interval) {
      const SimTime level2_block =
          checked_multiply(in.t, c.partner_every_iterations, "/strategy/partner_interval", "the level-2 period");
      c.persistent_every_iterations =
          nested_period(*st.persistent_interval, level2_block, c.partner_every_iterations, "/strategy/persistent_interval");
    }
  }
  [[nodiscard]] std::string period_field(const Scenario&) const override { return "/strategy/local_interval"; }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::checkpoint_levels}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    // persistent_interval "never": no storage level (its period is 0).
    const bool stored = c.persistent_every_iterations > 0;
    return fmt::format(" (local every {}, partners ({} replicas, {} placement) every {}{}{} iteration(s){})",
                       c.every_iterations, c.replicas, name_of(c.placement), c.partner_every_iterations,
                       stored ? fmt::format(", storage every {}", c.persistent_every_iterations) : std::string(),
                       c.adaptive_interval ? " at first, adaptive" : "", stored ? "" : ", never to storage");
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    out["partner_every_iterations"] = c.partner_every_iterations;
    out["partner_stall_s"] = c.partner_stall.seconds();
    out["persistent_stall_s"] = c.persistent_stall.seconds();
  }
};

}  // namespace

const Strategy& multi_level() {
  static const MultiLevel strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
