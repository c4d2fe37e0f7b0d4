// Running a sweep: journal, executors, outputs (sweep.hpp).
#include "ckptsim/sweep/sweep.hpp"

#include <filesystem>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/sweep/executor.hpp"
#include "ckptsim/sweep/journal.hpp"
#include "ckptsim/sweep/progress.hpp"
#include "ckptsim/sweep/results.hpp"

namespace ckptsim::sweep {
namespace {

constexpr std::int64_t kMaxPointsPerProcess = 4'000'000;

std::string shard_text(const SweepOptions& o) { return fmt::format("{}/{}", o.shard_index, o.shard_count); }

nlohmann::json journal_header(const SweepSpec& spec, const SweepOptions& o) {
  return {{"ckptsim_sweep_journal", 1}, {"spec_hash", spec.hash}, {"shard", shard_text(o)},
          {"point_count", point_count(spec)}};
}

/// The journal's records of this shard, after checking it belongs to this spec and shard.
std::map<std::int64_t, PointRecord> resumable_records(const SweepSpec& spec, const SweepOptions& o,
                                                      const std::string& path, SweepOutcome& outcome) {
  namespace fs = std::filesystem;
  std::error_code ec;
  // symlink_status: a link (even a dangling one) is seen as what it is, never followed.
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec || !fs::exists(status)) return {};
  // The journal is rewritten (temporary file + rename): through a link it would replace a file
  // elsewhere, perhaps outside the folder.
  if (fs::is_symlink(status))
    throw InputError(path, "", "a journal that is a regular file in the output folder (it is rewritten in place)",
                     "a symbolic link to " + fs::read_symlink(path, ec).string());
  if (!o.resume)
    throw InputError(path, "", "no journal of an earlier sweep in the output folder (finish that sweep with --resume, or choose another -o)",
                     "a journal");
  JournalContents contents = read_journal(path);
  outcome.dropped_lines = contents.dropped_lines;
  if (!contents.header)  // never overwrite a file that is not a journal: it may be someone's data
    throw InputError(path, "", "a sweep journal starting with its checksummed header line (or no journal.jsonl)",
                     contents.records.empty() ? "a file that is not a sweep journal" : "no valid header line");
  const auto& h = *contents.header;
  const std::string hash = h.value("spec_hash", "");
  const std::string shard = h.value("shard", "");
  if (hash != spec.hash)
    throw InputError(spec.file, "", fmt::format("the spec this journal was started with (spec hash {}); the spec or its base scenario changed", hash),
                     fmt::format("spec hash {}", spec.hash));
  if (shard != shard_text(o))
    throw InputError(path, "", fmt::format("a journal of shard {} (--shard)", shard_text(o)), fmt::format("shard {}", shard));
  std::map<std::int64_t, PointRecord> kept;
  const std::int64_t total = point_count(spec);
  for (auto& [index, record] : contents.records)
    if (index >= 0 && index < total && index % o.shard_count == o.shard_index) kept.emplace(index, std::move(record));
  return kept;
}

void write_sweep_outputs(const SweepSpec& spec, const SweepOptions& o, std::map<std::int64_t, PointRecord>& records) {
  std::vector<PointRecord> ordered;
  ordered.reserve(records.size());
  for (auto& [index, record] : records) ordered.push_back(std::move(record));
  OutputInfo info;
  info.spec_file = spec.file;
  info.spec_hash = spec.hash;
  info.normalized_spec = normalized_spec_json(spec);
  info.seed = spec.seed;
  info.command = command_name(spec.command);
  info.command_line = o.command_line;
  info.point_count = point_count(spec);
  if (o.shard_count > 1) info.shard = shard_text(o);
  write_outputs(o.out_dir, table_of(spec), info, ordered);
}

}  // namespace

std::optional<std::pair<int, int>> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  try {
    std::size_t used_i = 0;
    std::size_t used_n = 0;
    const int i = std::stoi(text.substr(0, slash), &used_i);
    const int n = std::stoi(text.substr(slash + 1), &used_n);
    if (used_i != slash || used_n != text.size() - slash - 1 || n < 1 || i < 0 || i >= n) return std::nullopt;
    return std::pair{i, n};
  } catch (const std::exception&) {  // std::stoi: not a number, or beyond int
    return std::nullopt;
  }
}

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& o) {
  SweepOutcome outcome;
  const bool mpi = o.mpi != nullptr && o.mpi->size() > 1;
  outcome.ranks = mpi ? o.mpi->size() : 1;
  const bool writer = !mpi || o.mpi->rank() == 0;
  std::map<std::int64_t, PointRecord> records;
  std::vector<std::int64_t> todo;
  std::unique_ptr<JournalWriter> journal;
  bool ready = false;
  try {
    if (writer) {
      std::error_code ec;
      std::filesystem::create_directories(o.out_dir, ec);
      if (ec) throw IoError(fmt::format("{}: cannot create the output folder: {}", o.out_dir, ec.message()));
      const std::string path = o.out_dir + "/journal.jsonl";
      records = resumable_records(spec, o, path, outcome);
      journal = std::make_unique<JournalWriter>(path, journal_header(spec, o), records);
      const std::int64_t shard_points = (point_count(spec) - o.shard_index + o.shard_count - 1) / o.shard_count;
      if (shard_points > kMaxPointsPerProcess)
        throw LimitError(fmt::format(
            "{}: {} points in one process: every finished point's result (~4 KiB) stays in memory until the "
            "outputs are written, about {:.0f} GiB, above the limit of {} points (16 GiB); split it with --shard I/N",
            spec.file, shard_points, static_cast<double>(shard_points) * 4096 / (1u << 30), kMaxPointsPerProcess));
      for (std::int64_t i = o.shard_index; i < point_count(spec); i += o.shard_count)
        if (!records.count(i)) todo.push_back(i);
    }
    ready = true;
  } catch (...) {
    if (mpi) (void)o.mpi->broadcast_ok(false);
    throw;
  }
  if (mpi && !o.mpi->broadcast_ok(ready)) return outcome;

  outcome.resumed = static_cast<std::int64_t>(records.size());
  outcome.points = outcome.resumed + static_cast<std::int64_t>(todo.size());
  std::optional<Progress> progress;
  if (writer && o.progress != nullptr) progress.emplace(*o.progress, o.progress_terminal, outcome.points, outcome.resumed);
  CostCache cache;
  std::int64_t appended = 0;
  const SweepTable table = table_of(spec);
  for (auto& [index, record] : records) compact_record(record, table.metrics);
  const RecordSink sink = [&](PointRecord&& record) {
    journal->append(record);
    compact_record(record, table.metrics);
    ++appended;
    const std::int64_t index = record.index;
    records.emplace(index, std::move(record));
    if (progress) progress->update(outcome.resumed + appended);
    if (o.after_append) o.after_append(appended);
  };
  if (mpi) {
    try {
      execute_mpi(*o.mpi, spec, todo, cache, sink);
    } catch (const std::exception& e) {
      throw RankFailure(o.mpi->rank(), e.what());  // the others wait: the owner ends the job
    }
  }
  if (!mpi) execute_threads(spec, todo, o.jobs, cache, sink);
  if (progress) progress->finish();
  outcome.computed = appended;
  outcome.cache_hits = cache.hits();
  outcome.cache_misses = cache.misses();
  if (!writer) return outcome;
  for (const auto& [index, record] : records) outcome.invalid += record.status == PointStatus::ok ? 0 : 1;
  write_sweep_outputs(spec, o, records);
  outcome.wrote_outputs = true;
  return outcome;
}

}  // namespace ckptsim::sweep
