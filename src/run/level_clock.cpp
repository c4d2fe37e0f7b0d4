// The multi-level segment clocks of level_clock.hpp.
#include "ckptsim/run/level_clock.hpp"

#include <algorithm>
#include <limits>

namespace ckptsim {

LevelClock::LevelClock(const SegmentPattern& p, std::int64_t n0) : p_(p), n0_(n0), a0_(n0 / std::max<std::int64_t>(1, p.every)) {
  p_.every = std::max<std::int64_t>(1, p_.every);
  // Once per segment, not at every probe of the searches.
  partner_blocks_ = p_.partner_every / p_.every;
  persistent_blocks_ = p_.persistent_every / p_.every;
}

std::int64_t LevelClock::period_blocks(CheckpointLevel level) const {
  switch (level) {
    case CheckpointLevel::local: return 1;
    case CheckpointLevel::partner: return partner_blocks_;
    case CheckpointLevel::persistent: return persistent_blocks_;
  }
  return 0;
}

std::int64_t LevelClock::count(std::int64_t q, std::int64_t blocks) const {
  if (q <= 0 || blocks <= 0) return 0;
  return (a0_ + blocks) / q - a0_ / q;
}

WideNs LevelClock::wide_stall_sum(std::int64_t blocks) const {
  if (blocks <= 0) return 0;
  const std::int64_t q2 = period_blocks(CheckpointLevel::partner);
  const std::int64_t q3 = period_blocks(CheckpointLevel::persistent);
  WideNs sum = static_cast<WideNs>(p_.stall.ns()) * blocks;
  std::int64_t below = p_.stall.ns();  // the stall level 3 adds to
  if (q2 > 0) {
    sum += static_cast<WideNs>(p_.partner_stall.ns() - p_.stall.ns()) * count(q2, blocks);
    below = p_.partner_stall.ns();
  }
  if (q3 > 0) sum += static_cast<WideNs>(p_.persistent_stall.ns() - below) * count(q3, blocks);
  return sum;
}

SimTime LevelClock::stall_sum(std::int64_t blocks) const { return narrow(wide_stall_sum(blocks)); }

SimTime LevelClock::narrow(WideNs ns) {
  if (ns > std::numeric_limits<std::int64_t>::max() || ns < std::numeric_limits<std::int64_t>::min())
    throw ClockOverflow("simulated time out of the int64-ns clock's range in the multi-level clock");
  return SimTime::from_ns(static_cast<std::int64_t>(ns));
}

SimTime LevelClock::block_stall(std::int64_t b) const {
  const std::int64_t a = a0_ + b;
  const std::int64_t q2 = period_blocks(CheckpointLevel::partner);
  const std::int64_t q3 = period_blocks(CheckpointLevel::persistent);
  if (q3 > 0 && a % q3 == 0) return p_.persistent_stall;
  if (q2 > 0 && a % q2 == 0) return p_.partner_stall;
  return p_.stall;
}

WideNs LevelClock::wide_block_start(std::int64_t b) const {
  if (b <= 0) return 0;
  return static_cast<WideNs>(p_.iteration.ns()) * b * p_.every + wide_stall_sum(b - 1);
}

SimTime LevelClock::block_start(std::int64_t b) const { return narrow(wide_block_start(b)); }

std::int64_t LevelClock::last_block(SimTime e, bool end) const {
  std::int64_t lo = 0;                                         // always satisfies (block 0)
  std::int64_t hi = e / (p_.iteration * p_.every) + 1;         // block_start(hi) > e
  // The search probes blocks far beyond e, whose start may leave the int64 clock when a level's
  // stall is long: compared in 128 bits, never converted.
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    const WideNs at = wide_block_start(mid) + (end ? block_stall(mid).ns() : 0);
    if (at <= e.ns()) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

SimTime LevelClock::time_to_complete(std::int64_t j) const {
  if (j <= 0) return SimTime::zero();
  return p_.iteration * j + (p_.checkpoints ? stall_sum((j - 1) / p_.every) : SimTime::zero());
}

std::int64_t LevelClock::completed(SimTime e) const {
  std::int64_t lo = 0;
  std::int64_t hi = e / p_.iteration;  // time_to_complete(j) >= j T
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo + 1) / 2;
    const WideNs at = static_cast<WideNs>(p_.iteration.ns()) * mid +
                        (p_.checkpoints ? wide_stall_sum((mid - 1) / p_.every) : 0);  // 128 bits, as in last_block
    if (at <= e.ns()) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;
}

SimTime LevelClock::stall(SimTime e) const {
  if (!p_.checkpoints) return SimTime::zero();
  const std::int64_t b = last_block(e, false);
  if (b < 1) return SimTime::zero();
  return stall_sum(b - 1) + std::min(e - block_start(b), block_stall(b));
}

std::optional<SegmentCheckpoint> LevelClock::at_level(std::int64_t done, CheckpointLevel level) const {
  const std::int64_t q = period_blocks(level);
  if (q <= 0 || done < 1) return std::nullopt;
  const std::int64_t b = done - (a0_ + done) % q;
  if (b < 1) return std::nullopt;
  return SegmentCheckpoint{n0_ + b * p_.every, block_start(b)};
}

std::optional<SegmentCheckpoint> LevelClock::latest_at_level(SimTime e, CheckpointLevel level) const {
  if (!p_.checkpoints || period_blocks(level) <= 0) return std::nullopt;
  return at_level(last_block(e, true), level);
}

LatestByLevel LevelClock::latest_by_level(SimTime e) const {
  if (!p_.checkpoints) return {};
  const std::int64_t done = last_block(e, true);
  return {at_level(done, CheckpointLevel::local), at_level(done, CheckpointLevel::partner),
          at_level(done, CheckpointLevel::persistent)};
}

// ---- iteration by iteration ----

LatestByLevel SteppedLevelClock::latest_by_level(SimTime e) const {
  return {latest_at_level(e, CheckpointLevel::local), latest_at_level(e, CheckpointLevel::partner),
          latest_at_level(e, CheckpointLevel::persistent)};
}

int SteppedLevelClock::level_of(std::int64_t version) const {
  if (p_.persistent_every > 0 && version % p_.persistent_every == 0) return 3;
  if (p_.partner_every > 0 && version % p_.partner_every == 0) return 2;
  return 1;
}

bool SteppedLevelClock::carrying(std::int64_t i) const {
  const std::int64_t k = std::max<std::int64_t>(1, p_.every);
  return p_.checkpoints && i - 1 >= k && (i - 1) % k == 0;
}

SimTime SteppedLevelClock::stall_of(std::int64_t i) const {
  if (!carrying(i)) return SimTime::zero();
  switch (level_of(n0_ + i - 1)) {
    case 3: return p_.persistent_stall;
    case 2: return p_.partner_stall;
    default: return p_.stall;
  }
}

SimTime SteppedLevelClock::time_to_complete(std::int64_t j) const {
  SimTime t;
  for (std::int64_t i = 1; i <= j; ++i) t += p_.iteration + stall_of(i);
  return t;
}

std::int64_t SteppedLevelClock::completed(SimTime e) const {
  SimTime t;
  for (std::int64_t i = 1;; ++i) {
    t += p_.iteration + stall_of(i);
    if (t > e) return i - 1;
  }
}

SimTime SteppedLevelClock::stall(SimTime e) const {
  SimTime start;
  SimTime total;
  for (std::int64_t i = 1; start < e; ++i) {
    total += std::min(stall_of(i), e - start);
    start += p_.iteration + stall_of(i);
  }
  return total;
}

std::optional<SegmentCheckpoint> SteppedLevelClock::latest_at_level(SimTime e, CheckpointLevel level) const {
  if (!p_.checkpoints) return std::nullopt;
  if (level == CheckpointLevel::partner && p_.partner_every <= 0) return std::nullopt;
  if (level == CheckpointLevel::persistent && p_.persistent_every <= 0) return std::nullopt;
  std::optional<SegmentCheckpoint> best;
  SimTime start;
  for (std::int64_t i = 1; start <= e; ++i) {
    const SimTime s = stall_of(i);
    const std::int64_t version = n0_ + i - 1;
    if (carrying(i) && level_of(version) >= static_cast<int>(level) && start + s <= e)
      best = SegmentCheckpoint{version, start};
    start += p_.iteration + s;
  }
  return best;
}

}  // namespace ckptsim
