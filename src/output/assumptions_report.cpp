#include "ckptsim/output/assumptions_report.hpp"

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "ckptsim/output/numbers.hpp"
#include "ckptsim/scenario/assumptions.hpp"

namespace ckptsim {
namespace {

/// A value as the table shows it: a plain number of more than 15 digits with its noise digits
/// dropped (numbers.hpp, "0.8033367037411526" -> "0.803336703741153"); shorter numbers ("1.0"),
/// unit strings, names and booleans as written.
std::string table_value(const std::string& value) {
  constexpr std::ptrdiff_t kDigits = 15;
  if (value.empty() || value.find_first_not_of("0123456789.eE+-") != std::string::npos ||
      std::count_if(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; }) <= kDigits)
    return value;
  try {
    std::size_t used = 0;
    const double x = std::stod(value, &used);
    return used == value.size() && value.find('.') != std::string::npos ? number_text(x) : value;
  } catch (const std::exception&) {
    return value;
  }
}

}  // namespace

void print_assumptions(std::ostream& out, const Scenario& scenario, bool every_default) {
  std::vector<Assumption> shown;
  if (every_default) {
    for (auto& a : scenario_assumptions(scenario))
      if (a.origin != ValueOrigin::file) shown.push_back(std::move(a));
  } else {
    shown = key_assumptions(scenario);
  }
  const char* label = every_default ? "defaults" : "assumed";
  for (std::size_t i = 0; i < shown.size(); ++i)
    out << fmt::format("{:<10} {} = {} ({})\n", i == 0 ? label : "", shown[i].pointer, table_value(shown[i].value),
                       shown[i].source);
  if (every_default && shown.empty()) out << "defaults   none: the scenario file writes every parameter in effect\n";
  if (!every_default) out << "           (--defaults lists every parameter the scenario file does not write)\n";
}

}  // namespace ckptsim
