#pragma once
// Loading and validating scenario files (docs/scenario-format.md; CONTRIBUTING.md habits 3-5).
//
// Parse -> validate -> seal: the loader returns a complete Scenario (presets applied, every
// default filled, SI units) or throws InputError listing EVERY problem found in the document:
// unknown keys (with the keys allowed there), unknown names (with the names that exist), wrong
// types, bad units, out-of-range values, missing required fields and cross-field conflicts
// (replicas vs machines and placement, CPU memory for the in-memory checkpoints, duration vs
// iterations, trace file existence, ...). Each Problem names the file, the RFC 6901 pointer,
// what was expected and what was found (the JSON value as written, or "nothing").
// The accepted keys and their defaults are listed by scenario_parameters() (parameters.hpp).
//
// Seed: /run/seed; a top-level /seed is accepted as another spelling (not both).
// Trace files: /failures/trace is resolved against the scenario file's folder and stored as an
// absolute path, so the effective scenario reloads from anywhere.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Reads, parses and validates a scenario file. A missing, unreadable or empty file and a
/// syntax error are problems too (InputError).
Scenario load_scenario_file(const std::string& path);

/// Validates an already parsed document. `file_label` names it in problems (and gives the
/// default name); relative trace paths are resolved against `base_dir` ("" = current folder).
Scenario load_scenario_json(const nlohmann::json& doc, const std::string& file_label, const std::string& base_dir);

}  // namespace ckptsim
