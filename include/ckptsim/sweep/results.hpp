#pragma once
// Sweep outputs (docs/sweep-format.md, "Outputs"):
//   points.csv     tidy, one row per point: index, one column per axis (strings as written,
//                  other JSON values as compact JSON), status, one column per metric (the mean
//                  when the metric is a {mean, ci95} object, with a <name>_ci95 column when any
//                  point has one; the number itself otherwise; empty when absent), error.
//                  RFC 4180 quoting. Numbers use the shortest text that reads back exactly, so
//                  the bytes depend only on the records, never on who computed them.
//   points.jsonl   one record per line (evaluate.hpp), in index order.
//   manifest.json  version, git revision, spec file and hash, seed, command line, point counts,
//                  shard, axes, metrics and the normalized spec.
// Every file is written to a temporary name in the same folder, flushed to disk and renamed.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

struct Column {
  std::string name;
  std::string pointer;
};

struct SweepTable {
  std::vector<Column> axes;
  std::vector<Column> metrics;
};

SweepTable table_of(const SweepSpec& spec);

/// Keeps in `r` only what the outputs need: its JSON text (record_text) for points.jsonl and,
/// in r.result, the values at the metric pointers for points.csv. A sweep holds every record
/// until it writes its outputs, so this keeps memory near the size of points.jsonl.
void compact_record(PointRecord& r, const std::vector<Column>& metrics);

/// The numeric column points.csv writes beside an axis of unit strings: the axis's name with the
/// SI unit of the scenario field at its pointer ("interval" at /strategy/interval ->
/// "interval_s", "failure_rate" at /failures/rate -> "failure_rate_per_machine_s"); "" for axes
/// whose field has no unit (numbers, names, fractions) or that are no field (whole objects).
std::string numeric_axis_column(const Column& axis);

/// `records` in index order.
std::string points_csv(const SweepTable& table, const std::vector<PointRecord>& records);
std::string points_jsonl(const std::vector<PointRecord>& records);

struct OutputInfo {
  std::string spec_file;
  std::string spec_hash;
  nlohmann::json normalized_spec;
  std::uint64_t seed = 0;
  std::string command;
  std::string command_line;
  std::int64_t point_count = 0;  ///< in the whole sweep
  std::string shard;             ///< "I/N", "" when all points
};

/// Writes points.csv, points.jsonl and manifest.json into `dir` (which must exist).
void write_outputs(const std::string& dir, const SweepTable& table, const OutputInfo& info,
                   const std::vector<PointRecord>& records);

}  // namespace ckptsim::sweep
