#pragma once
// CheckpointPlan: how one checkpoint's traffic is laid over one iteration, per rank.
//
// Every rank (GPU) holds a shard of C bytes (its part of the model states) and sends it to m-1
// peers: the GPU with the same local index on each other holder machine of the placement
// (checkpoint/placement.hpp). Ranks of a ZeRO-3 iteration see the same idle spans, so one
// chunk list serves every rank; peers differ. A chunk goes into sub-buffer `sub_buffer` of the
// receiving GPU, which is reused only after that sub-buffer's GPU-to-CPU copy ended.
// The local replica is one GPU-to-CPU copy of the shard on the rank itself, planned at the
// iteration start (it crosses only PCIe).
// Span indices: -1 = before training (blocking), 0..d-1 = the d idle spans, d = after the
// last span (leftover). planned_start = span start + offset (for -1: offset; for d: the last
// span's end + offset).
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scheduler_id.hpp"
#include "ckptsim/workload/profile.hpp"

namespace ckptsim {

struct PlannedChunk {
  int index = 0;          ///< order on the rank's send stream
  int copy = 0;           ///< remote replica 0..m-2 (peer = copy-th peer of the rank)
  int span = 0;
  SimTime offset;
  SimTime planned_start;
  double bytes = 0;
  int sub_buffer = 0;
};

struct CheckpointPlan {
  SchedulerId scheduler = SchedulerKind::gemini;  ///< set by make_plan
  double shard_bytes = 0;          ///< C per GPU
  int copies = 0;                  ///< m - 1
  int sub_buffers = 1;             ///< p
  double chunk_limit = 0;          ///< largest chunk the scheduler allows (R/p, R, or a span's worth)
  bool blocks_training = false;    ///< training starts only after every chunk was sent
  std::vector<IdleSpan> spans;     ///< the spans the plan was made for
  std::vector<PlannedChunk> chunks;
  SimTime local_copy_start;        ///< the local replica's GPU-to-CPU copy (shard_bytes)
  double leftover_bytes = 0;       ///< bytes planned after the last span
  SimTime leftover_time;

  /// GPU buffer each receiving GPU must reserve: for each sub-buffer, the largest chunk it
  /// receives, summed (p x R/p = R for gemini).
  [[nodiscard]] double buffer_bytes() const;
  /// Bytes sent per rank (sum of chunk sizes) = (m-1)·C.
  [[nodiscard]] double sent_bytes() const;
};

}  // namespace ckptsim
