// Stragglers' windows and silent corruptions' onsets (fault_model.hpp): the draws the run
// model and the failure stream share.
#include <algorithm>
#include <cmath>

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/failure/fault_model.hpp"

namespace ckptsim {
namespace {

/// `now` plus an exponential gap of the given rate (per second), at least 1 ns later, saturating
/// at SimTime::max() ("never") for a gap beyond the clock or a zero rate.
SimTime gap_after(SimTime now, double rate, RandomEngine& engine) {
  if (!(rate > 0)) return SimTime::max();
  boost::random::exponential_distribution<double> gap(rate);
  const double g = gap(engine);
  if (!(g < 9.2e9)) return SimTime::max();
  return saturating_add(now, std::max(SimTime::from_ns(1), SimTime::from_seconds(g)));
}

int draw_machine(int machines, RandomEngine& engine) {
  boost::random::uniform_int_distribution<int> pick(0, std::max(0, machines - 1));
  return pick(engine);
}

}  // namespace

StragglerDraws::StragglerDraws(const StragglerSpec& spec, int machines, std::uint64_t seed, std::uint64_t replica)
    : spec_(spec), machines_(machines), engine_(make_stream(seed, replica, RandomComponent::stragglers)) {}

Straggler StragglerDraws::next() {
  Straggler s;
  now_ = gap_after(now_, spec_.rate * machines_, engine_);
  s.start = now_;
  if (now_ == SimTime::max()) {
    s.end = SimTime::max();
    return s;
  }
  s.machine = draw_machine(machines_, engine_);
  const SimTime natural_end = gap_after(now_, 1.0 / spec_.duration.seconds(), engine_);
  if (spec_.eviction && saturating_add(now_, *spec_.eviction) < natural_end) {
    s.end = saturating_add(now_, *spec_.eviction);
    s.evicted = true;
  } else {
    s.end = natural_end;
  }
  return s;
}

SlowWindows::SlowWindows(const FailureSpec& spec, int machines, std::uint64_t seed, std::uint64_t replica) {
  if (!stragglers_modelled(spec)) return;
  active_ = true;
  speed_ = spec.stragglers.speed;
  draws_ = std::make_unique<StragglerDraws>(spec.stragglers, machines, seed, replica);
  pending_ = draws_->next();
}

/// Merges stragglers into windows until every window starting before t is known.
void SlowWindows::extend_to(SimTime t) {
  while (pending_.start < t && pending_.start != SimTime::max()) {
    if (!windows_.empty() && pending_.start <= windows_.back().second)
      windows_.back().second = std::max(windows_.back().second, pending_.end);
    else
      windows_.emplace_back(pending_.start, pending_.end);
    pending_ = draws_->next();
  }
}

SimTime SlowWindows::slow_time(SimTime from, SimTime to) {
  if (!active_ || to <= from) return SimTime::zero();
  // Merge first, then drop: a straggler merged now may extend a window that ended before `from`.
  extend_to(to);
  while (!windows_.empty() && windows_.front().second <= from) windows_.pop_front();
  // The last window may still grow (a later straggler overlapping it starts before its end),
  // but only with stragglers starting at or after `to`, which do not change [from, to).
  SimTime slow;
  for (const auto& [a, b] : windows_) {
    if (a >= to) break;
    const SimTime lo = std::max(a, from);
    const SimTime hi = std::min(b, to);
    if (hi > lo) slow += hi - lo;
  }
  return slow;
}

std::vector<std::pair<SimTime, SimTime>> SlowWindows::windows(SimTime from, SimTime to) {
  std::vector<std::pair<SimTime, SimTime>> out;
  if (!active_ || to <= from) return out;
  extend_to(to);
  while (!windows_.empty() && windows_.front().second <= from) windows_.pop_front();
  for (const auto& [a, b] : windows_) {
    if (a >= to) break;
    out.emplace_back(std::max(a, from), std::min(b, to));
  }
  return out;
}

SimTime SlowWindows::slowed(SimTime slow) const {
  // (1 - speed) x slow, rounded down to whole ns (work is the rest: never more than wall time).
  return SimTime::from_ns(static_cast<std::int64_t>((1.0 - speed_) * static_cast<double>(slow.ns())));
}

SimTime SlowWindows::slowed_work(SimTime from, SimTime to) { return (to - from) - slowed(slow_time(from, to)); }

SimTime SlowWindows::wall_after_work(SimTime from, SimTime work) {
  if (!active_) return saturating_add(from, work);
  // Walk the windows from `from`: healthy gaps count 1:1, slow windows at `speed`.
  SimTime t = from;
  SimTime left = work;
  for (;;) {
    const SimTime healthy_end = saturating_add(t, left);
    extend_to(healthy_end);
    while (!windows_.empty() && windows_.front().second <= t) windows_.pop_front();
    if (windows_.empty() || windows_.front().first >= healthy_end) return healthy_end;
    const auto [a, b] = windows_.front();
    if (a > t) {  // healthy until the window starts
      left -= a - t;
      t = a;
    }
    const SimTime span = b - t;
    const SimTime span_work = span - slowed(span);
    if (span_work >= left) {
      const double need = std::ceil(static_cast<double>(left.ns()) / speed_);
      return saturating_add(t, need < 9.2e18 ? SimTime::from_ns(static_cast<std::int64_t>(need)) : SimTime::max());
    }
    left -= span_work;
    t = b;
  }
}

CorruptionOnsets::CorruptionOnsets(const SilentCorruptionSpec& spec, int machines, std::uint64_t seed, std::uint64_t replica)
    : rate_(spec.rate * machines), machines_(machines), engine_(make_stream(seed, replica, RandomComponent::silent_corruption)) {}

std::pair<SimTime, int> CorruptionOnsets::next() {
  now_ = gap_after(now_, rate_, engine_);
  if (now_ == SimTime::max()) return {now_, 0};
  return {now_, draw_machine(machines_, engine_)};
}

}  // namespace ckptsim
