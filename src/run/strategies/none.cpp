// No checkpoints: every failure restarts from the initial state (the lower bound every strategy
// is measured against).
#include "strategies.hpp"

namespace ckptsim::strategies {
namespace {

class NoCheckpoints final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::none; }
  [[nodiscard]] std::string_view description() const override {
    return "no checkpoints: every failure restarts from the initial state";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override { return {}; }
  void costs(const CostInputs&, StrategyCosts& c) const override { c.tier = CheckpointTier::none; }
  /// No period of its own: a run's length in iterations is the iteration time's multiple.
  [[nodiscard]] std::string period_field(const Scenario& s) const override {
    return s.training.iteration_time ? "/training/iteration_time" : "the iteration time";
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {}; }
  [[nodiscard]] std::string configuration(const StrategyCosts&) const override { return ""; }
};

}  // namespace

const Strategy& none() {
  static const NoCheckpoints strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
