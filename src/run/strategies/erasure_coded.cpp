// Erasure-coded CPU memory: groups of g machines keep their shards plus p parity symbols per
// stripe (checkpoint/erasure_code.hpp: XOR for p = 1, Reed-Solomon beyond); p c per machine sent
// through the idle spans like GEMINI's copies and encoded on the CPU as it arrives; a replaced
// machine rebuilds its shard from g - p symbols. Formulas: run/strategy_costs.hpp.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"

namespace ckptsim::strategies {
namespace {

class ErasureCoded final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::erasure_coded; }
  [[nodiscard]] std::string_view description() const override {
    return "erasure-coded CPU memory: groups of g machines keep their shards plus p parity symbols per stripe "
           "(XOR for p = 1, Reed-Solomon beyond), traffic interleaved like GEMINI's; survives any p replaced machines per group";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    // The scheduler and its knobs too: the stall is what the iteration model's plan of the p
    // copies, made by strategy.scheduler, leaves unhidden (interleaved_stall).
    return {"/strategy/group_size",          "/strategy/parity",           "/strategy/encode_bandwidth",
            "/strategy/every_iterations",    "/strategy/scheduler",        "/strategy/gpu_buffer",
            "/strategy/sub_buffers",         "/strategy/span_safety",      "/strategy/persistent_interval",
            "/strategy/checkpoint_stall",    "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    in_memory_common(in, c);
    const ErasureCode code{in.s.strategy.group_size, in.s.strategy.parity};
    c.group_size = code.group_size;
    c.parity = code.parity;
    c.replicas = 1;
    const std::int64_t k = c.every_iterations;
    c.stall = interleaved_stall(in, k, code.traffic_bytes(in.shard));
    if (in.s.strategy.checkpoint_stall) c.stall = *in.s.strategy.checkpoint_stall;
    const std::string bw = "/strategy/encode_bandwidth";
    c.encode = checked_transfer_time(code.encode_bytes(in.shard), in.s.strategy.encode_bandwidth, bw, "a checkpoint's encode");
    const SimTime traffic = checked_multiply(in.t, k, kEveryPointer, "k iterations");
    c.completion = checked_add(std::max(traffic, c.encode), c.stall, kEveryPointer, "the checkpoint completion time");
    // A peer retrieval is a repair: g - p symbols fetched, decoded, then loaded.
    const double repair = code.repair_bytes(in.shard);
    const SimTime fetch = checked_transfer_time(repair, p2p_machine_bandwidth(in.s.cluster), "/cluster/network_bandwidth",
                                                "a replaced machine's repair reads");
    const SimTime decode = checked_transfer_time(repair, in.s.strategy.encode_bandwidth, bw, "a replaced machine's decode");
    c.retrieval_peer = checked_add(checked_add(fetch, decode, bw, "a repair"), in.load, bw, "a repair");
    persistent_track(in, c);
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::erasure_code, ReportSection::young_daly}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    return fmt::format(" (groups of {} with {} parity, {} placement, every {} iteration(s))", c.group_size, c.parity,
                       name_of(c.placement), c.every_iterations);
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    out["erasure_code"] = {{"group_size", c.group_size}, {"parity", c.parity}, {"encode_s", c.encode.seconds()}};
  }
};

}  // namespace

const Strategy& erasure_coded() {
  static const ErasureCoded strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
