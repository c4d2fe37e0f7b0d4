// GEMINI (Wang et al., SOSP '23): every k iterations, m replicas of each machine's shard in the
// CPU memory of the machine and its peers, the traffic interleaved into the idle spans of the k
// iterations after the state; persistent storage as the last resort (its own slower track).
// Formulas: run/strategy_costs.hpp, "gemini".
#include "common.hpp"
#include "strategies.hpp"

namespace ckptsim::strategies {
namespace {

class Gemini final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::gemini; }
  [[nodiscard]] std::string_view description() const override {
    return "GEMINI: every k iterations into CPU memory of m holders, traffic interleaved into idle spans; "
           "persistent storage as the last resort";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/replicas",     "/strategy/placement",     "/strategy/every_iterations",
            "/strategy/scheduler",    "/strategy/gpu_buffer",    "/strategy/sub_buffers",
            "/strategy/span_safety",  "/strategy/persistent_interval", "/strategy/checkpoint_stall",
            "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    in_memory_common(in, c);
    const std::int64_t k = c.every_iterations;
    c.stall = interleaved_stall(in, k, (in.s.strategy.replicas - 1) * in.shard);
    if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
    // Sent during the k iterations after the state is captured; complete at the block's end.
    c.completion = block_end(in, k, c.stall);
    persistent_track(in, c);
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly, ReportSection::holder_loss}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override { return replicas_configuration(c); }
};

}  // namespace

const Strategy& gemini() {
  static const Gemini strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
