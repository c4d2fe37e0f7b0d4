// Merging shard folders into one sweep's outputs (sweep.hpp).
#include <filesystem>
#include <sstream>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/sweep/journal.hpp"
#include "ckptsim/sweep/json_file.hpp"
#include "ckptsim/sweep/results.hpp"
#include "ckptsim/sweep/sweep.hpp"

namespace ckptsim::sweep {
namespace {

std::vector<Column> columns(const nlohmann::json& manifest, const char* key, const std::string& file) {
  std::vector<Column> out;
  if (!manifest.contains(key) || !manifest.at(key).is_array())
    throw InputError(file, fmt::format("/{}", key), "an array of {name, pointer}", "nothing");
  for (const auto& c : manifest.at(key)) {
    if (!c.is_object() || !c.contains("name") || !c.contains("pointer") || !c.at("name").is_string() ||
        !c.at("pointer").is_string())
      throw InputError(file, fmt::format("/{}", key), "an array of {name, pointer}", c.dump());
    out.push_back({c.at("name").get<std::string>(), c.at("pointer").get<std::string>()});
  }
  return out;
}

void read_points(const std::string& file, const std::vector<Column>& metrics, std::map<std::int64_t, PointRecord>& records) {
  // The guarded reader (core/input_file.hpp): a FIFO or /dev/zero is refused, never waited on.
  std::istringstream in(read_input_file(file, "the points.jsonl of a finished sweep", kMaxSweepFileBytes));
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    PointRecord record;
    try {
      record = record_from_json(nlohmann::json::parse(line));
    } catch (const std::exception&) {
      throw InputError(file, "", fmt::format("a point record on line {}", number), "a line that is not one");
    }
    record.text = line;
    const auto [it, inserted] = records.emplace(record.index, record);
    if (inserted) compact_record(it->second, metrics);
    if (!inserted && it->second.text != record.text)
      throw InputError(file, "", fmt::format("the same result for point {} as the other folders", record.index),
                       "a different result");
  }
}

std::string require_string(const nlohmann::json& m, const char* key, const std::string& file) {
  if (!m.contains(key) || !m.at(key).is_string()) throw InputError(file, fmt::format("/{}", key), "a string", "nothing");
  return m.at(key).get<std::string>();
}

/// The merged outputs replace points.csv, points.jsonl and manifest.json of `out_dir`: it must
/// not be one of the folders being merged (their points would be lost if the merge failed half
/// way, and a folder holding one shard would be passed off as the whole sweep).
void refuse_output_among_inputs(const std::vector<std::string>& dirs, const std::string& out_dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(out_dir, ec)) return;
  for (const auto& dir : dirs)
    if (fs::equivalent(dir, out_dir, ec))
      throw InputError("<command line>", "-o", "an output folder that is not one of the folders merged",
                       fmt::format("\"{}\", the same folder as the input \"{}\"", out_dir, dir));
}

}  // namespace

std::int64_t merge_sweeps(const std::vector<std::string>& dirs, const std::string& out_dir,
                          const std::string& command_line) {
  if (dirs.empty()) throw InputError("<command line>", "", "at least one sweep folder to merge", "none");
  refuse_output_among_inputs(dirs, out_dir);
  std::map<std::int64_t, PointRecord> records;
  nlohmann::json first;
  std::string first_file;
  for (const auto& dir : dirs) {
    const std::string file = dir + "/manifest.json";
    const nlohmann::json manifest = read_json_file(file, "sweep manifest");
    if (!manifest.is_object()) throw InputError(file, "", "a sweep manifest (JSON object)", manifest.dump());
    if (first.is_null()) {
      first = manifest;
      first_file = file;
    } else if (require_string(manifest, "spec_hash", file) != require_string(first, "spec_hash", first_file)) {
      throw InputError(file, "/spec_hash", fmt::format("{} (the spec of {})", first.at("spec_hash").get<std::string>(), first_file),
                       manifest.at("spec_hash").get<std::string>());
    }
    read_points(dir + "/points.jsonl", columns(first, "metrics", first_file), records);
  }
  if (!first.contains("point_count") || !first.at("point_count").is_number_integer())
    throw InputError(first_file, "/point_count", "the sweep's number of points", "nothing");
  const auto total = first.at("point_count").get<std::int64_t>();
  std::int64_t expected = 0;
  for (const auto& [index, record] : records) {
    if (index != expected)
      throw InputError("<command line>", "", fmt::format("folders that hold all {} points of the sweep", total),
                       fmt::format("point {} missing", expected));
    ++expected;
  }
  if (expected != total)
    throw InputError("<command line>", "", fmt::format("folders that hold all {} points of the sweep", total),
                     fmt::format("{} points", expected));
  std::error_code ec;
  std::filesystem::create_directories(out_dir, ec);
  if (ec) throw IoError(fmt::format("{}: cannot create the output folder: {}", out_dir, ec.message()));
  SweepTable table{columns(first, "axes", first_file), columns(first, "metrics", first_file)};
  OutputInfo info;
  info.spec_file = first.value("spec_file", "");
  info.spec_hash = first.value("spec_hash", "");
  info.normalized_spec = first.value("spec", nlohmann::json());
  info.seed = first.value("seed", std::uint64_t{0});
  info.command = first.value("command", "");
  info.command_line = command_line;
  info.point_count = total;
  std::vector<PointRecord> ordered;
  for (auto& [index, record] : records) ordered.push_back(std::move(record));
  write_outputs(out_dir, table, info, ordered);
  return total;
}

}  // namespace ckptsim::sweep
