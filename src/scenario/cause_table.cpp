// /failures/causes: reading (preset name or array) and writing (cause_table.hpp).
#include "cause_table.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/units.hpp"
#include "field_format.hpp"
#include "field_read.hpp"

namespace ckptsim {
namespace {

using nlohmann::json;

/// Shares are relative weights; this bound keeps their sum and ratios finite and exact enough.
constexpr double kMaxCauseShare = 1e12;

bool valid_cause_name(const std::string& name) {
  if (name.empty() || name.size() > 64) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

std::optional<SimTime> read_time(const json& v, const std::string& where, std::vector<CauseTableProblem>& problems) {
  try {
    return duration_value(v);  // the one duration path of every scenario field (field_read.hpp)
  } catch (const UnitError& e) {
    problems.push_back({where, e.what()});
    return std::nullopt;
  }
}

FailureCauseSpec read_row(const json& row, const std::string& where, std::set<std::string>& names,
                          std::vector<CauseTableProblem>& problems) {
  FailureCauseSpec c;
  if (!row.is_object()) {
    problems.push_back({where, "an object {\"name\", \"share\", \"outcome\", \"detection\", \"restart\"}"});
    return c;
  }
  for (const auto& [key, value] : row.items()) {
    if (key != "name" && key != "share" && key != "outcome" && key != "detection" && key != "restart")
      problems.push_back({where + "/" + escape_pointer_token(key),
                          "one of the keys \"name\", \"share\", \"outcome\", \"detection\", \"restart\""});
  }
  const auto name = row.find("name");
  if (name == row.end() || !name->is_string() || !valid_cause_name(name->get<std::string>()))
    problems.push_back({where + "/name", "a name of 1-64 characters a-z 0-9 - _"});
  else if (!names.insert(name->get<std::string>()).second)
    problems.push_back({where + "/name", "a name not used by another cause"});
  else
    c.name = name->get<std::string>();
  const auto share = row.find("share");
  if (share == row.end() || !share->is_number() || !(share->get<double>() > 0) || share->get<double>() > kMaxCauseShare)
    problems.push_back({where + "/share", fmt::format("a relative weight greater than zero and at most {:g} (shares are "
                                                      "normalized)",
                                                      kMaxCauseShare)});
  else
    c.share = share->get<double>();
  const auto outcome = row.find("outcome");
  if (outcome == row.end() || !outcome->is_string() ||
      (outcome->get<std::string>() != "software" && outcome->get<std::string>() != "hardware"))
    problems.push_back({where + "/outcome", "\"software\" (processes restart in place) or \"hardware\" (machine replaced)"});
  else
    c.hardware = outcome->get<std::string>() == "hardware";
  if (const auto d = row.find("detection"); d != row.end()) c.detection = read_time(*d, where + "/detection", problems);
  if (const auto r = row.find("restart"); r != row.end()) c.restart = read_time(*r, where + "/restart", problems);
  return c;
}

}  // namespace

std::vector<CauseTableProblem> read_cause_table(const json& value, FailureCauseTable& out) {
  std::vector<CauseTableProblem> problems;
  if (value.is_string()) {
    const CausePreset* preset = find_cause_preset(value.get<std::string>());
    if (preset == nullptr) return {{"", "a cause preset name: " + quoted_names(cause_preset_names()) + ", or an array"}};
    out = FailureCauseTable{preset->name, preset->causes};
    return {};
  }
  if (!value.is_array() || value.empty() || value.size() > kMaxCauses)
    return {{"", fmt::format("a cause preset name ({}) or an array of 1 to {} causes", quoted_names(cause_preset_names()),
                             kMaxCauses)}};
  FailureCauseTable table;
  std::set<std::string> names;
  for (std::size_t i = 0; i < value.size(); ++i)
    table.causes.push_back(read_row(value[i], fmt::format("/{}", i), names, problems));
  if (problems.empty()) out = std::move(table);
  return problems;
}

json format_cause_table(const FailureCauseTable& table) {
  if (table.causes.empty()) return nullptr;
  json rows = json::array();
  for (const auto& c : table.causes) {
    json row{{"name", c.name}, {"share", c.share}, {"outcome", c.hardware ? "hardware" : "software"}};
    if (c.detection) row["detection"] = format_duration_exact(*c.detection);
    if (c.restart) row["restart"] = format_duration_exact(*c.restart);
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace ckptsim
