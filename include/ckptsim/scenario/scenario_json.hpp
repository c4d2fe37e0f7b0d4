#pragma once
// The effective scenario: a Scenario written back in the input format, every field explicit.
//
// effective_scenario_json() writes each field of the parameter table (parameters.hpp) with unit
// strings that parse back to the same SI values, so load_scenario_json() of the result gives an
// equal Scenario (source_file aside). Unset optional fields are left out; presets are kept by
// name while every field they filled is also written (explicit fields override presets).
// scenario_hash() identifies a scenario in result manifests.
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

nlohmann::json effective_scenario_json(const Scenario& s);

/// A scenario document read from a file in `from_dir` and written to a file in `to_dir`: its
/// relative paths (the top-level "$schema", /failures/trace) rewritten so that they still name
/// the same files from `to_dir` (relative again where the two folders share a root). URLs and
/// absolute paths are kept; so is everything else in the document.
void rebase_relative_paths(nlohmann::json& doc, const std::filesystem::path& from_dir, const std::filesystem::path& to_dir);

/// The value of every field the iteration model reads for `s` (each row whose ReadBy holds
/// `iteration`, under its condition: parameters.hpp), one "pointer=value" line each in table
/// order, the values written as effective_scenario_json() writes them (exact) and unset ones as
/// null. Two scenarios with equal keys get the same iteration costs: the key of the sweep's cost
/// cache (sweep/evaluate.hpp), derived from the table so that no hand-written list can forget a
/// field.
std::string iteration_fields_key(const Scenario& s);

/// 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
std::uint64_t fnv1a_64(std::string_view bytes);

/// 16 hex digits: 64-bit FNV-1a over effective_scenario_json(s).dump() (compact, keys sorted).
std::string scenario_hash(const Scenario& s);

}  // namespace ckptsim
