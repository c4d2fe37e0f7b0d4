#pragma once
// Checkpoint partition over idle spans: GEMINI (SOSP '23), Section 5.3, Algorithm 2.
//
// Inputs: idle spans t_1..t_d of one iteration; a shard of C bytes per GPU to send m-1 times
// (one per remote replica); chunks of at most K bytes (K = R/p for p sub-buffers of a GPU
// buffer of R bytes); per-GPU bandwidth B (bytes/s); a transfer of s bytes costs
//     f(s) = alpha + s / B;
// a span safety factor mu in (0, 1] (spans vary; only mu·t_k of span k is used).
// Filling (spans in order, copies one after another):
//     avail = mu·t_k
//     while bytes remain:   if f(K) <= avail:              s = min(K, remaining of this copy)
//                           else if (avail - alpha)·B > 0: s = min((avail - alpha)·B, remaining)
//                           else next span
//                           place s at offset (mu·t_k - avail) in span k; avail -= f(s)
// GEMINI sets t_d = +infinity: what does not fit goes after the last span ("leftover", chunks
// of K placed one after another with span index d), delaying the optimizer step.
// `one_chunk_per_span` gives the naive interleaving: at most one chunk per span, as large as
// the span allows (K = infinity), so the buffer must hold the largest span's worth.
// Guarantees (tested): bytes conserved, (m-1)·C in all; no chunk above K; in span k,
// sum of f(s) <= mu·t_k; leftover chunks come only after every real span.
// Complexity: O(d + number of chunks).
#include <limits>
#include <vector>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

struct PartitionInput {
  std::vector<SimTime> spans;       ///< t_1..t_d
  double shard_bytes = 0;           ///< C, per GPU
  int copies = 1;                   ///< m - 1
  double chunk_bytes = std::numeric_limits<double>::infinity();  ///< K
  bool one_chunk_per_span = false;  ///< naive interleaving
  double bandwidth = 0;             ///< B, bytes/s per GPU
  SimTime alpha;                    ///< start-up cost per chunk
  double mu = 0.8;                  ///< span safety factor
};

struct PartitionChunk {
  int copy = 0;        ///< 0..m-2
  int span = 0;        ///< 0..d-1, or d for the leftover after the last span
  SimTime offset;      ///< from the span's start (leftover: from the last span's end)
  double bytes = 0;
};

struct Partition {
  std::vector<PartitionChunk> chunks;
  double leftover_bytes = 0;        ///< bytes placed after the last span
  SimTime leftover_time;            ///< sum of f(s) over leftover chunks
};

/// Algorithm 2. Throws ModelError (naming the field) on non-positive bandwidth, mu outside (0, 1],
/// or a non-positive chunk size.
Partition partition_checkpoint(const PartitionInput& input);

}  // namespace ckptsim
