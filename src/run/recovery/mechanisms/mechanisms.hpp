#pragma once
// The recovery mechanisms (run/recovery/recovery_mechanism.hpp), one unit each in this folder:
// each file defines the function that returns its row of the mechanism table.
#include "ckptsim/run/recovery/recovery_mechanism.hpp"

namespace ckptsim {

const RecoveryMechanismRow& live_migration_mechanism();
const RecoveryMechanismRow& silent_corruption_mechanism();
const RecoveryMechanismRow& elastic_restart_mechanism();

}  // namespace ckptsim
