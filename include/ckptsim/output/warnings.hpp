#pragma once
// Warnings beside a result (the fields a scenario writes that nothing reads, a job priced
// although it does not fit its GPUs): one "warning    ..." line each in a table, a "warnings"
// array in a JSON document, and nothing at all when there are none, so that results without
// warnings read as before.
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim {

void print_warning_lines(std::ostream& out, const std::vector<std::string>& warnings);

/// doc["warnings"] = warnings, unless there are none.
void add_warnings(nlohmann::json& doc, const std::vector<std::string>& warnings);

}  // namespace ckptsim
