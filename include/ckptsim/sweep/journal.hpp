#pragma once
// The crash-safe sweep journal: DIR/journal.jsonl, one self-checking line per finished point.
//
// Line format: 16 hex digits of the 64-bit FNV-1a of the JSON text, one space, the compact JSON
// text, '\n'. The first line is the header {"ckptsim_sweep_journal": 1, "spec_hash", "shard",
// "point_count"}; every other line a point record (evaluate.hpp). Each line goes to the kernel
// in one write(2) on an O_APPEND descriptor as soon as its point finishes, so a killed process
// (even kill -9) loses at most the line being written. On reading, a line whose checksum does
// not match its text, that is not a record, or that has no final '\n' (torn) is dropped and its
// point computed again. Resuming rewrites the journal with only the valid lines (temporary file
// + rename) before appending, so a torn tail never joins the next record.
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/sweep/evaluate.hpp"

namespace ckptsim::sweep {

struct JournalContents {
  std::optional<nlohmann::json> header;        ///< nullopt: no valid header line
  std::map<std::int64_t, PointRecord> records;  ///< by index (the first valid line of an index wins)
  std::int64_t dropped_lines = 0;              ///< corrupt or torn lines
};

/// "<checksum> <text>\n" for one JSON value.
std::string journal_line(const nlohmann::json& value);

/// The largest journal.jsonl or points.jsonl a sweep reads back (each is read whole): about a
/// million points of ~4 KiB; a larger sweep is split with --shard.
inline constexpr std::size_t kMaxSweepFileBytes = std::size_t{4} << 30;

/// Reads a journal through the guarded reader (core/input_file.hpp: a regular file of at most
/// kMaxSweepFileBytes); a missing file reads as empty. Throws InputError when it is not a regular
/// file or cannot be read.
JournalContents read_journal(const std::string& path);

class JournalWriter {
 public:
  /// Writes `header` and `records` to a temporary file renamed over `path` (so the journal
  /// starts clean), then keeps it open for appending.
  JournalWriter(const std::string& path, const nlohmann::json& header, const std::map<std::int64_t, PointRecord>& records);
  ~JournalWriter();
  JournalWriter(const JournalWriter&) = delete;
  JournalWriter& operator=(const JournalWriter&) = delete;

  /// Appends one record in a single write(2) (and keeps its text in record.text). Not
  /// thread-safe: callers serialize.
  void append(PointRecord& record);

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace ckptsim::sweep
