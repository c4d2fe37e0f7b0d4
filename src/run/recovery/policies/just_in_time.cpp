// Just-in-time recovery (tier just_in_time; run/strategies/just_in_time.cpp, docs/models.md):
// periodic checkpoints in storage, and after a failure the surviving data-parallel replicas save
// the state at the start of the interrupted minibatch (its last whole iteration) over J =
// jit_save, while the replacements are on their way; the episode then recovers that state from
// storage. Machine j holds shard position j mod (N / G); the position is lost once all G of its
// holders, G distinct machines, failed in this episode (their GPU state is gone): the episode
// then falls back to the periodic checkpoint (or the initial state), as it does when a detected
// silent corruption forces a rollback past the interrupted minibatch. A machine that fails again
// within the episode is a holder already lost: counted once. The save, once in storage, is the
// newest persistent state.
#include <algorithm>
#include <optional>
#include <vector>

#include "../replica_loop.hpp"
#include "policies.hpp"

namespace ckptsim {
namespace {

class JustInTimePolicy final : public PolicyBase {
 public:
  JustInTimePolicy(const ReplicaInputs& in, ReplicaState& st)
      : PolicyBase(in.costs),
        positions_(std::max(1, in.scenario.cluster.machines / std::max(1, in.costs.replica_groups))),
        failed_(static_cast<std::size_t>(positions_), 0),
        holder_lost_(static_cast<std::size_t>(in.scenario.cluster.machines), 0) {
    st.result.just_in_time = true;
  }

  template <typename Clock>
  void note_completed(const Clock& clock, SimTime e, SimTime lineage0, ReplicaState& st) {
    if (auto ck = clock.latest_checkpoint(e)) st.states.persistent = version_of(*ck, lineage0);
  }

  template <typename Clock>
  CleanStates clean_states(const Clock& clock, SimTime e, SimTime lineage0, const ReplicaState& st) const {
    return {std::nullopt, newest(clock.latest_checkpoint(e), st.states.persistent, lineage0)};
  }

  /// The state at the start of the interrupted minibatch (the last whole iteration), which the
  /// surviving replicas can save.
  template <typename Clock>
  void at_failure(const Clock& clock, SimTime e, std::int64_t n0, SimTime lineage0) {
    const std::int64_t done = clock.completed(e);
    interrupted_ = Version{n0 + done, lineage0 + clock.time_to_complete(done)};
  }

  void on_episode_start() {
    for (int j : touched_) {
      holder_lost_[static_cast<std::size_t>(j)] = 0;
      failed_[static_cast<std::size_t>(j % positions_)] = 0;
    }
    touched_.clear();
    position_lost_ = false;
  }

  void on_failure(const FailureEvent& f) {
    for (int j = f.machine; j < f.machine + f.machines; ++j) {
      auto& lost = holder_lost_[static_cast<std::size_t>(j)];
      if (lost != 0) continue;
      lost = 1;
      touched_.push_back(j);
      if (++failed_[static_cast<std::size_t>(j % positions_)] >= c_.replica_groups) position_lost_ = true;
    }
  }

  [[nodiscard]] RecoveryTarget choose_target(const ReplicaState& st) const {
    if (saves(st)) return {*interrupted_, RecoveryTier::storage};
    return persistent_or_scratch(st);
  }

  SimTime saved_at(const ReplicaState& st, SimTime detected) {
    saving_ = saves(st);
    return saving_ ? saturating_add(detected, c_.jit_save) : detected;
  }

  void on_recovered(ReplicaState& st, const Version& target) {
    ++(saving_ ? st.result.jit_recoveries : st.result.jit_fallbacks);
    if (saving_) st.states.persistent = target;  // the save is in storage now: a later fallback's newest
    interrupted_.reset();
  }

  [[nodiscard]] std::int64_t final_persistent_every(const SegmentPattern& p) const { return p.every; }

 private:
  /// The episode's failures left a replica of every shard, and no corruption forces a rollback
  /// past the interrupted minibatch.
  [[nodiscard]] bool saves(const ReplicaState& st) const {
    return interrupted_ && !position_lost_ && !st.episode.corruption;
  }

  int positions_;                     ///< shard positions N / G
  std::vector<int> failed_;           ///< distinct holders failed in this episode, by position
  std::vector<char> holder_lost_;     ///< machine failed in this episode, by machine
  std::vector<int> touched_;          ///< the machines marked in holder_lost_
  bool position_lost_ = false;        ///< some position lost every holder
  std::optional<Version> interrupted_;  ///< the interrupted minibatch's starting state
  bool saving_ = false;               ///< the episode's latest choice: the survivors save
};

SegmentPattern just_in_time_pattern(const StrategyCosts& c) { return SegmentPattern::periodic(c, {true, false, false}); }

void just_in_time_terms(const Scenario& s, const StrategyCosts& c, std::vector<HorizonTerm>& terms) {
  terms.push_back({"/storage/bandwidth", "a just-in-time save", c.jit_save});
  checkpoint_horizon_terms(s, c, c.stall, terms);
}

}  // namespace

const RecoveryPolicyRow& just_in_time_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::just_in_time,
                                     "just-in-time",
                                     &simulate_replica<JustInTimePolicy, SegmentClock, SteppedClock>,
                                     &just_in_time_pattern,
                                     &segment_failure_free,
                                     false,
                                     false,
                                     &storage_retrieval,
                                     &just_in_time_terms};
  return row;
}

}  // namespace ckptsim
