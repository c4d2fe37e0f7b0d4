// The whole-domain failure table of `ckptsim placement --domain-size` (placement_domains.hpp).
#include "placement_domains.hpp"

#include <algorithm>
#include <ostream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/domain_recovery.hpp"
#include "ckptsim/core/error.hpp"

namespace ckptsim::cli {

void print_domain_failures(const CommandContext& ctx, const DomainTableRequest& rq) {
  const int domains = (rq.machines + rq.domain_size - 1) / rq.domain_size;
  const int last = rq.j_last < 0 ? std::min(domains, 8) : std::min(rq.j_last, domains);
  auto placements = rq.placements;
  const bool listed = std::any_of(placements.begin(), placements.end(), [](const auto& e) { return e.first == "group-spread"; });
  if (!listed && rq.machines % rq.replicas == 0)
    placements.emplace_back("group-spread", spread_group_placement(rq.machines, rq.replicas));
  nlohmann::json out{{"machines", rq.machines}, {"replicas", rq.replicas}, {"domain_size", rq.domain_size},
                     {"domains", domains}, {"schemes", nlohmann::json::object()}};
  std::string table = fmt::format("{:<14}", "domains failed");
  for (int j = rq.j_first; j <= last; ++j) table += fmt::format(" {:>10}", j);
  table += '\n';
  for (const auto& [name, placement] : placements) {
    table += fmt::format("{:<14}", name);
    if (!placement) {
      table += " (does not apply)\n";
      continue;
    }
    std::vector<double> p;
    try {
      p = domain_recovery_probability(*placement, rq.domain_size);
    } catch (const PlacementError& e) {
      table += fmt::format(" (no exact count: {})\n", e.what());
      out["schemes"][name] = {{"error", e.what()}};
      continue;
    }
    nlohmann::json js{{"j", nlohmann::json::array()}, {"probability", nlohmann::json::array()}};
    for (int j = rq.j_first; j <= last; ++j) {
      const double v = p[static_cast<std::size_t>(j)];
      table += v > 0.9995 && v < 1 ? fmt::format(" {:>10}", fmt::format("1-{:.2g}", 1 - v)) : fmt::format(" {:>10.4f}", v);
      js["j"].push_back(j);
      js["probability"].push_back(v);
    }
    table += '\n';
    out["schemes"][name] = js;
  }
  if (rq.json) {
    ctx.out << out.dump(2) << '\n';
    return;
  }
  ctx.out << fmt::format(
      "P(every checkpoint recoverable from CPU memory) when j whole domains of {} consecutive machines fail\n"
      "(N = {}, m = {}, {} domains; exact counts, failed domains uniform among the C({}, j) sets)\n\n",
      rq.domain_size, rq.machines, rq.replicas, domains, domains);
  ctx.out << table;
}

}  // namespace ckptsim::cli
