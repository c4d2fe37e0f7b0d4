// MPI executor (executor.hpp): rank 0 hands out chunks of point indices and gathers records.
//
// Messages (MPI_COMM_WORLD):
//   worker -> 0, kTagRequest: the records of its previous chunk as JSON lines (empty at first)
//   0 -> worker, kTagWork:    int64 indices of the next chunk; an empty chunk means "stop"
// Rank 0 computes one point at a time itself and serves every pending request in between
// (MPI_Iprobe), so `-np 2` uses both ranks for points. Records travel as two lines each: the
// full JSON text (for the journal and points.jsonl) and the record with its result cut down to
// the metric columns (compact_record), which is all rank 0 parses.
// C API only: the deprecated C++ bindings are not needed (and warn).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <cstdlib>
#include <deque>
#include <string>

#include "ckptsim/sweep/executor.hpp"
#include "ckptsim/sweep/results.hpp"

namespace ckptsim::sweep {
namespace {

constexpr int kTagRequest = 1;
constexpr int kTagWork = 2;

std::string receive_text(int source, int tag, int* from) {
  MPI_Status status;
  MPI_Probe(source, tag, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  std::string text(static_cast<std::size_t>(count), '\0');
  MPI_Recv(text.data(), count, MPI_CHAR, status.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  if (from != nullptr) *from = status.MPI_SOURCE;
  return text;
}

std::string next_line(const std::string& lines, std::size_t& start) {
  const auto end = lines.find('\n', start);
  std::string line = lines.substr(start, end - start);
  start = end + 1;
  return line;
}

/// Pairs of lines: the full text, then the compact record (see the header comment).
void deliver(const std::string& lines, const RecordSink& done) {
  std::size_t start = 0;
  while (start < lines.size()) {
    std::string full = next_line(lines, start);
    PointRecord record = record_from_json(nlohmann::json::parse(next_line(lines, start)));
    record.text = std::move(full);
    done(std::move(record));
  }
}

void worker_loop(const SweepSpec& spec, CostCache& cache) {
  const std::vector<Column> metrics = table_of(spec).metrics;
  std::string results;
  for (;;) {
    MPI_Send(results.data(), static_cast<int>(results.size()), MPI_CHAR, 0, kTagRequest, MPI_COMM_WORLD);
    MPI_Status status;
    MPI_Probe(0, kTagWork, MPI_COMM_WORLD, &status);
    int count = 0;
    MPI_Get_count(&status, MPI_INT64_T, &count);
    std::vector<std::int64_t> chunk(static_cast<std::size_t>(count));
    MPI_Recv(chunk.data(), count, MPI_INT64_T, 0, kTagWork, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (chunk.empty()) return;
    results.clear();
    for (const std::int64_t index : chunk) {
      PointRecord record = evaluate_point(spec, index, cache);
      results += record_text(record);
      results += '\n';
      compact_record(record, metrics);
      results += record_to_json(record).dump();
      results += '\n';
    }
  }
}

class Master {
 public:
  Master(const std::vector<std::int64_t>& todo, int ranks, const RecordSink& done)
      : queue_(todo.begin(), todo.end()), ranks_(ranks), active_workers_(ranks - 1), done_(done) {}

  /// Serves one request (blocking when `wait`); returns false when none was pending.
  bool serve(bool wait) {
    if (!wait) {
      int pending = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagRequest, MPI_COMM_WORLD, &pending, MPI_STATUS_IGNORE);
      if (pending == 0) return false;
    }
    int from = 0;
    deliver(receive_text(MPI_ANY_SOURCE, kTagRequest, &from), done_);
    const std::size_t chunk = std::clamp<std::size_t>(queue_.size() / (4 * static_cast<std::size_t>(ranks_)), 1, 64);
    std::vector<std::int64_t> work;
    while (!queue_.empty() && work.size() < chunk) {
      work.push_back(queue_.front());
      queue_.pop_front();
    }
    MPI_Send(work.data(), static_cast<int>(work.size()), MPI_INT64_T, from, kTagWork, MPI_COMM_WORLD);
    if (work.empty()) --active_workers_;
    return true;
  }

  void run(const SweepSpec& spec, CostCache& cache) {
    while (!queue_.empty()) {
      while (serve(false)) {
      }
      if (queue_.empty()) break;
      const std::int64_t index = queue_.front();
      queue_.pop_front();
      done_(evaluate_point(spec, index, cache));
    }
    while (active_workers_ > 0) serve(true);
  }

 private:
  std::deque<std::int64_t> queue_;
  int ranks_;
  int active_workers_;
  const RecordSink& done_;
};

}  // namespace

bool mpi_built() { return true; }

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiSession::~MpiSession() { MPI_Finalize(); }

bool MpiSession::broadcast_ok(bool ok) const {
  int flag = ok ? 1 : 0;
  MPI_Bcast(&flag, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return flag != 0;
}

void MpiSession::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);  // MPI_Abort does not return; for the compiler
}

void execute_mpi(const MpiSession& mpi, const SweepSpec& spec, const std::vector<std::int64_t>& todo, CostCache& cache,
                 const RecordSink& done) {
  if (mpi.rank() == 0) Master(todo, mpi.size(), done).run(spec, cache);
  else worker_loop(spec, cache);
}

}  // namespace ckptsim::sweep
