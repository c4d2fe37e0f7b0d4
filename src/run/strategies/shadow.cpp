// Shadow-cluster replication (Checkmate, Bhardwaj et al., arXiv 2507.13522, 2025): instead of
// snapshotting the state, the switch multicasts the data-parallel all-reduce's gradients every
// step to a separate cluster of M CPU machines (the shadow), which applies the same optimizer
// step to a copy of the model state and so holds a live copy of every step. A failure of the
// training machines retrieves the state from the shadow; a failure of a shadow machine loses its
// part of the live copy until a replacement re-syncs it from the training cluster.
//
// Costs (units: bytes, bytes/s, s; P parameters, C = P w_c checkpoint bytes, N training machines,
// c = C / N, M shadow machines, each holding C / M; f = cluster.network.p2p_efficiency):
//   traffic  G = P w_g bytes per step reach the shadow (w_g = strategy.shadow_gradient_bytes, the
//            reduced gradients once: each parameter's gradient is carried by one data-parallel
//            reduction); G / M per shadow machine. The multicast is the switch's replication of
//            the all-reduce's packets (Checkmate's mechanism), so the training NICs carry no extra
//            byte and the iteration model is not changed (checkpoint layout none); the extra
//            bytes are on the switch ports to the shadow machines.
//   shadow step  T_sh = max((G/M) / (f B_sh), (C/M) / U): the gradient ingress through its NIC
//            (B_sh = strategy.shadow_network_bandwidth, default cluster.network_bandwidth) or the
//            optimizer update of its C/M bytes (U = strategy.shadow_update_bandwidth), whichever is
//            slower (pipelined with each other across steps).
//   stall    S = max(0, T_sh - T): a shadow slower than training would fall further behind each
//            step (an unbounded backlog of gradients); the model throttles training to the
//            shadow's pace instead and says so in a warning. k = 1, completion = T_sh (the state of
//            step n is in the shadow T_sh after step n ends).
//   retrieval  peer = max(C / (M f B_sh), c / (f B_n)) + c / B_ser: every training machine pulls
//            its shard from the shadow, limited by the shadow's M NICs or its own.
//   shadow outage  W = R_sh + (C/M) / (f B_sh): a failed shadow machine is replaced (R_sh =
//            strategy.shadow_replacement) and its C/M bytes re-sent by the training cluster;
//            shadow machines fail at M / MTBF_sh (exponential); after a recovery from storage the
//            whole shadow re-syncs to the restored state, (C/M) / (f B_sh).
//   persistent track  as GEMINI's (strategy.persistent_interval), uploaded by the shadow.
// The run model's shadow tier (src/run/recovery/policies/shadow.cpp) falls back to storage when a
// training failure comes during a shadow outage. The M shadow machines are not in the cluster's
// machine count: goodput per machine-hour is the reported goodput times N / (N + M) (a warning).
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::strategies {
namespace {

/// The value of a field shadow requires, or a ModelError naming it.
template <typename T>
T required_under_shadow(const std::optional<T>& value, const char* pointer, const char* what) {
  if (!value) throw ModelError(pointer, fmt::format("required under strategy shadow ({})", what));
  return *value;
}

class Shadow final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::shadow; }
  [[nodiscard]] std::string_view description() const override {
    return "shadow-cluster replication (Checkmate): every step's gradients multicast to CPU machines that keep a "
           "live copy; recovery from the shadow, from storage while a shadow machine re-syncs";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/shadow_machines",          "/strategy/shadow_update_bandwidth",
            "/strategy/shadow_machine_mtbf",      "/strategy/shadow_replacement",
            "/strategy/shadow_network_bandwidth", "/strategy/shadow_gradient_bytes",
            "/strategy/persistent_interval",      "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    const Scenario& s = in.s;
    const StrategySpec& st = s.strategy;
    const std::int64_t machines =
        required_under_shadow(st.shadow_machines, "/strategy/shadow_machines", "the shadow cluster's CPU machines");
    if (machines > 1'000'000'000)
      throw ModelError("/strategy/shadow_machines", fmt::format("at most 10^9 shadow machines, found {}", machines));
    const double update = required_under_shadow(st.shadow_update_bandwidth, "/strategy/shadow_update_bandwidth",
                                                "a shadow machine's optimizer update rate in checkpoint bytes/s");
    const SimTime mtbf = required_under_shadow(st.shadow_machine_mtbf, "/strategy/shadow_machine_mtbf",
                                               "the mean time between failures of one shadow machine");
    SimTime replacement;
    if (st.shadow_replacement) {
      replacement = *st.shadow_replacement;
    } else if (s.failures.replacement.distribution == ReplacementDistribution::fixed) {
      replacement = s.failures.replacement.fixed;
    } else {
      throw ModelError("/strategy/shadow_replacement",
                       "required under strategy shadow when failures.replacement.distribution is not fixed");
    }
    const double m = static_cast<double>(machines);
    const double nic = p2p_nic_efficiency(s.cluster) * st.shadow_network_bandwidth.value_or(s.cluster.network_bandwidth);
    const double state = s.checkpoint_bytes();

    c.tier = CheckpointTier::shadow;
    c.every_iterations = 1;
    c.shadow_machines = static_cast<int>(machines);
    c.shadow_gradient_bytes = s.model.parameters * st.shadow_gradient_bytes.value_or(s.training.word_bytes());
    const SimTime ingress = checked_transfer_time(c.shadow_gradient_bytes / m, nic, "/strategy/shadow_network_bandwidth",
                                                  "a shadow machine's gradients of one step");
    const SimTime step = checked_transfer_time(state / m, update, "/strategy/shadow_update_bandwidth",
                                               "a shadow machine's optimizer update of one step");
    c.shadow_step = std::max(ingress, step);
    c.stall = std::max(SimTime::zero(), c.shadow_step - in.t);
    c.completion = c.shadow_step;
    if (c.stall > SimTime::zero())
      c.warnings.push_back(fmt::format(
          "shadow: a shadow machine's step ({}: {} its gradient ingress, {} its optimizer update) is longer than the "
          "iteration ({}); training is throttled to the shadow's pace, {} of stall per iteration (more "
          "/strategy/shadow_machines would remove it)",
          format_duration(c.shadow_step), format_duration(ingress), format_duration(step), format_duration(in.t),
          format_duration(c.stall)));
    // Every training machine pulls its shard; the shadow's M NICs serve the whole state.
    const SimTime from_shadow = std::max(
        checked_transfer_time(state / m, nic, "/strategy/shadow_network_bandwidth", "the shadow's send of the state"),
        checked_transfer_time(in.shard, p2p_machine_bandwidth(s.cluster), "/cluster/network_bandwidth",
                              "a shard's retrieval from the shadow"));
    c.retrieval_peer = checked_add(from_shadow, in.load, "/strategy/shadow_network_bandwidth", "a retrieval from the shadow");
    c.shadow_resync = checked_transfer_time(state / m, nic, "/strategy/shadow_network_bandwidth",
                                            "a shadow machine's re-sync of its part of the state");
    c.shadow_outage = checked_add(replacement, c.shadow_resync, "/strategy/shadow_replacement", "a shadow machine's outage");
    c.shadow_failure_rate = m / mtbf.seconds();
    persistent_track(in, c);
    c.warnings.push_back(fmt::format(
        "shadow: the {} shadow machines are not counted in the cluster's {} machines; goodput per machine-hour is "
        "the goodput times {}/{} = {:.4g}",
        machines, s.cluster.machines, s.cluster.machines, s.cluster.machines + machines,
        static_cast<double>(s.cluster.machines) / (static_cast<double>(s.cluster.machines) + m)));
  }
  /// Eq. 1 with its numbers (k = 1, the shadow retrieval as the peer one) and Young / Daly's
  /// intervals for its stall, as every periodic track.
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    return fmt::format(" ({} shadow machines, {} of gradients per step, shadow step {}, shadow outage {})",
                       c.shadow_machines, format_bytes(c.shadow_gradient_bytes), format_duration(c.shadow_step),
                       format_duration(c.shadow_outage));
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    out["shadow_machines"] = c.shadow_machines;
    out["shadow_gradient_bytes"] = c.shadow_gradient_bytes;
    out["shadow_step_s"] = c.shadow_step.seconds();
    out["shadow_outage_s"] = c.shadow_outage.seconds();
    out["shadow_resync_s"] = c.shadow_resync.seconds();
    out["shadow_failure_rate_per_s"] = c.shadow_failure_rate;
  }
};

}  // namespace

const Strategy& shadow() {
  static const Shadow strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
