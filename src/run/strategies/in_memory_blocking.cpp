// In-memory blocking: GEMINI's placement, but the m - 1 copies are sent while training waits
// (the baseline GEMINI's scheduler is compared with). Formulas: run/strategy_costs.hpp.
#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/checkpoint/iteration_costs.hpp"

namespace ckptsim::strategies {
namespace {

class InMemoryBlocking final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::in_memory_blocking; }
  [[nodiscard]] std::string_view description() const override {
    return "GEMINI's placement, but copies sent while training waits";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/replicas",        "/strategy/placement",          "/strategy/every_iterations",
            "/strategy/gpu_buffer",      "/strategy/persistent_interval", "/strategy/checkpoint_stall",
            "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    in_memory_common(in, c);
    // The iteration model's blocking send time when it ran; else every copy at the achieved
    // send rate (network/achieved_bandwidth.hpp).
    c.stall = in.iteration != nullptr ? in.iteration->blocking_checkpoint_time : replica_bytes_time(in);
    if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
    c.completion = c.stall;
    persistent_track(in, c);
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly, ReportSection::holder_loss}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override { return replicas_configuration(c); }
};

}  // namespace

const Strategy& in_memory_blocking() {
  static const InMemoryBlocking strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
