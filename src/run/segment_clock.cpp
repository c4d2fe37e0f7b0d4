#include "ckptsim/run/segment_clock.hpp"

#include <algorithm>

#include "ckptsim/run/recovery/recovery_policy.hpp"

namespace ckptsim {

SegmentPattern SegmentPattern::from_costs(const StrategyCosts& c) { return recovery_policy(c.tier).pattern(c); }

SegmentPattern SegmentPattern::periodic(const StrategyCosts& c, Tracks tracks) {
  SegmentPattern p;
  p.iteration = c.iteration_time;
  p.checkpoints = tracks.checkpoints;
  p.every = std::max<std::int64_t>(1, c.every_iterations);
  p.stall = p.checkpoints ? c.stall : SimTime::zero();
  p.completion = c.completion;
  p.persistent_every = tracks.persistent ? c.persistent_every_iterations : 0;
  p.upload = c.upload;
  p.partner_every = tracks.partner ? c.partner_every_iterations : 0;
  p.partner_stall = c.partner_stall;
  p.persistent_stall = c.persistent_stall;
  return p;
}

// ---- iteration by iteration ----

bool SteppedClock::carrying(std::int64_t i) const {
  return p_.checkpoints && (i - 1) >= p_.every && (i - 1) % p_.every == 0;
}

SimTime SteppedClock::time_to_complete(std::int64_t j) const {
  SimTime t;
  for (std::int64_t i = 1; i <= j; ++i) t += p_.iteration + (carrying(i) ? p_.stall : SimTime::zero());
  return t;
}

std::int64_t SteppedClock::completed(SimTime e) const {
  SimTime t;
  std::int64_t done = 0;
  for (std::int64_t i = 1;; ++i) {
    t += p_.iteration + (carrying(i) ? p_.stall : SimTime::zero());
    if (t > e) return done;
    done = i;
  }
}

SimTime SteppedClock::stall(SimTime e) const {
  SimTime start;
  SimTime total;
  for (std::int64_t i = 1; start < e; ++i) {
    if (carrying(i)) total += std::min(p_.stall, e - start);
    start += p_.iteration + (carrying(i) ? p_.stall : SimTime::zero());
  }
  return total;
}

std::optional<SegmentCheckpoint> SteppedClock::scan(SimTime e, bool persistent) const {
  std::optional<SegmentCheckpoint> best;
  const SimTime offset = p_.completion + (persistent ? p_.upload : SimTime::zero());
  SimTime start;
  for (std::int64_t i = 1; start <= e; ++i) {
    if (carrying(i)) {
      const std::int64_t version = n0_ + i - 1;
      const bool uploaded = !persistent || (p_.persistent_every > 0 && version % p_.persistent_every == 0);
      if (uploaded && start + offset <= e) best = SegmentCheckpoint{version, start};
    }
    start += p_.iteration + (carrying(i) ? p_.stall : SimTime::zero());
  }
  return best;
}

std::optional<SegmentCheckpoint> SteppedClock::latest_checkpoint(SimTime e) const {
  if (!p_.checkpoints) return std::nullopt;
  return scan(e, false);
}

std::optional<SegmentCheckpoint> SteppedClock::latest_persistent(SimTime e) const {
  if (!p_.checkpoints || p_.persistent_every <= 0) return std::nullopt;
  return scan(e, true);
}

}  // namespace ckptsim
