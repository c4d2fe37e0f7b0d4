#pragma once
// JSON Schema (draft 2020-12) of the scenario format, generated from the parameter table the
// loader reads through (parameters.hpp), so the two cannot disagree: one property per field
// with its JSON type, its unit as a regular-expression pattern built from the unit parsers'
// own suffix lists, its names (enum) from the same lists the loader checks against, its range,
// its default (in input form) and its description; objects admit only the table's keys.
// Required fields are required; fields a preset fills are required unless the preset is
// named; fields of one failure process are required when that process is chosen.
//
// What the schema cannot say, the loader still checks: cross-field rules (exactly one of
// run.duration and run.iterations, seed in one place, replicas <= machines, memory budgets,
// divisibility), the range of a unit string's value (e.g. "150%"), duplicate keys, and that a
// trace file exists. `ckptsim schema` prints it; docs/scenario.schema.json is the committed copy.
#include <string_view>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim {

/// The top-level key a scenario may use to name its schema (for editors); the loader accepts
/// a string there and ignores it.
inline constexpr std::string_view kSchemaKey = "$schema";

/// The schema's "$id": a location-free name (a URN, since the project publishes no URL), the
/// same for the committed copy (docs/scenario.schema.json), the one `meson install` puts in
/// <datadir>/ckptsim/scenario.schema.json and what `ckptsim schema` prints. A scenario points
/// editors at one of those files with "$schema" (a path relative to the scenario, or absolute).
inline constexpr std::string_view kSchemaId = "urn:ckptsim:scenario";

/// Properties in the order of the parameter table.
nlohmann::ordered_json scenario_schema();

}  // namespace ckptsim
