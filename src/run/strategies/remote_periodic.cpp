// Remote periodic (GEMINI's "Strawman"): a blocking write of the whole checkpoint to persistent
// storage every interval (default 3 h). Formulas: run/strategy_costs.hpp.
#include <algorithm>

#include "common.hpp"
#include "strategies.hpp"

namespace ckptsim::strategies {
namespace {

class RemotePeriodic final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::remote_periodic; }
  [[nodiscard]] std::string_view description() const override {
    return "Strawman: blocking write to persistent storage every interval (default 3 h)";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/interval", "/strategy/adaptive_interval", "/strategy/adaptive_prior_mtbf",
            "/strategy/checkpoint_stall", "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    adaptive_interval_costs(in, c);
    c.tier = CheckpointTier::storage;
    c.every_iterations = periods_nearest(in.s.strategy.interval, in.t);
    c.stall = std::max(in.storage_transfer, in.load);
    if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
    c.completion = c.stall;
  }
  [[nodiscard]] std::string period_field(const Scenario&) const override { return "/strategy/interval"; }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override { return storage_configuration(c); }
};

}  // namespace

const Strategy& remote_periodic() {
  static const RemotePeriodic strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
