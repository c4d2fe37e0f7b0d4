// The fault-model features of fault_model.hpp.
#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/migration.hpp"

#include <algorithm>
#include <cmath>
#include <queue>
#include <vector>

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/exponential_distribution.hpp>

#include "ckptsim/core/checked_time.hpp"

namespace ckptsim {
namespace {

/// `now` plus an exponential gap of the given rate (per second), at least 1 ns later, saturating
/// at SimTime::max() ("never") for a gap beyond the clock or a zero rate.
SimTime recurrence_after(SimTime now, double rate, RandomEngine& engine) {
  if (!(rate > 0)) return SimTime::max();
  boost::random::exponential_distribution<double> gap(rate);
  const double g = gap(engine);
  if (!(g < 9.2e9)) return SimTime::max();
  return saturating_add(now, std::max(SimTime::from_ns(1), SimTime::from_seconds(g)));
}

/// Priority order of failure events: time, then insertion sequence (ties keep their order).
struct QueuedRecurrence {
  FailureEvent event;
  std::uint64_t sequence = 0;
  bool operator>(const QueuedRecurrence& o) const {
    return event.time != o.event.time ? event.time > o.event.time : sequence > o.sequence;
  }
};

/// The base source plus the fault-model events, in time order.
class FaultModelSource final : public FailureSource {
 public:
  FaultModelSource(std::unique_ptr<FailureSource> base, const FailureSpec& spec, int machines, std::uint64_t seed,
                   std::uint64_t replica)
      : base_(std::move(base)),
        spec_(spec),
        hang_rng_(make_stream(seed, replica, RandomComponent::hangs)),
        misdiagnosis_rng_(make_stream(seed, replica, RandomComponent::misdiagnosis)),
        migration_rng_(make_stream(seed, replica, RandomComponent::migration)) {
    base_head_ = base_->next();
    if (stragglers_modelled(spec) && spec.stragglers.eviction) {
      stragglers_ = std::make_unique<StragglerDraws>(spec.stragglers, machines, seed, replica);
      straggler_cause_ = straggler_cause(spec);
      pull_eviction();
    }
    if (silent_corruption_modelled(spec)) {
      corruptions_ = std::make_unique<CorruptionOnsets>(spec.silent_corruption, machines, seed, replica);
      corruption_cause_ = silent_corruption_cause(spec);
      pull_detection();
    }
  }

  std::optional<FailureEvent> next() override {
    // The earliest of: the base source, the next eviction, the next detection, a recurrence.
    std::optional<FailureEvent> out;
    int from = -1;
    const auto consider = [&](const std::optional<FailureEvent>& e, int which) {
      if (e && (!out || e->time < out->time)) {
        out = e;
        from = which;
      }
    };
    consider(base_head_, 0);
    consider(eviction_head_, 1);
    consider(detection_head_, 2);
    if (!recurrences_.empty()) consider(recurrences_.top().event, 3);
    if (!out) return std::nullopt;
    switch (from) {
      case 0: base_head_ = base_->next(); break;
      case 1: pull_eviction(); break;
      case 2: pull_detection(); break;
      default: recurrences_.pop(); break;
    }
    // Evictions and corruption detections are decided by the fault model itself: no hang, no
    // misdiagnosis.
    if (from == 0 || from == 3) decorate(*out);
    return out;
  }

 private:
  /// Hang flag for every failure; a single-machine hardware crash may be announced in time
  /// (migration.hpp); a misdiagnosed hardware failure schedules its recurrence.
  void decorate(FailureEvent& e) {
    if (spec_.hangs.fraction > 0) e.hang = boost::random::bernoulli_distribution<double>(spec_.hangs.fraction)(hang_rng_);
    if (e.type != FailureType::hardware || e.corruption) return;
    if (spec_.migration.fraction > 0 && e.machines == 1 && !e.hang &&
        boost::random::bernoulli_distribution<double>(spec_.migration.fraction)(migration_rng_)) {
      e.predicted = true;
      return;  // the warning names the machine: not misdiagnosed
    }
    if (!(spec_.misdiagnosis.fraction > 0)) return;
    if (!boost::random::bernoulli_distribution<double>(spec_.misdiagnosis.fraction)(misdiagnosis_rng_)) return;
    FailureEvent again = e;
    again.hang = false;
    again.machines = 1;
    again.time = recurrence_after(e.time, 1.0 / spec_.misdiagnosis.recurrence.seconds(), misdiagnosis_rng_);
    if (again.time == SimTime::max()) return;
    recurrences_.push(QueuedRecurrence{again, sequence_++});
  }

  void pull_eviction() {
    eviction_head_.reset();
    while (stragglers_) {
      const Straggler s = stragglers_->next();
      if (s.start == SimTime::max() || s.end == SimTime::max()) return;
      if (!s.evicted) continue;
      eviction_head_ = FailureEvent{s.end, s.machine, 1, FailureType::hardware, straggler_cause_, false, std::nullopt};
      return;
    }
  }

  void pull_detection() {
    detection_head_.reset();
    if (!corruptions_) return;
    const auto [onset, machine] = corruptions_->next();
    const SimTime detected = saturating_add(onset, spec_.silent_corruption.detection);
    if (onset == SimTime::max() || detected == SimTime::max()) return;
    detection_head_ = FailureEvent{detected, machine, 1, FailureType::hardware, corruption_cause_, false, corruptions_seen_++};
  }

  std::unique_ptr<FailureSource> base_;
  const FailureSpec& spec_;
  RandomEngine hang_rng_;
  RandomEngine misdiagnosis_rng_;
  RandomEngine migration_rng_;
  std::optional<FailureEvent> base_head_;
  std::unique_ptr<StragglerDraws> stragglers_;
  int straggler_cause_ = 0;
  std::optional<FailureEvent> eviction_head_;
  std::unique_ptr<CorruptionOnsets> corruptions_;
  int corruption_cause_ = 0;
  std::int64_t corruptions_seen_ = 0;
  std::optional<FailureEvent> detection_head_;
  std::priority_queue<QueuedRecurrence, std::vector<QueuedRecurrence>, std::greater<>> recurrences_;
  std::uint64_t sequence_ = 0;
};

}  // namespace

SimTime hang_detection(const HangSpec& spec, SimTime iteration_time) {
  const double heartbeat_s = spec.heartbeat_safety_factor * iteration_time.seconds();
  const SimTime heartbeat = heartbeat_s < 9.2e9 ? SimTime::from_seconds(heartbeat_s) : SimTime::max();
  return saturating_add(std::min(spec.collective_timeout, heartbeat), SimTime::from_ns(spec.check_interval.ns() / 2));
}

bool stragglers_modelled(const FailureSpec& spec) { return spec.stragglers.rate > 0 && spec.stragglers.speed < 1.0; }
bool silent_corruption_modelled(const FailureSpec& spec) { return spec.silent_corruption.rate > 0; }

std::unique_ptr<FailureSource> with_fault_model(std::unique_ptr<FailureSource> base, const FailureSpec& spec,
                                                int machines, std::uint64_t seed, std::uint64_t replica) {
  const bool any = spec.hangs.fraction > 0 || spec.misdiagnosis.fraction > 0 || migration_modelled(spec) ||
                   (stragglers_modelled(spec) && spec.stragglers.eviction) || silent_corruption_modelled(spec);
  if (!any) return base;
  return std::make_unique<FaultModelSource>(std::move(base), spec, machines, seed, replica);
}

}  // namespace ckptsim
