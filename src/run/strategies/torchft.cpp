// Per-step fault tolerance (TorchFT, https://github.com/pytorch/torchft): no checkpoints; the job
// trains as G replica groups (HSDP: each group of N / G machines holds a whole copy of the model,
// sharded over its machines) and never stops for a failure. The run model's per_step tier
// (run_model.cpp, run/group_outages.hpp) takes a failed group out of the quorum until it has been
// replaced, restarted and healed; the others train on at (G - k) / G of the healthy rate.
//
// Costs (units: bytes, bytes/s, s):
//   heal H = (C G / N) / B_heal: every machine of the healing group receives its shard of the
//            whole state (C = checkpoint bytes of the model) from its counterpart in a live group,
//            B_heal = strategy.heal_bandwidth per machine, default the achieved rule's rate of a
//            machine sending out of GPU memory, G b_send = f B_n (network/achieved_bandwidth.hpp;
//            TorchFT's PGTransport sends the state dict over the process group:
//            torchft/checkpointing/pg_transport.py; its HTTP transport is slower: set the field).
//   wait after a failure (every group): max(heartbeat_timeout, min(D, step_timeout)), D the
//            failure's detection (the survivors' collective errors out), step_timeout TorchFT's
//            Manager timeout (default 60 s, torchft/manager.py), heartbeat_timeout the
//            lighthouse's (default 5 s, src/lighthouse.rs heartbeat_timeout_ms): a quorum forms
//            once the dead group has stopped heartbeating.
//   quorum   a step needs min_replica_groups groups (Manager min_replica_size, lighthouse
//            --min_replicas); below it every group waits.
//   no checkpoint stall, no retrieval, no lost progress beyond the step in flight.
// Closed form: analysis/per_step_model.hpp.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "strategies.hpp"

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::strategies {
namespace {

class TorchFt final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::torchft; }
  [[nodiscard]] std::string_view description() const override {
    return "per-step fault tolerance (TorchFT): replica groups, a failed group leaves the quorum and heals from a live one";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/replica_groups", "/strategy/min_replica_groups", "/strategy/step_timeout",
            "/strategy/heartbeat_timeout", "/strategy/heal_bandwidth"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    const StrategySpec& st = in.s.strategy;
    c.tier = CheckpointTier::per_step;
    c.replica_groups = st.replica_groups;
    c.min_groups = st.min_replica_groups;
    c.step_timeout = st.step_timeout;
    c.heartbeat_timeout = st.heartbeat_timeout;
    c.stall = SimTime::zero();
    c.completion = SimTime::zero();
    const double group_shard = in.s.checkpoint_bytes() * st.replica_groups / std::max(1, in.s.cluster.machines);
    const double bandwidth = st.heal_bandwidth.value_or(p2p_machine_send_bandwidth(in.s.cluster));
    c.heal = checked_transfer_time(group_shard, bandwidth,
                                   st.heal_bandwidth ? "/strategy/heal_bandwidth" : "/cluster/network/p2p_efficiency",
                                   "a replica group's heal from a live peer");
  }
  /// No period of its own (no checkpoints).
  [[nodiscard]] std::string period_field(const Scenario& s) const override {
    return s.training.iteration_time ? "/training/iteration_time" : "the iteration time";
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    return fmt::format(" ({} replica groups, quorum of {}, heal {}, step timeout {}, heartbeat timeout {})", c.replica_groups,
                       c.min_groups, format_duration(c.heal), format_duration(c.step_timeout),
                       format_duration(c.heartbeat_timeout));
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    out["replica_groups"] = c.replica_groups;
    out["min_replica_groups"] = c.min_groups;
    out["heal_s"] = c.heal.seconds();
    out["step_timeout_s"] = c.step_timeout.seconds();
    out["heartbeat_timeout_s"] = c.heartbeat_timeout.seconds();
  }
};

}  // namespace

const Strategy& torchft() {
  static const TorchFt strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
