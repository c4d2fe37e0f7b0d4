// Just-in-time checkpointing (Gupta et al., "Just-In-Time Checkpointing: Low Cost Error Recovery
// from Deep Learning Training Failures", EuroSys '24,
// https://www.microsoft.com/en-us/research/publication/just-in-time-checkpointing-low-cost-error-recovery-from-deep-learning-training-failures/):
// the job trains as G data-parallel replica groups of N / G machines (each group a whole copy of
// the model state); after a failure, the surviving replicas write their state (the state at the
// start of the interrupted minibatch: the optimizer step is not yet taken) and the restarted job
// redoes only the interrupted minibatch. That needs an intact replica of every shard: shard
// position p (machine p of every group) is lost when every one of its G holders failed in the
// episode; then the run falls back to the last periodic checkpoint in storage (else the initial
// state). The run model's jit tier (src/run/recovery/policies/just_in_time.cpp) does both and counts each
// (recoveries.just_in_time, recoveries.jit_fallback).
//
// Costs (C checkpoint bytes of the model, B_s storage bandwidth shared by all machines, B_ser
// serialization bandwidth per machine, c = C / N, c_G = C G / N the shard of a group's machine):
//   JIT save   J = max(C / B_s, c_G / B_ser): one replica per shard position writes its c_G
//              (N / G writers, C in all through the shared storage), after detection and while the
//              replacement is on its way;
//   recovery   from storage, rho_s = C / B_s + c / B_ser (as every retrieval from storage);
//   fallback   remote-periodic's periodic checkpoints every k = max(1, round(interval / T))
//              iterations, S = max(C / B_s, c / B_ser) (strategy.interval; the paper makes them
//              rare, since JIT recovers almost every failure).
// Closed form: analysis/just_in_time_model.hpp.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "strategies.hpp"

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::strategies {
namespace {

class JustInTime final : public Strategy {
 public:
  [[nodiscard]] StrategyKind kind() const override { return StrategyKind::just_in_time; }
  [[nodiscard]] std::string_view description() const override {
    return "just-in-time checkpoints (Gupta et al.): after a failure the surviving data-parallel replicas save, "
           "only the interrupted minibatch is redone";
  }
  [[nodiscard]] std::vector<std::string_view> parameters() const override {
    return {"/strategy/replica_groups", "/strategy/interval", "/strategy/checkpoint_stall",
            "/strategy/checkpoint_duration"};
  }
  void costs(const CostInputs& in, StrategyCosts& c) const override {
    const Scenario& s = in.s;
    c.tier = CheckpointTier::just_in_time;
    c.replica_groups = s.strategy.replica_groups;
    // The periodic fallback: remote-periodic's rule.
    c.every_iterations = periods_nearest(s.strategy.interval, in.t);
    c.stall = std::max(in.storage_transfer, in.load);
    if (s.strategy.checkpoint_stall) c.stall = *s.strategy.checkpoint_stall;
    c.completion = c.stall;
    const double group_shard = s.checkpoint_bytes() * s.strategy.replica_groups / std::max(1, s.cluster.machines);
    const SimTime serialize = checked_transfer_time(group_shard, s.training.serialization_bandwidth,
                                                    "/training/serialization_bandwidth", "a just-in-time checkpoint's write");
    c.jit_save = std::max(in.storage_transfer, serialize);
  }
  [[nodiscard]] std::string period_field(const Scenario&) const override { return "/strategy/interval"; }
  [[nodiscard]] std::vector<ReportSection> report_sections() const override { return {ReportSection::young_daly}; }
  [[nodiscard]] std::string configuration(const StrategyCosts& c) const override {
    return fmt::format(" ({} data-parallel replica groups, save {} after a failure; fallback every {} iteration(s))",
                       c.replica_groups, format_duration(c.jit_save), c.every_iterations);
  }
  void add_costs_json(const StrategyCosts& c, nlohmann::json& out) const override {
    out["replica_groups"] = c.replica_groups;
    out["jit_save_s"] = c.jit_save.seconds();
  }
};

}  // namespace

const Strategy& just_in_time() {
  static const JustInTime strategy;
  return strategy;
}

}  // namespace ckptsim::strategies
