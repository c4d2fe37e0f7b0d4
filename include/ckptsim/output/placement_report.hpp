#pragma once
// The JSON document of `ckptsim placement --json` (and of the Python module's placement()):
// one writer for both. Reads the results of analysis/placement_study.hpp only.
//
// {"manifest" {ckptsim_version, git_revision, command_line, seed}, "machines", "replicas",
//  "schemes" {name: {"applicable", "exact", "k", "method", "probability", "failure_probability",
//  "log10_probability", "expected_storage_machines", "monte_carlo", "union_bound",
//  "expected_lost_checkpoints", "shards_per_machine", "cpu_memory_per_machine_bytes", "window"}
//  or {"applicable": false, "reason"}}}. Values that are not finite (log10 of 0) are null.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/analysis/placement_study.hpp"

namespace ckptsim {

nlohmann::json placement_report_json(const PlacementRequest& request, const std::vector<PlacementSchemeResult>& results,
                                     const std::string& command_line);

}  // namespace ckptsim
