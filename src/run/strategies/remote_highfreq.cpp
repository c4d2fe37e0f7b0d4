// Remote high-frequency (GEMINI §6, "HighFreq"): a blocking snapshot into CPU memory, uploaded to
// storage in the background; the next checkpoint when the upload has landed. Formulas:
// run/strategy_costs.hpp.
#include <algorithm>

#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/core/checked_time.hpp"

namespace ckptsim::strategies {
namespace {

class RemoteHighfreq final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::remote_highfreq; }
  [[nodiscard]] std::string_view description() const override {
    return "HighFreq: blocking snapshot to CPU memory, background upload; next one when it lands";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/adaptive_interval", "/strategy/adaptive_prior_mtbf", "/strategy/checkpoint_stall",
            "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    adaptive_interval_costs(in, c);
    c.tier = CheckpointTier::storage;
    c.stall = in.load;
    if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
    c.completion = checked_add(c.stall, in.storage_transfer, "/storage/bandwidth", "the checkpoint completion time");
    c.every_iterations = std::max<std::int64_t>(1, ceil_div(in.storage_transfer, in.t));
  }
  /// The period is the upload time in iterations: storage bandwidth sets it.
  [[nodiscard]] std::string period_field(const Scenario&) const override { return "/storage/bandwidth"; }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override { return storage_configuration(c); }
};

}  // namespace

const Strategy& remote_highfreq() {
  static const RemoteHighfreq strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
