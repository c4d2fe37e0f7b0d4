#pragma once
// Recovery mechanisms: the optional parts of a replica's recovery that change what a failure, a
// training segment or an episode does (docs/architecture.md, "Recovery"). Each is one unit,
// src/run/recovery/mechanisms/<name>.cpp, entered as one row of the table of
// recovery_mechanisms() (src/run/recovery/mechanism_table.cpp); the table's order is the order
// in which the replica loop asks them at each hook.
//
// A mechanism that a scenario does not model is not built, and the replica loop skips its hooks
// without a call: a mechanism that is off costs nothing per failure. A mechanism that is on
// talks to the replica state (replica_state.hpp) and to the training segment the loop gives it,
// never to another mechanism nor to the recovery policy.
//
// Hooks, in the order the replica loop reaches them (every one optional):
//   before_segment        a segment is about to train from (t, n0, lineage0): end it now with a
//                         planned stop, or change the pending failures;
//   on_predicted_failure  the next failure is announced (FailureEvent::predicted): avert it with
//                         a planned stop;
//   after_training        the segment trained from its start until `until` (before the states
//                         completed in it are noted: the segment's starting states are still there);
//   during_pause          a planned stop pauses the job until `until`;
//   on_failure            a failure joins the episode (the episode record was reset at its start);
//   instead_of_waiting    the episode would wait for replacements from `wait_from` until
//                         episode.replacements_ready: restart without them instead (at most one
//                         mechanism answers; the first in table order wins);
//   while_down            the job is down until `until` within an episode;
//   on_recovered          the episode restarted the job from `target`;
//   on_predicted_group_failure  per-step fault tolerance: an announced failure of a machine of `group`.
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/run/group_outages.hpp"
#include "ckptsim/run/recovery/replica_state.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// The training segment in progress, as the replica loop lends it to a mechanism.
class TrainingSegment {
 public:
  SimTime start;         ///< wall time t at which the segment started
  std::int64_t n0 = 0;   ///< iterations done at its start
  SimTime lineage0;      ///< lineage work at its start
  SimTime run_end;       ///< the run's end (run_horizon.hpp's E)
  SimTime target_end;    ///< when training alone would end the run

  /// Whole iterations done after `work` of healthy-equivalent work into the segment.
  [[nodiscard]] virtual std::int64_t completed(SimTime work) const = 0;
  /// Healthy-equivalent work to complete `iterations` iterations of the segment.
  [[nodiscard]] virtual SimTime time_to_complete(std::int64_t iterations) const = 0;
  /// The newest states captured within the first `work` of the segment, or else before it.
  [[nodiscard]] virtual CleanStates states_before(SimTime work) const = 0;
  /// A planned stop: the segment ends at wall time `boundary`, an iteration boundary reached
  /// after work e; its training, stalls and completed checkpoints are counted.
  virtual void stop_at_boundary(SimTime boundary, SimTime work) = 0;
  /// After a planned stop's pause until `resume`: failures that fell in the pause are taken at
  /// its end, and training resumes from the boundary (`done` more iterations, work e) with
  /// nothing rolled back. False when the pause reaches the run's end (the result is then final).
  virtual bool resume_after_pause(SimTime resume, std::int64_t done, SimTime work) = 0;

 protected:
  ~TrainingSegment() = default;
};

/// What a hook did to the segment: nothing, ended it (the loop starts the next one), or ended the run.
enum class SegmentChange { none, restarted, run_ended };

/// Restarting without some machines instead of waiting for their replacements.
struct EpisodeShortcut {
  int machines_out = 0;  ///< machines the job restarts without (0: wait as usual)
  SimTime reshard;       ///< the reshard to the smaller size, counted as retrieval
};

/// A completed recovery.
struct CompletedRecovery {
  Version target;
  RecoveryTier tier = RecoveryTier::scratch;
  int first_cause = 0;  ///< the cause of the episode's first failure
  SimTime resumed;      ///< the restart's end
};

/// One replica's instance of a mechanism (header).
class RecoveryMechanism {
 public:
  virtual ~RecoveryMechanism() = default;
  virtual SegmentChange before_segment(ReplicaState&, TrainingSegment&) { return SegmentChange::none; }
  virtual SegmentChange on_predicted_failure(ReplicaState&, TrainingSegment&) { return SegmentChange::none; }
  virtual void after_training(ReplicaState&, const TrainingSegment&, SimTime /*until*/) {}
  virtual void during_pause(ReplicaState&, SimTime /*until*/) {}
  virtual void on_failure(ReplicaState&, const FailureEvent&) {}
  virtual EpisodeShortcut instead_of_waiting(ReplicaState&, SimTime /*wait_from*/) { return {}; }
  virtual void while_down(ReplicaState&, SimTime /*until*/) {}
  virtual void on_recovered(ReplicaState&, const CompletedRecovery&) {}
  /// True when the announced failure was averted (the group left the quorum instead).
  virtual bool on_predicted_group_failure(ReplicaState&, GroupOutages&, int /*group*/, SimTime /*at*/) { return false; }
};

/// A mechanism prepared once per run (what every replica shares, read-only, across threads).
class MechanismPlan {
 public:
  virtual ~MechanismPlan() = default;
  /// The mechanism of one replica; it may mark the replica's result (columns it writes).
  [[nodiscard]] virtual std::unique_ptr<RecoveryMechanism> start(ReplicaState& state, std::uint64_t replica) const = 0;
};

/// One row of the mechanism table.
struct RecoveryMechanismRow {
  std::string_view name;         ///< the scenario block that turns it on, e.g. "failures.migration"
  std::string_view description;  ///< one line
  bool (*modelled)(const Scenario&);
  /// The run's plan; throws ModelError when the scenario's values cannot run (before any replica).
  std::shared_ptr<const MechanismPlan> (*plan)(const Scenario&, const StrategyCosts&);
};

/// Every mechanism, in the order the replica loop asks them.
const std::vector<RecoveryMechanismRow>& recovery_mechanisms();

/// The plans of the mechanisms a scenario models, in table order.
std::vector<std::shared_ptr<const MechanismPlan>> mechanism_plans(const Scenario& s, const StrategyCosts& c);

}  // namespace ckptsim
