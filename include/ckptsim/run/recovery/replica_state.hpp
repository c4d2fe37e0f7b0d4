#pragma once
// The state of one replica that the replica loop, the recovery policies and the recovery
// mechanisms share (docs/architecture.md, "Recovery"; the timeline is run_model.hpp's):
//   failures     the replica's failure source and its next failure, held back to the end of a
//                planned stop's pause (no failure is taken during one: it happens at its end);
//   work rate    healthy-equivalent work per wall time: w - (1 - speed) |slow part of w| under
//                fail-slow stragglers (fault_model.hpp), times (N - out) / N while the job runs
//                without `out` machines (elastic restart), rounded down to whole ns;
//   machines     the standby pool and the CPU memory of the in-memory checkpoints (machines.hpp);
//   states       the newest recoverable states by where they are kept (memory, partner copies,
//                storage);
//   episode      what the failures of the recovery episode in progress asked for: replacements,
//                the restart, the machines that found no standby, a detected corruption's bound;
//   accounting   the ReplicaResult and the compute done, every part an int64 ns sum.
// Mechanisms (recovery_mechanism.hpp) and policies (recovery_policy.hpp) talk to this state,
// never to one another.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/run/recovery/machines.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

class MechanismPlan;  // recovery_mechanism.hpp

/// A recoverable state: its iteration and the lineage work invested when it was captured.
struct Version {
  std::int64_t iteration = 0;
  SimTime lineage;
};

/// The newest states captured before some instant, by where they are kept (a silent corruption's
/// clean states: what a rollback past it may use).
struct CleanStates {
  std::optional<Version> memory;
  std::optional<Version> persistent;
};

/// The newest recoverable states of the replica.
struct RecoverableStates {
  std::optional<Version> memory;      ///< memory tier; multi-level: level 1
  std::optional<Version> partner;     ///< multi-level: level 2
  std::optional<Version> persistent;  ///< in storage
  bool local_lost = false;            ///< a machine lost its CPU memory since level 1 last completed (multi-level)
};

/// Everything a replica reads, prepared once per run and shared read-only by the threads.
struct ReplicaInputs {
  const Scenario& scenario;
  const StrategyCosts& costs;
  const HolderIndex* holders;                  ///< the in-memory holder sets (nullptr: none)
  const std::vector<TraceRecord>* trace;       ///< the loaded trace (trace process)
  std::shared_ptr<const std::vector<FailureCause>> causes;
  /// The plans of the mechanisms the scenario models, in table order (recovery_mechanism.hpp).
  const std::vector<std::shared_ptr<const MechanismPlan>>* mechanisms;
};

/// The replica's failures in time order, one ahead.
class PendingFailures {
 public:
  explicit PendingFailures(std::unique_ptr<FailureSource> source) : source_(std::move(source)) {}
  /// A next failure exists.
  [[nodiscard]] bool any() const { return next_.has_value(); }
  [[nodiscard]] const FailureEvent& next() const { return *next_; }
  [[nodiscard]] FailureEvent& next() { return *next_; }
  /// A next failure exists and comes before t.
  [[nodiscard]] bool before(SimTime t) const { return next_ && next_->time < t; }
  /// The next failure of the source; one that falls in a planned stop's pause is taken at its end.
  void pull() {
    next_ = source_->next();
    if (next_ && next_->time < not_before_) next_->time = not_before_;
  }
  /// A planned stop pauses the job until `resume`: failures before it are taken at its end.
  void pause_until(SimTime resume) {
    not_before_ = std::max(not_before_, resume);
    if (next_ && next_->time < resume) next_->time = resume;
  }

 private:
  std::unique_ptr<FailureSource> source_;
  std::optional<FailureEvent> next_;
  SimTime not_before_;  ///< end of the latest planned stop's pause
};

/// Healthy-equivalent work over wall time (header).
class WorkRate {
 public:
  WorkRate(const FailureSpec& spec, int machines, std::uint64_t seed, std::uint64_t replica)
      : slow_(spec, machines, seed, replica), machines_(machines) {}
  /// Healthy-equivalent work over [from, to); `from` never decreases between calls.
  SimTime work(SimTime from, SimTime to) {
    const SimTime w = slow_.work(from, to);
    if (out_ == 0) return w;
    return shrunk(w);
  }
  /// The wall time at which `w` of healthy-equivalent work has been done from `from` (saturating).
  SimTime wall_after(SimTime from, SimTime w);
  /// Machines the job runs without (elastic restart; 0: the job is whole).
  [[nodiscard]] int machines_out() const { return out_; }
  void set_machines_out(int out) { out_ = out; }
  [[nodiscard]] int machines() const { return machines_; }
  SlowWindows& stragglers() { return slow_; }

 private:
  [[nodiscard]] SimTime shrunk(SimTime w) const;
  SlowWindows slow_;
  int machines_;
  int out_ = 0;
};

/// What the failures of the episode in progress asked for.
struct EpisodeRecord {
  SimTime replacements_ready;  ///< the last replacement's arrival (a standby's: its detection)
  SimTime restart;             ///< the longest restart of the episode's failures
  RestartTier restart_tier = RestartTier::in_process;  ///< the highest restart tier among them
  bool track_unplaced = false;  ///< keep `unplaced` (elastic restart modelled)
  std::vector<int> unplaced;    ///< this episode's lost machines that found no standby
  /// A detected silent corruption binds the recovery to a state captured before its onset.
  struct CorruptionBound {
    SimTime lineage;  ///< the onset's lineage
    CleanStates clean;
  };
  std::optional<CorruptionBound> corruption;
};

/// The state of one replica (header).
class ReplicaState {
 public:
  ReplicaState(const ReplicaInputs& in, std::uint64_t replica);

  const Scenario& scenario;
  const StrategyCosts& costs;
  std::uint64_t replica_index;  ///< the replica's index (the streams of a policy's own randomness)
  PendingFailures failures;
  WorkRate rate;
  StandbyPool standbys;
  MemoryHealth memory;
  RecoverableStates states;
  EpisodeRecord episode;
  ReplicaResult result;
  SimTime compute;           ///< compute done, the rolled-back included
  SimTime partial_training;  ///< the compute of a final partial iteration
  std::int64_t persistent_recoveries = 0;  ///< recoveries from storage or scratch (the adaptive interval's count)

  /// Time lost to `cause` (ReplicaResult::lost_by_cause).
  SimTime& cause_lost(int cause) { return result.lost_by_cause[static_cast<std::size_t>(cause)]; }
  /// A stretch of `wall` time that did `work` of healthy-equivalent work, `stall` of it checkpoint stalls.
  void count_training(SimTime wall, SimTime work, SimTime stall) {
    result.breakdown.degraded += wall - work;
    compute += work - stall;
    result.breakdown.checkpoint_stall += stall;
  }
  /// Machine j lost its CPU memory at `failed_at`, detected at `detected`: it is replaced (a
  /// standby at detection if one is free). True when a standby took its place.
  bool replace_machine(int j, SimTime failed_at, SimTime detected);
  /// The run ends at `end` with `iterations` done; `finished` as ReplicaResult::finished.
  void end_run(SimTime end, std::int64_t iterations, bool finished) {
    result.iterations = iterations;
    result.wall_time = end;
    result.finished = finished;
  }
};

}  // namespace ckptsim
