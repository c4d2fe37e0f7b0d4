#pragma once
// Executors: who computes the points still to do. Each finished record is handed to `done`,
// called under a lock (threads) or on rank 0 only (MPI), in whatever order points finish.
#include <cstdint>
#include <functional>
#include <vector>

#include "ckptsim/sweep/evaluate.hpp"
#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

using RecordSink = std::function<void(PointRecord&&)>;

/// `jobs` threads pull the next index from a shared counter (dynamic load balancing). The first
/// exception (an internal error or an IoError from `done`) stops the others and is rethrown.
void execute_threads(const SweepSpec& spec, const std::vector<std::int64_t>& todo, int jobs, CostCache& cache,
                     const RecordSink& done);

/// MPI for this process, held by its owner (the command line's `sweep`, which makes one only
/// when an MPI launcher started the process): MPI_Init_thread on construction, MPI_Finalize on
/// destruction. The library never reads the environment, initialises MPI or ends the job by
/// itself; it is handed a session (SweepOptions::mpi) or works with threads.
class MpiSession {
 public:
  /// Throws std::logic_error in a build without MPI (mpi_built() says which).
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;

  [[nodiscard]] int rank() const { return rank_; }
  [[nodiscard]] int size() const { return size_; }
  /// Rank 0's `ok` on every rank (MPI_Bcast), so workers stop when rank 0 cannot start.
  [[nodiscard]] bool broadcast_ok(bool ok) const;
  /// Ends every rank of the job with `code` (MPI_Abort): what the owner calls when an error
  /// escaped on one rank while the others would wait for it forever.
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0;
  int size_ = 1;
};

/// True when ckptsim was built with MPI (OpenMPI found; option mpi).
bool mpi_built();

/// Dynamic load balancing over the session's ranks: rank 0 hands out chunks of indices (guided:
/// about a quarter of the remaining points per rank, at most 64, at least 1) on request and
/// computes points itself between requests; workers send their records back with each request.
/// Only rank 0 passes `todo` and receives records in `done`. An exception leaves this function
/// on the rank it happened on; its owner must then end the job (MpiSession::abort), or the other
/// ranks wait for it.
void execute_mpi(const MpiSession& mpi, const SweepSpec& spec, const std::vector<std::int64_t>& todo, CostCache& cache,
                 const RecordSink& done);

}  // namespace ckptsim::sweep
