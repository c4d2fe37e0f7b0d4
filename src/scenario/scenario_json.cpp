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

std::string iteration_fields_key(const Scenario& s) {
  Scenario copy = s;  // as above: only read
  std::string key;
  for (const Field& f : scenario_fields()) {
    if (f.presence == Presence::alias || !iteration_reads(f, s)) continue;
    const std::string value = f.iteration_value != nullptr ? f.iteration_value(s) : format_field(f, copy).dump();
    key.append(f.pointer).append("=").append(value).append("\n");
  }
  return key;
}

void rebase_relative_paths(nlohmann::json& doc, const std::filesystem::path& from_dir, const std::filesystem::path& to_dir) {
  namespace fs = std::filesystem;
  const fs::path from = fs::absolute(from_dir.empty() ? fs::path(".") : from_dir).lexically_normal();
  const fs::path to = fs::absolute(to_dir.empty() ? fs::path(".") : to_dir).lexically_normal();
  for (const char* pointer : {"/$schema", "/failures/trace"}) {
    const nlohmann::json::json_pointer at(pointer);
    if (!doc.contains(at) || !doc.at(at).is_string()) continue;
    const std::string text = doc.at(at).get<std::string>();
    // "https://...", "urn:...", "file:..." name no file relative to the scenario.
    if (text.empty() || text.find(':') != std::string::npos || fs::path(text).is_absolute()) continue;
    const fs::path target = (from / text).lexically_normal();
    const fs::path relative = target.lexically_relative(to);
    doc[at] = relative.empty() ? target.string() : relative.string();
  }
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
