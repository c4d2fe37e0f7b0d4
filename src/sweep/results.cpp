// Sweep outputs: points.csv, points.jsonl, manifest.json (results.hpp).
#include "ckptsim/sweep/results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/numbers.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/scenario/failure_rate_fields.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::sweep {
namespace {

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + '"';
}

/// Numbers as the result files write them (numbers.hpp); strings as written; anything else as
/// compact JSON.
std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return number_text(v.get<double>());
  return v.dump();
}

const nlohmann::json* at_pointer(const nlohmann::json& doc, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  return doc.contains(p) ? &doc.at(p) : nullptr;
}

/// An axis whose values are unit strings ("5min", "0.25%/machine/day") gets a numeric column
/// beside it in SI units, so a plot or a data frame needs no unit parser: the column's suffix and
/// the parser of the scenario field at the axis's pointer. nullopt for axes that are not a unit
/// field (numbers, names, whole objects) and for fractions (written as numbers, or as "50%",
/// whose number a reader sees at once).
struct NumericAxis {
  std::string suffix;
  double (*parse)(const std::string&);
};

std::optional<NumericAxis> numeric_axis(const std::string& pointer) {
  const Field* f = find_field(pointer);
  if (f == nullptr) return std::nullopt;
  switch (f->unit) {
    case Unit::duration:
    case Unit::duration_or_never:
      return NumericAxis{"_s", [](const std::string& t) { return t == "never" ? std::nan("") : parse_duration(t).seconds(); }};
    case Unit::bytes: return NumericAxis{"_bytes", [](const std::string& t) { return parse_bytes(t); }};
    case Unit::bandwidth: return NumericAxis{"_bytes_per_s", [](const std::string& t) { return parse_bandwidth(t); }};
    // Per machine, or per domain for a domain's rate; a value per cluster has no cell (its
    // per-machine value needs the point's machine count).
    case Unit::failure_rate:
      if (failure_rate_scope(*f) == RateScope::domain)
        return NumericAxis{"_per_domain_s", [](const std::string& t) {
                             const FailureRate r = read_failure_rate(t, RateScope::domain);
                             return r.subject == RateSubject::cluster ? std::nan("") : r.per_second;
                           }};
      return NumericAxis{"_per_machine_s", [](const std::string& t) { return parse_failure_rate(t); }};
    case Unit::flop_rate: return NumericAxis{"_flop_per_s", [](const std::string& t) { return parse_flop_rate(t); }};
    default: return std::nullopt;
  }
}

/// The SI cell of one axis value: numbers as they are, unit strings parsed, "" for "never"
/// (a duration that is no number) and for anything that does not parse.
std::string numeric_cell(const NumericAxis& axis, const nlohmann::json& v) {
  if (v.is_number()) return value_text(v);
  if (!v.is_string()) return "";
  try {
    const double x = axis.parse(v.get<std::string>());
    return std::isnan(x) ? "" : number_text(x);
  } catch (const std::exception&) {
    return "";
  }
}

/// A metric gets a _ci95 column when any point's value there is an object with "ci95".
std::vector<bool> ci95_columns(const SweepTable& table, const std::vector<PointRecord>& records) {
  std::vector<bool> has(table.metrics.size(), false);
  for (std::size_t m = 0; m < table.metrics.size(); ++m)
    for (const auto& r : records) {
      const auto* v = r.status == PointStatus::ok ? at_pointer(r.result, table.metrics[m].pointer) : nullptr;
      if (v != nullptr && v->is_object() && v->contains("ci95")) {
        has[m] = true;
        break;
      }
    }
  return has;
}

}  // namespace

std::string numeric_axis_column(const Column& axis) {
  const auto numeric = numeric_axis(axis.pointer);
  return numeric ? axis.name + numeric->suffix : std::string();
}

SweepTable table_of(const SweepSpec& spec) {
  SweepTable table;
  for (const auto& a : spec.axes) table.axes.push_back({a.name, a.pointer});
  for (const auto& m : spec.metrics) table.metrics.push_back({m.name, m.pointer});
  return table;
}

