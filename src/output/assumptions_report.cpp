#include "ckptsim/output/assumptions_report.hpp"

#include <ostream>

#include <fmt/format.h>

#include "ckptsim/scenario/assumptions.hpp"

namespace ckptsim {

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
    out << fmt::format("{:<10} {} = {} ({})\n", i == 0 ? label : "", shown[i].pointer, shown[i].value, shown[i].source);
  if (every_default && shown.empty()) out << "defaults   none: the scenario file writes every parameter in effect\n";
  if (!every_default) out << "           (--defaults lists every parameter the scenario file does not write)\n";
}

}  // namespace ckptsim
