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
    if (f.applies != nullptr && !f.applies(s)) continue;
    nlohmann::json value = format_field(f, copy);
    if (value.is_null()) continue;
    out[nlohmann::json::json_pointer(std::string(f.pointer))] = std::move(value);
  }
  return out;
}

std::uint64_t fnv1a_64(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // offset basis
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;  // FNV prime
  }
  return h;
}

std::string scenario_hash(const Scenario& s) {
  return fmt::format("{:016x}", fnv1a_64(effective_scenario_json(s).dump()));
}

}  // namespace ckptsim