void compact_record(PointRecord& r, const std::vector<Column>& metrics) {
  (void)record_text(r);
  if (r.result.is_null()) return;
  nlohmann::json kept = nlohmann::json::object();
  for (const auto& m : metrics) {
    const nlohmann::json::json_pointer p(m.pointer);
    if (r.result.contains(p)) kept[p] = r.result.at(p);
  }
  r.result = std::move(kept);
}

std::string points_csv(const SweepTable& table, const std::vector<PointRecord>& records) {
  const std::vector<bool> ci95 = ci95_columns(table, records);
  std::string out = "index";
  auto cell = [&out](const std::string& text) {
    out += ',';
    out += csv_cell(text);
  };
  std::vector<std::optional<NumericAxis>> numeric;
  for (const auto& a : table.axes) {
    numeric.push_back(numeric_axis(a.pointer));
    cell(a.name);
    if (numeric.back()) cell(a.name + numeric.back()->suffix);
  }
  cell("status");
  for (std::size_t m = 0; m < table.metrics.size(); ++m) {
    cell(table.metrics[m].name);
    if (ci95[m]) cell(table.metrics[m].name + "_ci95");
  }
  cell("error");
  out += '\n';
  for (const auto& r : records) {
    out += std::to_string(r.index);
    for (std::size_t a = 0; a < r.values.size(); ++a) {
      cell(value_text(r.values[a]));
      if (a < numeric.size() && numeric[a]) cell(numeric_cell(*numeric[a], r.values[a]));
    }
    cell(std::string(status_name(r.status)));
    for (std::size_t m = 0; m < table.metrics.size(); ++m) {
      const auto* v = r.status == PointStatus::ok ? at_pointer(r.result, table.metrics[m].pointer) : nullptr;
      const bool summary = v != nullptr && v->is_object() && v->contains("mean");
      const bool scalar = v != nullptr && !v->is_object() && !v->is_array() && !v->is_null();
      cell(summary ? value_text(v->at("mean")) : scalar ? value_text(*v) : std::string());
      if (ci95[m]) cell(summary && v->contains("ci95") ? value_text(v->at("ci95")) : std::string());
    }
    cell(r.error);
    out += '\n';
  }
  return out;
}

std::string points_jsonl(const std::vector<PointRecord>& records) {
  std::string out;
  for (const auto& r : records) {
    out += r.text.empty() ? record_to_json(r).dump() : r.text;
    out += '\n';
  }
  return out;
}

void write_outputs(const std::string& dir, const SweepTable& table, const OutputInfo& info,
                   const std::vector<PointRecord>& records) {
  std::map<std::string, std::int64_t> status_counts;
  for (const auto& r : records) ++status_counts[std::string(status_name(r.status))];
  nlohmann::json axes = nlohmann::json::array();
  for (const auto& a : table.axes) axes.push_back({{"name", a.name}, {"pointer", a.pointer}});
  nlohmann::json metrics = nlohmann::json::array();
  for (const auto& m : table.metrics) metrics.push_back({{"name", m.name}, {"pointer", m.pointer}});
  const nlohmann::json manifest = {
      {"ckptsim_version", ckptsim_version()}, {"git_revision", ckptsim_git_revision()},
      {"spec_file", info.spec_file},          {"spec_hash", info.spec_hash},
      {"seed", info.seed},                    {"command", info.command},
      {"command_line", info.command_line},    {"point_count", info.point_count},
      {"points", records.size()},             {"shard", info.shard.empty() ? nlohmann::json() : nlohmann::json(info.shard)},
      {"status_counts", status_counts},       {"axes", axes},
      {"metrics", metrics},                   {"spec", info.normalized_spec}};
  write_output_file(dir + "/points.jsonl", points_jsonl(records));
  write_output_file(dir + "/points.csv", points_csv(table, records));
  write_output_file(dir + "/manifest.json", manifest.dump(2) + "\n");
}

}  // namespace ckptsim::sweep
