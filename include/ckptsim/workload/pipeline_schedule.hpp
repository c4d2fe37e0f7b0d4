#pragma once
// Megatron-LM's pipeline schedules, as the order each pipeline rank runs its forward and backward
// passes in, and the timing that follows from that order: the bubble is not a formula here but
// what the simulated schedule leaves idle.
//
// Source: Megatron-LM, megatron/core/pipeline_parallel/schedules.py
// (forward_backward_pipelining_without_interleaving and ..._with_interleaving); Narayanan et al.,
// "Efficient Large-Scale Language Model Training on GPU Clusters Using Megatron-LM", SC '21, §2.2.
// Symbols: p pipeline ranks, v model chunks per rank (virtual stages), m micro-batches per step,
// rank r in [0, p), virtual stage k = c·p + r of chunk c (the model's layers run through virtual
// stages 0 .. v·p-1 in order).
//   1F1B (v = 1): rank r runs W = min(p - r - 1, m) warm-up forwards, then m - W pairs
//     (forward W+i, backward i), then the W remaining backwards. Megatron allows m < p (all
//     forwards, then all backwards).
//   interleaved (v > 1), with n contiguous micro-batches per chunk
//     (--microbatch-group-size-per-virtual-pipeline-stage, default p; Megatron refuses n outside
//     [p, m] and a last group of fewer than p: m mod n = 0 or >= p): get_schedule_table lists
//     the forwards group by group, each group's micro-batches through chunk 0, then chunk 1, ...
//     (the last group takes every micro-batch left); the k-th forward of rank r is entry k, the
//     k-th backward is the same micro-batch of chunk v - 1 - c(k). For n = p and m a multiple of
//     p: chunk (k mod p·v) div p of micro-batch (k div p·v)·p + (k mod p). Warm-up
//     (get_pp_rank_microbatches) W = min(2(p - r - 1) + (v - 1)·n, m·v), rank-dependent: with
//     m = n = p every forward on the ranks with 2(p - r - 1) >= p, 2(p - r - 1) + (v - 1)p on
//     the others; then pairs (forward W+i, backward i); then cool-down.
// Memory held (peak_held): a forward's stored activations live until its backward ends, so
//   what a rank holds at most is the largest sum, over its run order, of the chunks' bytes whose
//   forward has run and backward has not; it depends on the order only, not on the timing.
// Timing (one pipeline; every data-parallel and context-parallel replica runs the same): an
// operation starts when its rank is free and its input has arrived: a forward of virtual stage
// k > 0 needs stage k-1's forward of the same micro-batch plus the activation transfer
// (p2p_forward); a backward of k < v·p-1 needs stage k+1's backward plus the gradient transfer
// (p2p_backward); the last virtual stage's backward follows its own forward. Transfers are
// asynchronous (the sender does not wait for the receiver to post its receive: Megatron's
// batched isend/irecv with --overlap-p2p-communication; without it the blocking pairs add
// waits this model leaves out).
// Uniform stages (every chunk t_f forward, t_b backward, no transfer time) give the closed forms
// the tests check: 1F1B makespan (m + p - 1)(t_f + t_b), bubble fraction (p-1)/(m+p-1);
// interleaved with chunk times t_f/v and t_b/v: makespan m(t_f + t_b) + (p-1)(t_f + t_b)/v.
// Complexity: O(p · m · v) operations, each scheduled once (ranks are swept until none can move).
#include <vector>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

struct PipelineOp {
  bool forward = true;
  int chunk = 0;        ///< model chunk c on this rank (virtual stage c·p + rank)
  int micro_batch = 0;
};

/// The order rank `rank` of `p` runs its operations in (Megatron's schedule, above); `group` is
/// the interleaved schedule's micro-batch group size n (0: p).
std::vector<PipelineOp> pipeline_order(int p, int v, int m, int rank, int group = 0);

/// Durations of one pipeline's operations.
struct PipelineCosts {
  int p = 1, v = 1, m = 1;
  int group = 0;  ///< interleaved micro-batch group size n (0: p)
  std::vector<std::vector<SimTime>> forward;   ///< [rank][chunk]
  std::vector<std::vector<SimTime>> backward;  ///< [rank][chunk]
  SimTime p2p_forward;   ///< activation transfer between consecutive virtual stages
  SimTime p2p_backward;  ///< gradient transfer between consecutive virtual stages
  /// Uniform: every chunk of every rank takes the same times.
  static PipelineCosts uniform(int p, int v, int m, SimTime forward, SimTime backward, SimTime p2p = SimTime::zero());
};

struct TimedOp {
  PipelineOp op;
  SimTime start;
  SimTime end;
};

/// A time interval [from, to).
struct PipelineSpan {
  SimTime from;
  SimTime to;
};

struct PipelineRun {
  std::vector<std::vector<TimedOp>> ranks;       ///< [rank] operations in run order
  std::vector<std::vector<PipelineSpan>> transfers;  ///< [rank] p2p sends and receives touching the rank
  std::vector<SimTime> rank_end;                 ///< [rank] end of its last operation
  std::vector<SimTime> busy;                     ///< [rank] compute time
  /// [rank] the most micro-batch-chunks whose forward ran and backward did not, counted per chunk
  /// ([rank][chunk]) at the moment their sum peaks (activation memory, Korthikanti et al. §4.2.3).
  std::vector<std::vector<int>> peak_in_flight;
  std::vector<SimTime> last_backward_start;      ///< [rank] start of its last backward
  SimTime makespan;
  /// Idle share of rank r over the makespan: 1 - busy[r] / makespan.
  [[nodiscard]] double bubble_fraction(int rank) const;
};

/// When each forward of chunk c stores per_chunk[c] bytes until the matching backward: the
/// micro-batches of each chunk in flight ([chunk]) at the first moment of the rank's run order
/// `ops` where the bytes held peak (header).
std::vector<int> peak_held(const std::vector<TimedOp>& ops, const std::vector<double>& per_chunk);

/// Runs the schedule. Throws ModelError when the costs do not match (p, v, m) or the schedule is
/// one Megatron-LM refuses (interleaved with a group size outside [p, m], or a last group of
/// fewer than p micro-batches).
PipelineRun run_pipeline(const PipelineCosts& costs);

}  // namespace ckptsim
