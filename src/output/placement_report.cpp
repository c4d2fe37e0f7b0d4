// The placement document (placement_report.hpp).
#include "ckptsim/output/placement_report.hpp"
#include "ckptsim/output/numbers.hpp"

#include <cmath>
#include <nlohmann/json.hpp>

#include "ckptsim/output/manifest.hpp"

namespace ckptsim {
namespace {

nlohmann::json numbers(const std::vector<double>& v, std::size_t first, std::size_t last) {
  nlohmann::json a = nlohmann::json::array();
  for (std::size_t i = first; i <= last; ++i) {
    if (std::isfinite(v[i]))
      a.push_back(v[i]);
    else
      a.push_back(nullptr);  // log10 of 0
  }
  return a;
}

nlohmann::json window_json(const WindowRecovery& w) {
  nlohmann::json j = {{"failure_probability_per_machine", w.failure_probability_per_machine},
                      {"probability", w.probability},
                      {"failure_probability", w.failure_probability},
                      {"expected_storage_machines", w.expected_storage_machines},
                      {"expected_lost_checkpoints", w.expected_lost_checkpoints}};
  if (std::isnan(w.relative_error_bound))
    j["relative_error_bound"] = nullptr;
  else
    j["relative_error_bound"] = w.relative_error_bound;
  return j;
}

}  // namespace

nlohmann::json placement_report_json(const PlacementRequest& o, const std::vector<PlacementSchemeResult>& results,
                                     const std::string& command_line) {
  const auto first = static_cast<std::size_t>(o.k_first);
  const auto last = static_cast<std::size_t>(o.k_last);
  nlohmann::json ks = nlohmann::json::array();
  for (int k = o.k_first; k <= o.k_last; ++k) ks.push_back(k);
  nlohmann::json doc;
  doc["manifest"] = {{"ckptsim_version", ckptsim_version()},
                     {"git_revision", ckptsim_git_revision()},
                     {"command_line", command_line},
                     {"seed", o.seed}};
  doc["machines"] = o.machines;
  doc["replicas"] = o.replicas;
  doc["schemes"] = nlohmann::json::object();
  for (const auto& r : results) {
    nlohmann::json s;
    if (!r.placement) {
      s = {{"applicable", false}, {"reason", r.not_applicable}};
      doc["schemes"][r.name] = s;
      continue;
    }
    s["applicable"] = true;
    s["exact"] = r.curve.has_value();
    s["k"] = ks;
    if (r.curve) {
      s["method"] = r.curve->method;
      s["probability"] = numbers(r.curve->probability, first, last);
      s["failure_probability"] = numbers(r.curve->failure_probability, first, last);
      s["log10_probability"] = numbers(r.curve->log10_probability, first, last);
      s["expected_storage_machines"] = numbers(r.curve->expected_storage_machines, first, last);
    } else {
      s["method"] = "monte carlo";
      s["probability"] = numbers(r.mc->probability, first, last);
    }
    if (r.mc) {
      s["monte_carlo"] = {{"samples", r.mc->samples},
                          {"seed", o.seed},
                          {"probability", numbers(r.mc->probability, first, last)},
                          {"ci95_low", numbers(r.mc->ci95_low, first, last)},
                          {"ci95_high", numbers(r.mc->ci95_high, first, last)}};
    }
    s["union_bound"] = numbers(union_bound_curve(*r.placement), first, last);
    s["expected_lost_checkpoints"] = numbers(expected_lost_checkpoints_curve(*r.placement), first, last);
    s["shards_per_machine"] = r.placement->max_shards_per_machine();
    if (o.shard_bytes) s["cpu_memory_per_machine_bytes"] = placement_cpu_memory_bytes(*r.placement, *o.shard_bytes);
    if (r.window) s["window"] = window_json(*r.window);
    doc["schemes"][r.name] = s;
  }
  return tidy_numbers(std::move(doc));
}

}  // namespace ckptsim
