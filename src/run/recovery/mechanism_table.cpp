// The table of recovery mechanisms (run/recovery/recovery_mechanism.hpp): one row each, in the
// order the replica loop asks them at each hook.
#include "ckptsim/run/recovery/recovery_mechanism.hpp"

#include "mechanisms/mechanisms.hpp"

namespace ckptsim {

const std::vector<RecoveryMechanismRow>& recovery_mechanisms() {
  static const std::vector<RecoveryMechanismRow> table{
      live_migration_mechanism(),
      silent_corruption_mechanism(),
      elastic_restart_mechanism(),
  };
  return table;
}

std::vector<std::shared_ptr<const MechanismPlan>> mechanism_plans(const Scenario& s, const StrategyCosts& c) {
  std::vector<std::shared_ptr<const MechanismPlan>> plans;
  for (const RecoveryMechanismRow& row : recovery_mechanisms())
    if (row.modelled(s)) plans.push_back(row.plan(s, c));
  return plans;
}

}  // namespace ckptsim
