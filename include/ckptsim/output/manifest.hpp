#pragma once
// Run manifest: what every result file carries so it can be traced back (docs/architecture.md, "Decisions").
// Deliberately no wall-clock timestamp: the same inputs and seed give byte-identical files.
#include <cstdint>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// {"ckptsim_version", "git_revision", "seed", "scenario_hash", "command_line"}.
nlohmann::json make_manifest(const Scenario& scenario, const std::string& command_line);

/// The version and the git revision of this build (defined in the build_info.cpp that Meson
/// generates from src/output/build_info.cpp.in at build time; "unknown" outside a git checkout).
std::string ckptsim_version();
std::string ckptsim_git_revision();

}  // namespace ckptsim
