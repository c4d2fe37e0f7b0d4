// Warnings beside a result (warnings.hpp).
#include "ckptsim/output/warnings.hpp"

#include <ostream>

#include <nlohmann/json.hpp>

namespace ckptsim {

void print_warning_lines(std::ostream& out, const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings) out << "warning    " << w << '\n';
}

void add_warnings(nlohmann::json& doc, const std::vector<std::string>& warnings) {
  if (!warnings.empty()) doc["warnings"] = warnings;
}

}  // namespace ckptsim
