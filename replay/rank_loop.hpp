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
// Recorded times: an operation's start is its ready time in the simulator's sense, the latest
// measured end of its dependencies and of the previous operation on its stream (so it does not
// depend on when the loop noticed them); a chunk's start is when it may go.
//
// Issue order (plan_order, the nccl backend): collectives in id order across both streams, each
// chunk's send and receive at the same place among them on both ranks, every segment of a chunk
// before the next call site; an item waits for its dependencies and for every item before it.
//
// Pacing: every byte a rank sends (its collectives' and its chunks') passes one paced link at
// --bandwidth bytes/s (paced_link.hpp): segments are handed over at deadlines computed from
// their eligible times, and the loop sleeps until the next deadline. The link's report (ideal
// time and lateness) is kept per rank over the measured iterations. Integrity: after each
// iteration every received chunk is hashed in CPU memory and compared with the hash of the
// sender's known pattern.
#pragma once
#include <mpi.h>

#include "backend.hpp"
#include "ckptsim/calibration/plan_file.hpp"
#include "timeline.hpp"

namespace ckptsim::replay {

struct EngineOptions {
  int iterations = 3;
  int warmup = 1;
  double bandwidth = 0;              ///< bytes/s per rank; <= 0: unpaced
  double segment_bytes = 0;          ///< segment size of paced sends; 0: derived from the rate (paced_link.hpp)
  int matmul_n = 64;                 ///< compute block: n x n times n x n (2 n^3 FLOPs)
  int idle_sleep_us = 200;            ///< sleep when a loop turn found nothing to do
  /// Issue every NCCL call site (collectives, chunk sends and receives) in one order that is
  /// the same on every rank (rank_loop.cpp, build_issue_order): NCCL requires communicators
  /// used concurrently to be used in the same order on every rank, or kernels waiting for peers
  /// can deadlock. On for the nccl backend; --issue-order plan turns it on for mpi (tests).
  bool plan_order = false;
  int corrupt_rank = -1;             ///< --inject-corruption: sender rank, chunk, iteration (-1: none)
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
RankRecord replay_rank(const PlanFile& plan, const EngineOptions& options, Backend& backend, MPI_Comm world,
                       IntegrityFailure& failure);

}  // namespace ckptsim::replay
