#pragma once
// LevelClock: the segment clock of multi-level checkpointing (strategy multi-level), in closed
// form; SteppedLevelClock answers the same queries iteration by iteration (the --exact mode).
//
// Blocks of k_1 iterations, as in segment_clock.hpp: block b >= 1 of a segment that starts from
// state n0 (a multiple of k_1) checkpoints state n0 + b k_1 and is carried by the iteration that
// starts at its capture. Its level is the highest level whose period divides the state:
//   level(v) = 3 if kp | v (kp > 0), else 2 if k_2 | v (k_2 > 0), else 1,
// and the carrying iteration stalls S_level (blocking; the checkpoint is usable when the stall
// ends). With a = n0 / k_1 and cnt(q, B) = floor((a + B) / q) - floor(a / q) (blocks among
// 1..B whose state is a multiple of q k_1):
//   stall_sum(B)        = S_1 B + (S_2 - S_1) cnt(k_2/k_1, B) + (S_3 - S_2) cnt(kp/k_1, B)
//   block_start(b)      = b k_1 T + stall_sum(b - 1)                  (capture of block b)
//   time_to_complete(j) = j T + stall_sum(floor((j - 1) / k_1))
//   completed(e)        = max{ j : time_to_complete(j) <= e }          (binary search, O(log))
//   latest at level >= L, usable by e: the last block b <= B_done(e) whose state is a multiple
//                         of q_L k_1, B_done(e) = max{ b : block_start(b) + S_level(b) <= e }.
// Integer nanoseconds throughout: the two clocks agree exactly (tests/unit/run). The binary
// searches probe blocks beyond the segment: their times are compared in 128 bits.
#include <array>
#include <cstdint>
#include <optional>

#include "ckptsim/run/segment_clock.hpp"

namespace ckptsim {

/// Checkpoint levels of multi-level checkpointing.
enum class CheckpointLevel { local = 1, partner = 2, persistent = 3 };

/// The latest checkpoint of level >= 1, >= 2 and >= 3 usable at some moment (index level - 1).
using LatestByLevel = std::array<std::optional<SegmentCheckpoint>, 3>;

class LevelClock {
 public:
  LevelClock(const SegmentPattern& p, std::int64_t n0);
  [[nodiscard]] SimTime time_to_complete(std::int64_t iterations) const;
  [[nodiscard]] std::int64_t completed(SimTime elapsed) const;
  [[nodiscard]] SimTime stall(SimTime elapsed) const;
  /// Latest checkpoint of level >= `level` usable by `elapsed`.
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_at_level(SimTime elapsed, CheckpointLevel level) const;
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_checkpoint(SimTime e) const {
    return latest_at_level(e, CheckpointLevel::local);
  }
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_persistent(SimTime e) const {
    return latest_at_level(e, CheckpointLevel::persistent);
  }
  /// latest_at_level for levels 1, 2 and 3 (in that order) from one search: the run model asks
  /// for all three at every failure.
  [[nodiscard]] LatestByLevel latest_by_level(SimTime elapsed) const;

 private:
  /// The latest block b <= done whose state is a multiple of the level's period.
  [[nodiscard]] std::optional<SegmentCheckpoint> at_level(std::int64_t done, CheckpointLevel level) const;
  [[nodiscard]] std::int64_t count(std::int64_t q, std::int64_t blocks) const;
  [[nodiscard]] SimTime stall_sum(std::int64_t blocks) const;
  [[nodiscard]] SimTime block_stall(std::int64_t b) const;
  [[nodiscard]] SimTime block_start(std::int64_t b) const;
  /// The same sums in 128-bit nanoseconds, for the searches' probes beyond the segment.
  [[nodiscard]] WideNs wide_stall_sum(std::int64_t blocks) const;
  [[nodiscard]] WideNs wide_block_start(std::int64_t b) const;
  /// ClockOverflow when `ns` does not fit a SimTime.
  static SimTime narrow(WideNs ns);
  /// Largest b >= 0 with block_start(b) + (end ? block_stall(b) : 0) <= e (block 0: time 0).
  [[nodiscard]] std::int64_t last_block(SimTime e, bool end) const;
  [[nodiscard]] std::int64_t period_blocks(CheckpointLevel level) const;
  SegmentPattern p_;
  std::int64_t n0_;
  std::int64_t a0_;
  std::int64_t partner_blocks_ = 0;     ///< k_2 / k_1 (0: no level 2)
  std::int64_t persistent_blocks_ = 0;  ///< kp / k_1 (0: no level 3)
};

class SteppedLevelClock {
 public:
  SteppedLevelClock(const SegmentPattern& p, std::int64_t n0) : p_(p), n0_(n0) {}
  [[nodiscard]] SimTime time_to_complete(std::int64_t iterations) const;
  [[nodiscard]] std::int64_t completed(SimTime elapsed) const;
  [[nodiscard]] SimTime stall(SimTime elapsed) const;
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_at_level(SimTime elapsed, CheckpointLevel level) const;
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_checkpoint(SimTime e) const {
    return latest_at_level(e, CheckpointLevel::local);
  }
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_persistent(SimTime e) const {
    return latest_at_level(e, CheckpointLevel::persistent);
  }
  [[nodiscard]] LatestByLevel latest_by_level(SimTime elapsed) const;

 private:
  [[nodiscard]] bool carrying(std::int64_t i) const;  // iteration i >= 1 of the segment
  /// The stall of iteration i >= 1 of the segment (zero unless it carries a checkpoint).
  [[nodiscard]] SimTime stall_of(std::int64_t i) const;
  [[nodiscard]] int level_of(std::int64_t version) const;
  SegmentPattern p_;
  std::int64_t n0_;
};

}  // namespace ckptsim
