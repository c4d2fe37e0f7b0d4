// The shared scheduler of both backends: replays a plan's iteration on one rank per simulated
// GPU through a Backend (backend.hpp).
//
// Each rank runs a cooperative event loop that mirrors the simulator's task graph
// (src/checkpoint/checkpoint_run.cpp): compute ops in id order on the compute stream,
// all-gathers and reduce-scatters in id order, each kind on its own stream (so both overlap
// compute, as NCCL streams do); an op starts once its dependencies ended. Checkpoint chunks go
// to their peer in send order, each no earlier than its idle span's anchor op end plus its
// offset, after the previous chunk, and after the receiver reported the copy of chunk
// index - p done (credit message over MPI); the receiver lands a chunk in sub-buffer
// `sub_buffer` and copies it into the sender's CPU replica. The optimizer step waits for the
// last chunk sent and the local replica's copy; `blocking` plans hold every root op until the
// last chunk was sent.
//
// Pacing: every send of a rank (its collective bytes and checkpoint segments) draws from one
// token bucket at --bandwidth bytes/s; an op ends when the backend completed it and its bytes
// have passed the bucket; a checkpoint segment is handed to the backend only once the bucket
// has carried it (bucket depth one segment). Integrity: after each iteration every received
// chunk is hashed in CPU memory and compared with the hash of the sender's known pattern.
#pragma once
#include <mpi.h>

#include "backend.hpp"
#include "replay_plan.hpp"
#include "timeline.hpp"

namespace ckptsim::replay {

struct EngineOptions {
  int iterations = 3;
  int warmup = 1;
  double bandwidth = 0;              ///< bytes/s per rank; <= 0: unpaced
  double segment_bytes = 64 << 10;  ///< pacing granularity of checkpoint sends
  int matmul_n = 64;                 ///< compute block: n x n times n x n (2 n^3 FLOPs)
  int idle_sleep_us = 200;            ///< sleep when a loop turn found nothing to do
  int corrupt_rank = -1;             ///< --inject-corruption: sender rank, chunk, iteration
  int corrupt_chunk = 0;
  int corrupt_iteration = 0;
};

struct IntegrityFailure {
  bool failed = false;
  int sender = 0;
  int receiver = 0;
  int chunk = 0;
  int iteration = 0;
};

/// Runs warmup + iterations on this rank; returns the measured iterations' records, or the
/// first integrity failure this rank saw (in `failure`).
RankRecord replay_rank(const ReplayPlan& plan, const EngineOptions& options, Backend& backend, MPI_Comm world,
                       IntegrityFailure& failure);

}  // namespace ckptsim::replay
