// Effective scenario JSON and its hash (scenario_json.hpp).
#include "ckptsim/scenario/scenario_json.hpp"

#include <cstdint>

#include <fmt/format.h>

#include "ckptsim/scenario/parameters.hpp"
#include "field_format.hpp"

namespace ckptsim {

nlohmann::json effective_scenario_json(const Scenario& s) {
  Scenario copy = s;  // Field::bind hands out non-const references; the copy is only read
  nlohmann::json out = nlohmann::json::object();
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias) continue;
    nlohmann::json value = format_field(f, copy);
    if (value.is_null()) continue;
    out[nlohmann::json::json_pointer(std::string(f.pointer))] = std::move(value);
  }
  return out;
}

std::string scenario_hash(const Scenario& s) {
  // FNV-1a, 64-bit: offset basis 14695981039346656037, prime 1099511628211.
  std::uint64_t h = 14695981039346656037ULL;
  for (unsigned char c : effective_scenario_json(s).dump()) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return fmt::format("{:016x}", h);
}

}  // namespace ckptsim
