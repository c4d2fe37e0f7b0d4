// Asynchronous islands (DiLoCo, Douillard et al., arXiv 2311.08105; run with TorchFT's DiLoCo,
// https://github.com/pytorch/torchft torchft/local_sgd.py): no checkpoints; the job trains as G
// islands (replica groups, strategy.replica_groups: HSDP, each island of N / G machines holds a
// whole copy of the model) that take H = strategy.sync_every inner steps on their own and then
// synchronize: the pseudo-gradients (the change of the parameters over the H steps) are
// all-reduced across the islands and the outer optimizer (Nesterov momentum) steps the global
// model. The run model's islands tier (src/run/recovery/policies/islands.cpp) drops a failed island
// until a synchronization after its restart, while the others train on.
//
// Costs (units: bytes, bytes/s, s; shared with torchft through replica_group_costs.hpp):
//   outer sync A_H = 2 (G-1)/G g_o / (f_c B_n) + 2 (G-1) alpha, g_o = P w_o G / N bytes per
//            machine (w_o = strategy.outer_gradient_bytes, default 4: TorchFT's DiLoCo all-reduces
//            p.data - backup in the parameters' dtype, fp32 under FSDP's mixed precision), + the
//            Gloo host copies with ft_transport gloo: torchft's A with w_o instead of the
//            gradients' w, paid once per H steps. Not overlapped: TorchFT's DiLoCo with
//            fragment_sync_delay = 0 (one fragment) blocks on the all-reduce at the H-th step;
//            Streaming DiLoCo's fragments (arXiv 2501.18512) overlap it with tau inner steps,
//            which is not modelled (an upper bound on the synchronization's cost).
//   a round  H T + A_H; A_H is fault-tolerance time (breakdown checkpoint_stall), not training.
//   heal H_heal = (C G / N) / B_heal, a group restart and the reconfiguration Q: torchft's.
// What a failure costs and when the others wait: src/run/recovery/policies/islands.cpp.
// Not modelled: the effect of the islands' staleness on model quality (loss per step): a step of
// an island counts as a step of synchronous training. Closed form: analysis/islands_model.hpp.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "replica_group_costs.hpp"
#include "strategies.hpp"

#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/elastic.hpp"
#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/migration.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::strategies {
namespace {

class Diloco final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::diloco; }
  [[nodiscard]] std::string_view description() const override {
    return "asynchronous islands (DiLoCo with TorchFT): replica groups synchronize every sync_every steps, a failed "
           "island drops out and rejoins at a synchronization";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/replica_groups",  "/strategy/min_replica_groups", "/strategy/step_timeout",
            "/strategy/heartbeat_timeout", "/strategy/heal_bandwidth",   "/strategy/ft_transport",
            "/strategy/sync_every",      "/strategy/outer_gradient_bytes"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    refuse_unmodelled(in.s.failures);
    c.tier = CheckpointTier::islands;
    set_replica_group_costs(in, c);
    c.sync_every = in.s.strategy.sync_every;
    c.warnings.push_back("diloco: the effect of the islands' staleness on model quality (loss per step) is not modelled: "
                         "an island's inner step counts as a step of synchronous training");
    c.outer_sync = std::max(1, in.s.strategy.replica_groups) < 2
                       ? SimTime::zero()
                       : cross_group_allreduce(in.s, in.s.strategy.outer_gradient_bytes,
                                               "diloco's outer all-reduce across the islands",
                                               "diloco's Gloo copies to and from host memory");
  }
  /// The fault mechanisms whose interplay with islands is not modelled are refused, not ignored.
  static void refuse_unmodelled(const FailureSpec& f) {
    if (stragglers_modelled(f))
      throw ModelError("/failures/stragglers/rate",
                       "0 under diloco: a straggler slows its own island and the synchronization waits for it, which "
                       "the islands model does not simulate");
    if (migration_modelled(f))
      throw ModelError("/failures/migration/fraction",
                       "0 under diloco: live migration of an island's machine is not modelled");
    if (elastic_modelled(f))
      throw ModelError("/failures/elastic/min_machines",
                       "absent under diloco, whose islands drop out and train on without restarting the job");
  }
  /// No period of its own (no checkpoints).
  [[nodiscard]] std::string period_field(const Scenario& s) const override {
    return s.training.iteration_time ? "/training/iteration_time" : "the iteration time";
  }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    const std::string restart =
        c.group_restart > SimTime::zero() ? fmt::format(", island restart {}", format_duration(c.group_restart)) : "";
    return fmt::format(" ({} islands, quorum of {}, outer sync every {} steps taking {}, heal {}{}, step timeout {}, "
                       "heartbeat timeout {}; staleness's effect on the loss not modelled)",
                       c.replica_groups, c.min_groups, c.sync_every, format_duration(c.outer_sync),
                       format_duration(c.heal), restart, format_duration(c.step_timeout),
                       format_duration(c.heartbeat_timeout));
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    add_replica_group_costs_json(c, out);
    out["sync_every"] = c.sync_every;
    out["outer_sync_s"] = c.outer_sync.seconds();
  }

};

}  // namespace

const Strategy& diloco() {
  static const Diloco strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
