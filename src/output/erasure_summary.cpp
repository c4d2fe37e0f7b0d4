// The erasure-coded strategy's figures as `ckptsim analyze` shows them (output/erasure_summary.hpp).
#include "ckptsim/output/erasure_summary.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/erasure_recovery.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

int last_shown(const Scenario& s, const StrategyCosts& c) {
  return std::min(s.cluster.machines, c.parity + kExtraFailuresShown);
}

/// P_j when j whole racks fail (failures.domains.rack), or why there is no exact count;
/// nullopt without racks.
struct RackProbabilities {
  std::vector<double> probability;
  std::string unavailable;
};
std::optional<RackProbabilities> rack_probabilities(const Scenario& s, const StrategyCosts& c) {
  const int rack = s.failures.domain(DomainKind::rack).machines;
  if (rack <= 0) return std::nullopt;
  RackProbabilities r;
  try {
    r.probability = erasure_domain_recovery_probability(c.placement, s.cluster.machines, ErasureCode{c.group_size, c.parity},
                                                        rack, last_shown(s, c));
  } catch (const PlacementError& e) {
    r.unavailable = e.what();
  }
  return r;
}

std::string probability_row(const std::vector<double>& probability, const char* name) {
  std::string row;
  for (std::size_t k = 1; k < probability.size(); ++k)
    row += fmt::format("{}{}={}: {:.6g}", k == 1 ? "" : ", ", name, k, probability[k]);
  return row;
}

}  // namespace

nlohmann::json erasure_summary_json(const Scenario& s, const StrategyCosts& c) {
  const ErasureCode code{c.group_size, c.parity};
  const double shard = s.checkpoint_bytes_per_machine();
  const auto probability = erasure_recovery_probability(s.cluster.machines, code, last_shown(s, c));
  nlohmann::json p = nlohmann::json::object();
  for (std::size_t k = 1; k < probability.size(); ++k) p[std::to_string(k)] = probability[k];
  nlohmann::json racks;
  if (const auto r = rack_probabilities(s, c)) {
    racks = nlohmann::json::object();
    if (!r->unavailable.empty()) racks["unavailable"] = r->unavailable;
    for (std::size_t j = 1; j < r->probability.size(); ++j) racks[std::to_string(j)] = r->probability[j];
  }
  return {{"rack_recovery_probability", racks},{"group_size", code.group_size},
          {"parity", code.parity},
          {"cpu_shards_per_machine", code.shards_per_machine()},
          {"cpu_memory_bytes", code.cpu_memory_bytes(shard)},
          {"traffic_bytes_per_machine", code.traffic_bytes(shard)},
          {"encode_s", c.encode.seconds()},
          {"repair_bytes", code.repair_bytes(shard)},
          {"recovery_probability", p}};
}

void print_erasure_summary(std::ostream& out, const Scenario& s, const StrategyCosts& c) {
  const ErasureCode code{c.group_size, c.parity};
  const double shard = s.checkpoint_bytes_per_machine();
  out << fmt::format("erasure    groups of g = {} with p = {} parity ({}): CPU memory 2 x {}/{} = {:.3f} shards = {} per "
                     "machine (GEMINI m = {}: {:.0f} shards); traffic p c = {} per machine per checkpoint, encode {}\n",
                     code.group_size, code.parity, code.parity == 1 ? "XOR" : "Reed-Solomon", code.group_size,
                     code.group_size - code.parity, 2.0 * code.shards_per_machine(), format_bytes(code.cpu_memory_bytes(shard)),
                     code.parity + 1, 2.0 * (code.parity + 1), format_bytes(code.traffic_bytes(shard)),
                     format_duration(c.encode));
  const auto probability = erasure_recovery_probability(s.cluster.machines, code, last_shown(s, c));
  out << fmt::format("           P(recover from CPU memory | k machines replaced at once, exact) {}\n",
                     probability_row(probability, "k"));
  if (const auto r = rack_probabilities(s, c)) {
    if (r->unavailable.empty())
      out << fmt::format("           P(recover from CPU memory | j whole racks of {} fail at once, exact) {}\n",
                         s.failures.domain(DomainKind::rack).machines, probability_row(r->probability, "j"));
    else
      out << fmt::format("           whole racks: no exact count ({})\n", r->unavailable);
  }
}

}  // namespace ckptsim
