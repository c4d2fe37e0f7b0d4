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

/// True when this process was started by an MPI launcher with more than one rank and ckptsim
/// was built with MPI. Initializes MPI on first call (finalized at exit).
bool mpi_active();
int mpi_rank();
int mpi_size();
/// Rank 0's `ok` on every rank (MPI_Bcast), so workers stop when rank 0 cannot start.
bool mpi_broadcast_ok(bool ok);

/// Dynamic load balancing over MPI ranks: rank 0 hands out chunks of indices (guided: about a
/// quarter of the remaining points per rank, at most 64, at least 1) on request and computes
/// points itself between requests; workers send their records back with each request. Only
/// rank 0 passes `todo` and receives records in `done`. Aborts the MPI job (MPI_Abort) when an
/// exception escapes on any rank, so no rank waits forever.
void execute_mpi(const SweepSpec& spec, const std::vector<std::int64_t>& todo, CostCache& cache, const RecordSink& done);

}  // namespace ckptsim::sweep
