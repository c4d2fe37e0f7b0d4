// Recovery from a shadow cluster (tier shadow: shadow, Checkmate; run/strategies/shadow.cpp). The
// shadow holds the state of every step (a checkpoint every iteration, usable T_sh after its step
// ends). A training failure recovers that state from the shadow (`peer`, the shadow retrieval)
// unless, at the failure, some shadow machine is out (failed, and not yet replaced and re-synced:
// W = strategy.shadow_replacement + its C / M bytes from the training cluster): then the latest
// persistent upload (`storage`), else the initial state (`scratch`). Shadow machines fail as a
// Poisson process of rate M / MTBF_sh, their own random stream (RandomComponent::shadow), and do
// not stop training: a shadow failure alone loses nothing. After a recovery from storage (or
// scratch) the shadow holds a newer state than training: it re-syncs to the restored state, out
// for (C / M) / (f B_sh) after the restart. After a detected silent corruption, the shadow's state
// only while it is still its newest (the corrupted gradients reached the shadow too).
// Not modelled: a shadow machine failing between a training failure and the retrieval (the
// episode is taken to read the shadow as it was at the failure).
#include <boost/random/exponential_distribution.hpp>

#include "ckptsim/core/random.hpp"

#include "../replica_loop.hpp"
#include "policies.hpp"

namespace ckptsim {
namespace {

/// The shadow machines' outages over one replica's time line, asked at times that never go back:
/// whether the whole shadow is up at t, i.e. no shadow machine failed in (t - W, t] and no re-sync
/// is in progress. The failures are a Poisson process of rate Lambda_sh = M / MTBF_sh, drawn in
/// O(1) per question whatever Lambda_sh W is: between the previous question q and t, only the
/// first failure after q (drawn forward) and the last one before t matter; given that the first
/// one, f, is <= t, the failures in (f, t] are Poisson again, so the last is max(f, t - E) with E
/// exponential of rate Lambda_sh (looking back from t), and the next after t is t + E'.
class ShadowOutages {
 public:
  ShadowOutages(const StrategyCosts& c, std::uint64_t seed, std::uint64_t replica)
      : engine_(make_stream(seed, replica, RandomComponent::shadow)), rate_(c.shadow_failure_rate), outage_(c.shadow_outage) {
    next_ = after(SimTime::zero());
  }
  /// No shadow machine is out at t, nor the whole shadow re-syncing.
  bool whole_at(SimTime t) {
    if (next_ <= t) {
      const double back = gap();
      last_ = back >= (t - next_).seconds() ? next_ : t - SimTime::from_seconds(back);
      next_ = after(t);
    }
    if (t < resync_until_) return false;
    return !last_ || saturating_add(*last_, outage_) <= t;
  }
  /// The whole shadow is out until `until` (a re-sync to a restored state).
  void out_until(SimTime until) { resync_until_ = std::max(resync_until_, until); }

 private:
  [[nodiscard]] double gap() { return boost::random::exponential_distribution<double>(rate_)(engine_); }
  /// The first failure after t.
  SimTime after(SimTime t) {
    if (rate_ <= 0 || t == SimTime::max()) return SimTime::max();
    const double g = gap();
    return g >= (SimTime::max() - t).seconds() ? SimTime::max() : saturating_add(t, SimTime::from_seconds(g));
  }
  RandomEngine engine_;
  double rate_;
  SimTime outage_;
  SimTime next_ = SimTime::max();
  std::optional<SimTime> last_;  ///< the last shadow failure at or before the previous question
  SimTime resync_until_ = SimTime::zero();
};

class ShadowPolicy final : public PolicyBase {
 public:
  ShadowPolicy(const ReplicaInputs& in, ReplicaState& st)
      : PolicyBase(in.costs), outages_(in.costs, in.scenario.run.seed, st.replica_index) {}

  /// Called before every segment, from its start t: a pending re-sync of the whole shadow runs
  /// from the restart on.
  void adapt_period(SegmentPattern&, const ReplicaState&, SimTime t, SimTime) {
    if (!resync_pending_) return;
    outages_.out_until(saturating_add(t, c_.shadow_resync));
    resync_pending_ = false;
  }

  void on_episode_start() { first_failure_ = true; }
  void on_failure(const FailureEvent& f) {
    if (!first_failure_) return;
    first_failure_ = false;
    shadow_whole_ = outages_.whole_at(f.time);
  }

  template <typename Clock>
  void note_completed(const Clock& clock, SimTime e, SimTime lineage0, ReplicaState& st) {
    if (auto ck = clock.latest_checkpoint(e)) st.states.memory = version_of(*ck, lineage0);
    if (auto ck = clock.latest_persistent(e)) st.states.persistent = version_of(*ck, lineage0);
  }

  template <typename Clock>
  CleanStates clean_states(const Clock& clock, SimTime e, SimTime lineage0, const ReplicaState& st) const {
    return {newest(clock.latest_checkpoint(e), st.states.memory, lineage0),
            newest(clock.latest_persistent(e), st.states.persistent, lineage0)};
  }

  [[nodiscard]] RecoveryTarget choose_target(const ReplicaState& st) const {
    if (st.states.memory && shadow_whole_) return {*st.states.memory, RecoveryTier::peer};
    return persistent_or_scratch(st);
  }

  [[nodiscard]] RecoveryTarget choose_clean(const ReplicaState& st) const {
    const CleanStates& c = st.episode.corruption->clean;
    if (c.memory && st.states.memory && st.states.memory->iteration == c.memory->iteration &&
        st.states.memory->lineage == c.memory->lineage && shadow_whole_)
      return {*st.states.memory, RecoveryTier::peer};
    return PolicyBase::choose_clean(st);
  }

  /// A recovery to anything but the shadow's own state leaves the shadow ahead of training.
  void on_recovered(ReplicaState& st, const Version& target) {
    const bool from_shadow = st.states.memory && st.states.memory->iteration == target.iteration &&
                             st.states.memory->lineage == target.lineage && shadow_whole_;
    if (!from_shadow) resync_pending_ = true;
  }

 private:
  ShadowOutages outages_;
  bool first_failure_ = true;
  bool shadow_whole_ = true;
  bool resync_pending_ = false;
};

SegmentPattern shadow_pattern(const StrategyCosts& c) { return SegmentPattern::periodic(c, {true, true, false}); }

void shadow_terms(const Scenario& s, const StrategyCosts& c, std::vector<HorizonTerm>& terms) {
  checkpoint_horizon_terms(s, c, c.stall, terms);
  if (c.persistent_every_iterations > 0) terms.push_back({"/storage/bandwidth", "a persistent upload", c.upload});
  terms.push_back({"/strategy/shadow_replacement", "a shadow machine's outage", c.shadow_outage});
}

}  // namespace

const RecoveryPolicyRow& shadow_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::shadow,
                                     "shadow",
                                     &simulate_replica<ShadowPolicy, SegmentClock, SteppedClock>,
                                     &shadow_pattern,
                                     &segment_failure_free,
                                     false,
                                     false,
                                     &slowest_memory_retrieval,
                                     &shadow_terms};
  return row;
}

}  // namespace ckptsim
