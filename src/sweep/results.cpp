// Sweep outputs: points.csv, points.jsonl, manifest.json (results.hpp).
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/sweep/results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/output/manifest.hpp"

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

/// Numbers in their shortest exact form; strings as written; anything else as compact JSON.
std::string value_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{}", v.get<double>());
  return v.dump();
}

const nlohmann::json* at_pointer(const nlohmann::json& doc, const std::string& pointer) {
  const nlohmann::json::json_pointer p(pointer);
  return doc.contains(p) ? &doc.at(p) : nullptr;
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
  for (const auto& a : table.axes) cell(a.name);
  cell("status");
  for (std::size_t m = 0; m < table.metrics.size(); ++m) {
    cell(table.metrics[m].name);
    if (ci95[m]) cell(table.metrics[m].name + "_ci95");
  }
  cell("error");
  out += '\n';
  for (const auto& r : records) {
    out += std::to_string(r.index);
    for (const auto& v : r.values) cell(value_text(v));
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
