#pragma once
// Running a sweep and merging shards (docs/sweep-format.md).
//
// run_sweep: the points of this shard (index % shard_count == shard_index) minus those already
// in the journal (with resume), computed on `jobs` threads or, under mpirun, on every MPI rank
// (mpi_executor.hpp); each finished point is appended to DIR/journal.jsonl at once; at the end
// points.csv, points.jsonl and manifest.json are written atomically (results.hpp), by rank 0
// only under MPI. Outputs depend only on (spec, shard): never on jobs, ranks, the order points
// finish in, or how many times the sweep was interrupted and resumed.
//
// merge_sweeps: the union of shard folders of one spec (same spec hash; every point exactly
// once, equal duplicates tolerated) written as one sweep's outputs.
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

class MpiSession;  // executor.hpp

/// An error that left one MPI rank while the others wait for it: its owner must end the job
/// (MpiSession::abort) after reporting it.
class RankFailure : public std::runtime_error {
 public:
  RankFailure(int rank, const std::string& what) : std::runtime_error(what), rank_(rank) {}
  [[nodiscard]] int rank() const { return rank_; }

 private:
  int rank_;
};

struct SweepOptions {
  std::string out_dir;
  int jobs = 1;
  int shard_index = 0;
  int shard_count = 1;
  bool resume = false;
  std::string command_line;              ///< for manifest.json
  std::ostream* progress = nullptr;      ///< nullptr: quiet
  bool progress_terminal = false;        ///< redraw a bar (else a line per 10%)
  /// The MPI session of this process (command line: when an MPI launcher started it); null or a
  /// single rank: threads do the work.
  const MpiSession* mpi = nullptr;
  /// Test hook: called after each journal append with the number appended by this process.
  std::function<void(std::int64_t)> after_append;
};

struct SweepOutcome {
  bool wrote_outputs = false;        ///< false on MPI ranks other than 0
  std::int64_t points = 0;           ///< in this shard
  std::int64_t resumed = 0;          ///< taken from the journal
  std::int64_t computed = 0;         ///< computed by this run
  std::int64_t invalid = 0;
  std::int64_t dropped_lines = 0;    ///< corrupt or torn journal lines dropped
  std::int64_t cache_hits = 0;       ///< iteration-cost cache, this process
  std::int64_t cache_misses = 0;
  int ranks = 1;
};

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options);

/// "I/N" with 0 <= I < N (digits only, as `--shard` takes it): {I, N}; nullopt for anything else.
std::optional<std::pair<int, int>> parse_shard(const std::string& text);

/// Returns the number of points written to out_dir.
std::int64_t merge_sweeps(const std::vector<std::string>& dirs, const std::string& out_dir,
                          const std::string& command_line);

}  // namespace ckptsim::sweep
