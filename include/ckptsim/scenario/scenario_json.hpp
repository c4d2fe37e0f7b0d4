#pragma once
// The effective scenario: a Scenario written back in the input format, every field explicit.
//
// effective_scenario_json() writes each field of the parameter table (parameters.hpp) with unit
// strings that parse back to the same SI values, so load_scenario_json() of the result gives an
// equal Scenario (source_file aside). Unset optional fields are left out; presets are kept by
// name while every field they filled is also written (explicit fields override presets).
// scenario_hash() identifies a scenario in result manifests.
#include <cstdint>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

nlohmann::json effective_scenario_json(const Scenario& s);

/// 64-bit FNV-1a (offset basis 0xcbf29ce484222325, prime 0x100000001b3).
std::uint64_t fnv1a_64(std::string_view bytes);

/// 16 hex digits: 64-bit FNV-1a over effective_scenario_json(s).dump() (compact, keys sorted).
std::string scenario_hash(const Scenario& s);

}  // namespace ckptsim
