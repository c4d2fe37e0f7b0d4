// Per-step fault tolerance (TorchFT, https://github.com/pytorch/torchft): no checkpoints; the job
// trains as G replica groups (HSDP: each group of N / G machines holds a whole copy of the model,
// sharded over its machines) and never stops for a failure. The run model's per_step tier
// (src/run/recovery/policies/per_step.cpp, run/group_outages.hpp) takes a failed group out of the quorum until it has been
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
//   per step F = A + K, what the Manager adds to every step (pytorch/torchft at 73dafea:
//            torchft/manager.py, optim.py, ddp.py): the quorum RPC runs in a thread during the
//            forward (use_async_quorum) and is left out; the gradients are all-reduced across
//            the G groups on the replicate dimension (Manager.allreduce, a DDP comm hook or
//            HSDP's replicate reduce), A; should_commit synchronizes the device and waits for an
//            RPC answered once every rank of the group has voted, K = strategy.ft_commit_latency
//            (default 0: no measurement found).
//            A: each machine holds 1/(N/G) of its group's model, so its gradient shard is
//            g_m = P w G / N bytes (w = 2 with mixed precision, else 4), all-reduced by a ring of
//            G (one machine per group at the same shard position): 2 (G-1)/G g_m through its NIC
//            at the collective rate f_c B_n, plus 2 (G-1) latencies alpha:
//              A = 2 (G-1)/G g_m / (f_c B_n) + 2 (G-1) alpha,
//            and with the Gloo transport (CPU tensors) the g_m bytes go to and from host memory
//            over the machine's PCIe links first, + 2 g_m / (GPUs x B_pcie). Counted as exposed:
//            the iteration model does not schedule it, and the engines' own reduce-scatters use
//            the same NICs in the backward where it could overlap (an upper bound).
//   group restart (with the restart phases in effect, failures.restart not written): a failed
//            group restarts as a job of its own N / G machines (TorchFT runs each replica group
//            as its own torchrun job), in_job(R_g) of scenario/restart_phases.hpp at its
//            R_g = (N / G) x GPUs ranks, plus its communicator across the groups at G ranks,
//            reconfigure = communicator_init(G) (the Manager's process group is configured anew
//            for each quorum: torchft/process_group.py configure). A written failures.restart (or
//            a cause's own restart) is the group's restart as written.
//   reconfigure: every group waits for it when the failed group leaves the quorum and again
//            when it rejoins; both are charged to the wait after the failure (the same idle time
//            to first order; the rejoin's is later in the run).
//   per step: each step takes T + F; F is fault-tolerance time, counted in the breakdown's
//            checkpoint_stall (goodput: checkpoint save), not training.
//   no checkpoint, no retrieval, no lost progress beyond the step in flight.
// Closed form: analysis/per_step_model.hpp.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "replica_group_costs.hpp"
#include "strategies.hpp"

#include "ckptsim/core/checked_time.hpp"
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
            "/strategy/heartbeat_timeout", "/strategy/heal_bandwidth", "/strategy/ft_transport",
            "/strategy/ft_commit_latency"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    c.tier = CheckpointTier::per_step;
    set_replica_group_costs(in, c);
    c.ft_step = ft_step_cost(in.s);
  }
  /// F = A + K (the header).
  static SimTime ft_step_cost(const Scenario& s) {
    const StrategySpec& st = s.strategy;
    if (std::max(1, st.replica_groups) < 2) return st.ft_commit_latency;
    const double word = s.training.word_bytes();
    const SimTime a = cross_group_allreduce(s, word, "torchft's all-reduce across replica groups",
                                            "torchft's Gloo copies to and from host memory");
    return checked_add(a, st.ft_commit_latency, "/strategy/ft_commit_latency", "torchft's cost per step");
  }
  /// No period of its own (no checkpoints).
  [[nodiscard]] std::string period_field(const Scenario& s) const override {
    return s.training.iteration_time ? "/training/iteration_time" : "the iteration time";
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    const std::string restart =
        c.group_restart > SimTime::zero() ? fmt::format(", group restart {}", format_duration(c.group_restart)) : "";
    return fmt::format(" ({} replica groups, quorum of {}, heal {}{}, step timeout {}, heartbeat timeout {}, {} per step)",
                       c.replica_groups, c.min_groups, format_duration(c.heal), restart, format_duration(c.step_timeout),
                       format_duration(c.heartbeat_timeout), format_duration(c.ft_step));
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    add_replica_group_costs_json(c, out);
    out["ft_step_s"] = c.ft_step.seconds();
  }

};

}  // namespace

const Strategy& torchft() {
  static const TorchFt strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
