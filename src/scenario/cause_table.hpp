#pragma once
// Reading and writing /failures/causes (private to the scenario layer).
//
// Input: a cause preset name (cause_presets.hpp), or an array of at most kMaxCauses objects
// {"name": [a-z0-9_-]+ unique, "share": > 0 (relative weight), "outcome": "software" |
// "hardware", "detection": duration (optional), "restart": duration (optional)}; no other keys.
// Output (effective scenario): always the array form, so the table in effect is on record.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

constexpr std::size_t kMaxCauses = 256;

struct CauseTableProblem {
  std::string pointer;   ///< relative to the table ("" or "/3/share")
  std::string expected;
};

/// Fills `out` and returns no problem, or leaves `out` untouched and returns every problem.
std::vector<CauseTableProblem> read_cause_table(const nlohmann::json& value, FailureCauseTable& out);

nlohmann::json format_cause_table(const FailureCauseTable& table);

}  // namespace ckptsim
