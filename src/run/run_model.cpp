// The run model of run_model.hpp: what every replica shares, prepared once; each replica runs
// under its tier's recovery policy (run/recovery/recovery_policy.hpp).
#include "ckptsim/run/run_model.hpp"

#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/recovery/recovery_mechanism.hpp"
#include "ckptsim/run/recovery/recovery_policy.hpp"
#include "ckptsim/run/recovery/replica_state.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

RunModel::RunModel(const Scenario& scenario, StrategyCosts costs) : scenario_(scenario), costs_(std::move(costs)) {
  std::vector<std::vector<int>> stored_on;
  int lost_at = 0;  // holders lost that lose a set: 0 = all of them
  if (costs_.erasure_coded()) {
    // A coding group is lost when p + 1 of its g members are replaced. Its members' holder sets
    // are all the group, so one counter per group suffices: machine j counts only for its
    // group's first member (one update per replaced machine, as cheap as GEMINI's pairs).
    placement_ = erasure_groups(costs_.placement, scenario_.cluster.machines, ErasureCode{costs_.group_size, costs_.parity});
    lost_at = costs_.parity + 1;
    stored_on.assign(placement_.holders.size(), {});
    for (std::size_t j = 0; j < placement_.holders.size(); ++j) stored_on[j] = {placement_.holders[j].front()};
    has_placement_ = true;
  } else if (recovery_policy(costs_.tier).holds_memory_copies) {
    placement_ = make_placement(costs_.placement, scenario_.cluster.machines, costs_.replicas, scenario_.run.seed,
                                costs_.replication_jump);
    stored_on = placement_.stored_on();
    has_placement_ = true;
  }
  if (has_placement_) {
    holder_index_.offsets.push_back(0);
    for (const auto& sets : stored_on) {
      holder_index_.sets.insert(holder_index_.sets.end(), sets.begin(), sets.end());
      holder_index_.offsets.push_back(static_cast<int>(holder_index_.sets.size()));
    }
    for (const auto& holders : placement_.holders)
      holder_index_.loss_limit.push_back(lost_at > 0 ? lost_at : static_cast<int>(holders.size()));
  }
  if (scenario_.failures.process == FailureProcessKind::trace)
    trace_ = load_failure_trace(scenario_.failures.trace_file, scenario_.cluster.machines);
  check_trace_causes();
  // Once for every replica: values that cannot run are refused here, before any replica runs.
  mechanisms_ = mechanism_plans(scenario_, costs_);
  std::vector<FailureCause> causes = failure_causes(scenario_.failures);
  // Per-step fault tolerance restarts only the failed group (torchft.cpp, strategy_costs.hpp).
  for (FailureCause& c : causes) c.restart = cause_restart_under(costs_, scenario_.failures.restart, c.restart);
  causes_ = std::make_shared<const std::vector<FailureCause>>(std::move(causes));
}

void RunModel::check_trace_causes() const {
  const auto& table = scenario_.failures.causes.causes;
  for (const auto& r : trace_) {
    if (trace_cause_index(r, table) >= 0) continue;
    throw ModelError("/failures/causes",
                     fmt::format("the trace {} has a failure at {} with cause \"{}\", which the cause table does not "
                                 "name (with a cause table every trace line needs a cause column naming a row)",
                                 scenario_.failures.trace_file, format_duration(r.time), r.cause));
  }
}

ReplicaResult RunModel::simulate(std::uint64_t replica, AdvanceMode mode) const {
  const ReplicaInputs in{scenario_, costs_, has_placement_ ? &holder_index_ : nullptr, &trace_, causes_, &mechanisms_};
  return recovery_policy(costs_.tier).simulate(in, replica, mode);
}

}  // namespace ckptsim
