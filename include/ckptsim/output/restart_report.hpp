#pragma once
// The restart phases of a scenario whose failures.restart (or new job's overhead) comes from them
// (scenario/restart_phases.hpp), as `run` and `analyze` show them: what dominates a restart at
// this scale. Nothing is written for a scenario that states its restart whole, so that its
// results read as before.
#include <iosfwd>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// "restart    in-job 319.36 s at 16384 ranks (restart phases): warm-up 253.00 s, communicator init 44.70 s, ..."
/// (phases largest first), and the new-job line when the restart tiers take it from the phases.
void print_restart_phases(std::ostream& out, const Scenario& scenario);

/// {"ranks", "in_job_s", "in_job_phases_s": {...}, "new_job_s", "new_job_phases_s": {...}} for
/// what comes from the phases; null when nothing does.
nlohmann::json restart_phases_json(const Scenario& scenario);

}  // namespace ckptsim
