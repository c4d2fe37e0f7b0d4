// Silent data corruption as a recovery mechanism (failure/fault_model.hpp, "Silent data
// corruption"; docs/models.md): corruptions start as a Poisson process (stream (seed, replica,
// silent_corruption)) and are detected `detection` later as a failure. Each onset is registered
// with the newest states captured before it (the training segment says which: by tier); its
// detection binds the episode's recovery to one of them (episode.corruption, which the recovery
// policy reads), and every checkpoint captured after the onset is corrupt: after the rollback,
// the persistent state is the clean one and no partner copy is usable. An onset while the job is
// down, or one a rollback has undone, did nothing: its detection is dropped.
#include <deque>
#include <memory>
#include <optional>

#include "ckptsim/failure/fault_model.hpp"
#include "mechanisms.hpp"

namespace ckptsim {
namespace {

class SilentCorruption final : public RecoveryMechanism {
 public:
  SilentCorruption(const Scenario& s, std::uint64_t replica)
      : onsets_(s.failures.silent_corruption, s.cluster.machines, s.run.seed, replica), next_onset_(onsets_.next().first) {}

  /// Detections of corruptions that did nothing are dropped before the segment trains.
  SegmentChange before_segment(ReplicaState& st, TrainingSegment& seg) override {
    while (st.failures.any() && st.failures.next().corruption) {
      register_onsets(st, seg, st.failures.next().time);
      if (!pending_is_undone(st)) break;
      drop_pending(st);
    }
    return SegmentChange::none;
  }

  void after_training(ReplicaState& st, const TrainingSegment& seg, SimTime until) override {
    register_onsets(st, seg, until);
  }

  void during_pause(ReplicaState&, SimTime until) override { register_downtime_onsets(until); }

  /// A detected corruption binds the episode's recovery to a state captured before it (the
  /// earliest such corruption when several are detected in one episode).
  void on_failure(ReplicaState& st, const FailureEvent& f) override {
    if (!f.corruption || corruptions_.empty() || corruptions_.front().id != *f.corruption) return;
    const Corruption c = corruptions_.front();
    corruptions_.pop_front();
    auto& bound = st.episode.corruption;
    if (c.valid && (!bound || c.lineage < bound->lineage)) bound = EpisodeRecord::CorruptionBound{c.lineage, c.clean};
  }

  void while_down(ReplicaState& st, SimTime until) override {
    while (st.failures.any() && st.failures.next().corruption && st.failures.next().time < until) {
      register_downtime_onsets(st.failures.next().time);
      if (!pending_is_undone(st)) return;
      drop_pending(st);
    }
  }

  /// After a recovery to `target`: states newer than the corruption it undid are corrupt, and
  /// corruptions after the recovered state are undone.
  void on_recovered(ReplicaState& st, const CompletedRecovery& done) override {
    if (st.episode.corruption) {
      st.states.persistent = st.episode.corruption->clean.persistent;
      st.states.partner.reset();
      st.episode.corruption.reset();
    }
    for (auto& c : corruptions_)
      if (c.valid && c.lineage >= done.target.lineage) c.valid = false;
    register_downtime_onsets(done.resumed);
  }

 private:
  /// A silent corruption: its onset's lineage and the newest states captured before it.
  struct Corruption {
    std::int64_t id = 0;
    bool valid = false;
    SimTime lineage;
    CleanStates clean;
  };

  /// Registers the onsets before `until` that fall in the training segment, with the newest
  /// states captured before each.
  void register_onsets(ReplicaState& st, const TrainingSegment& seg, SimTime until) {
    while (next_onset_ < until) {
      Corruption c;
      c.id = onsets_seen_++;
      if (next_onset_ >= seg.start) {
        c.valid = true;
        const SimTime e = st.rate.work(seg.start, next_onset_);
        c.lineage = seg.lineage0 + e;
        c.clean = seg.states_before(e);
      }
      corruptions_.push_back(c);
      next_onset_ = onsets_.next().first;
    }
  }

  /// Onsets before `until` while the job is down: no computation to corrupt.
  void register_downtime_onsets(SimTime until) {
    while (next_onset_ < until) {
      corruptions_.push_back(Corruption{onsets_seen_++, false, SimTime::zero(), {}});
      next_onset_ = onsets_.next().first;
    }
  }

  /// True when the pending failure detects a corruption that did nothing (started while the
  /// job was down, or rolled back since): such a detection is dropped.
  bool pending_is_undone(const ReplicaState& st) const {
    if (!st.failures.any() || !st.failures.next().corruption) return false;
    return corruptions_.empty() || corruptions_.front().id != *st.failures.next().corruption || !corruptions_.front().valid;
  }

  void drop_pending(ReplicaState& st) {
    if (!corruptions_.empty() && corruptions_.front().id == *st.failures.next().corruption) corruptions_.pop_front();
    st.failures.pull();
  }

  CorruptionOnsets onsets_;
  SimTime next_onset_;
  std::int64_t onsets_seen_ = 0;
  std::deque<Corruption> corruptions_;  ///< registered, not yet detected, in onset order
};

class SilentCorruptionPlan final : public MechanismPlan {
 public:
  std::unique_ptr<RecoveryMechanism> start(ReplicaState& st, std::uint64_t replica) const override {
    return std::make_unique<SilentCorruption>(st.scenario, replica);
  }
};

}  // namespace

const RecoveryMechanismRow& silent_corruption_mechanism() {
  static const RecoveryMechanismRow row{
      "failures.silent_corruption", "silent data corruption: detections roll back past the onset",
      [](const Scenario& s) { return silent_corruption_modelled(s.failures); },
      [](const Scenario&, const StrategyCosts&) -> std::shared_ptr<const MechanismPlan> {
        return std::make_shared<SilentCorruptionPlan>();
      }};
  return row;
}

}  // namespace ckptsim
