// ckptsim analyze: the erasure-coded strategy's figures (erasure_summary.hpp).
#include "erasure_summary.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "ckptsim/analysis/erasure_recovery.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {
namespace {

int last_shown(const Scenario& s, const StrategyCosts& c) {
  return std::min(s.cluster.machines, c.parity + kExtraFailuresShown);
}

}  // namespace

nlohmann::json erasure_summary_json(const Scenario& s, const StrategyCosts& c) {
  const ErasureCode code{c.group_size, c.parity};
  const double shard = s.checkpoint_bytes_per_machine();
  const auto probability = erasure_recovery_probability(s.cluster.machines, code, last_shown(s, c));
  nlohmann::json p = nlohmann::json::object();
  for (std::size_t k = 1; k < probability.size(); ++k) p[std::to_string(k)] = probability[k];
  return {{"group_size", code.group_size},
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
  std::string row;
  for (std::size_t k = 1; k < probability.size(); ++k)
    row += fmt::format("{}k={}: {:.6g}", k == 1 ? "" : ", ", k, probability[k]);
  out << fmt::format("           P(recover from CPU memory | k machines replaced at once, exact) {}\n", row);
}

}  // namespace ckptsim::cli
