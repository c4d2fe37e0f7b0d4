#pragma once
// SegmentClock: where training stands at any moment of an uninterrupted training segment, in
// closed form (docs/architecture.md: "the run model advances in closed form between events").
//
// A segment starts at elapsed e = 0 from a state n0 that is a multiple of k (the start of a run
// or a recovered checkpoint). Iterations take T; the checkpoint pattern of StrategyCosts adds S
// to the first iteration of every block of k iterations except block 0 (a state already
// checkpointed is never checkpointed again). With D = kT + S:
//   time_to_complete(j)   = j T + S floor((j - 1) / k)              (j >= 1; 0 for j = 0)
//   completed(e)          = floor(e / T)                             (e < kT)
//                         = k + b k + max(0, floor((r - S) / T))     (e >= kT; b, r = divmod(e - kT, D))
//   stall(e)              = b S + min(r, S)                          (stall = first S of a carrying iteration)
//   checkpoint b >= 1     captures state n0 + b k at start_b = kT + (b - 1) D,
//                         usable at start_b + completion
//   persistent upload     of checkpoint b (when (n0/k + b) mod (kp/k) = 0) usable at
//                         start_b + completion + upload
// All arithmetic is int64 nanoseconds: O(1) per query, exact. SteppedClock answers the same
// queries by walking iteration by iteration (the --exact mode); the two must agree exactly.
#include <algorithm>
#include <cstdint>
#include <optional>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/run/strategy_costs.hpp"

namespace ckptsim {

/// A checkpoint that completed inside a segment: the state's iteration and the segment-relative
/// time at which that state was reached (its capture).
struct SegmentCheckpoint {
  std::int64_t version = 0;
  SimTime captured_at;
};

struct SegmentPattern {
  SimTime iteration;       ///< T
  SimTime stall;           ///< S
  std::int64_t every = 1;  ///< k
  SimTime completion;      ///< from carrying-iteration start to usable
  bool checkpoints = false;
  std::int64_t persistent_every = 0;  ///< kp, 0 = none
  SimTime upload;
  /// Multi-level (LevelClock, level_clock.hpp): level 2 every partner_every iterations (0 =
  /// none) and the stalls of level-2 and level-3 checkpoints.
  std::int64_t partner_every = 0;
  SimTime partner_stall;
  SimTime persistent_stall;

  /// The pattern of the costs' recovery tier (its policy's, run/recovery/recovery_policy.hpp).
  static SegmentPattern from_costs(const StrategyCosts& c);

  /// Which tracks a tier keeps of the costs' checkpoints.
  struct Tracks {
    bool checkpoints = false;  ///< periodic checkpoints (every k, stall S)
    bool persistent = false;   ///< the persistent track (kp, upload; multi-level: level 3)
    bool partner = false;      ///< multi-level's level 2
  };
  /// The costs' pattern with the tracks a tier keeps (the others are off).
  static SegmentPattern periodic(const StrategyCosts& c, Tracks tracks);
};

class SegmentClock {
 public:
  SegmentClock(const SegmentPattern& p, std::int64_t n0) : p_(p), n0_(n0) {}
  [[nodiscard]] SimTime time_to_complete(std::int64_t iterations) const;
  [[nodiscard]] std::int64_t completed(SimTime elapsed) const;
  [[nodiscard]] SimTime stall(SimTime elapsed) const;
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_checkpoint(SimTime elapsed) const;
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_persistent(SimTime elapsed) const;

 private:
  [[nodiscard]] SimTime block_start(std::int64_t b) const;  // b >= 1
  /// Largest b >= 1 with block_start(b) + offset <= elapsed, or 0.
  [[nodiscard]] std::int64_t last_block_done(SimTime elapsed, SimTime offset) const;
  SegmentPattern p_;
  std::int64_t n0_;
};

// The closed form, inline: the run model asks it several times at every failure.

inline SimTime SegmentClock::time_to_complete(std::int64_t j) const {
  if (j <= 0) return SimTime::zero();
  return p_.iteration * j + p_.stall * ((j - 1) / p_.every);
}

inline std::int64_t SegmentClock::completed(SimTime e) const {
  const SimTime t = p_.iteration;
  const SimTime first_block = t * p_.every;
  if (e < first_block) return e / t;
  const SimTime block = first_block + p_.stall;
  const SimTime rest = e - first_block;
  const std::int64_t b = rest / block;
  const SimTime r = rest % block;
  const std::int64_t extra = r < p_.stall ? 0 : (r - p_.stall) / t;
  return p_.every + b * p_.every + extra;
}

inline SimTime SegmentClock::stall(SimTime e) const {
  const SimTime first_block = p_.iteration * p_.every;
  if (e < first_block || p_.stall == SimTime::zero()) return SimTime::zero();
  const SimTime block = first_block + p_.stall;
  const SimTime rest = e - first_block;
  return p_.stall * (rest / block) + std::min(rest % block, p_.stall);
}

inline SimTime SegmentClock::block_start(std::int64_t b) const {
  return p_.iteration * p_.every + (p_.iteration * p_.every + p_.stall) * (b - 1);
}

inline std::int64_t SegmentClock::last_block_done(SimTime e, SimTime offset) const {
  const SimTime first = p_.iteration * p_.every + offset;
  if (e < first) return 0;
  return (e - first) / (p_.iteration * p_.every + p_.stall) + 1;
}

inline std::optional<SegmentCheckpoint> SegmentClock::latest_checkpoint(SimTime e) const {
  if (!p_.checkpoints) return std::nullopt;
  const std::int64_t b = last_block_done(e, p_.completion);
  if (b < 1) return std::nullopt;
  return SegmentCheckpoint{n0_ + b * p_.every, block_start(b)};
}

inline std::optional<SegmentCheckpoint> SegmentClock::latest_persistent(SimTime e) const {
  if (!p_.checkpoints || p_.persistent_every <= 0) return std::nullopt;
  const std::int64_t b_max = last_block_done(e, p_.completion + p_.upload);
  if (b_max < 1) return std::nullopt;
  // Checkpoint every iteration (k = 1, GEMINI's default) needs no division by k: the run model
  // asks at every failure.
  const std::int64_t q = p_.every == 1 ? p_.persistent_every : p_.persistent_every / p_.every;
  const std::int64_t b = b_max - (((p_.every == 1 ? n0_ : n0_ / p_.every) + b_max) % q);
  if (b < 1) return std::nullopt;
  return SegmentCheckpoint{n0_ + b * p_.every, block_start(b)};
}

class SteppedClock {
 public:
  SteppedClock(const SegmentPattern& p, std::int64_t n0) : p_(p), n0_(n0) {}
  [[nodiscard]] SimTime time_to_complete(std::int64_t iterations) const;
  [[nodiscard]] std::int64_t completed(SimTime elapsed) const;
  [[nodiscard]] SimTime stall(SimTime elapsed) const;
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_checkpoint(SimTime elapsed) const;
  [[nodiscard]] std::optional<SegmentCheckpoint> latest_persistent(SimTime elapsed) const;

 private:
  [[nodiscard]] bool carrying(std::int64_t i) const;  // iteration i >= 1 of the segment
  [[nodiscard]] std::optional<SegmentCheckpoint> scan(SimTime elapsed, bool persistent) const;
  SegmentPattern p_;
  std::int64_t n0_;
};

}  // namespace ckptsim
