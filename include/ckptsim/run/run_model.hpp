#pragma once
// The run model: one replica of a whole training run under failures, as a discrete-event
// simulation that advances in closed form between events (docs/models.md, "Run model").
//
// Timeline of a replica. Training segments alternate with recovery episodes:
//   segment   from a state n0 (iterations done) at time t0, iterations and checkpoints follow
//             the strategy's periodic pattern (segment_clock.hpp) until the next failure or
//             the end of the run (run.duration of wall time, or run.iterations of progress).
//   failure   machine j fails, software (processes restart in place; CPU memory survives) or
//             hardware (j needs a replacement; its CPU memory starts empty). Checkpoints not
//             complete at that instant, and uploads still in flight, are lost.
//   episode   detection D after the latest failure; wait for every replacement requested in
//             the episode (a free standby machine is ready at once, and the pool is refilled
//             one replacement delay later; otherwise replacement delay after detection);
//             retrieval from the best tier holding a complete checkpoint; restart warm-up R.
//             A failure during any of these phases (another failure's recovery included)
//             starts the episode again from its detection; time already spent stays spent.
//   tiers     memory strategies: recoverable from CPU memory unless, for some machine i,
//             every holder of i's checkpoint was replaced since the latest complete in-memory
//             checkpoint (erasure-coded: more than p machines of some coding group) (a replaced machine's replicas come back only with the next completed
//             checkpoint). Then `local` if no machine was replaced in the episode, else `peer`.
//             Otherwise the latest persistent checkpoint (`storage`), else the initial state
//             (`scratch`, nothing to retrieve). Storage strategies: `storage` or `scratch`.
//             After a storage recovery, CPU memory holds nothing usable until the next
//             in-memory checkpoint completes.
//             Multi-level (level_clock.hpp): `local` from level 1 unless a machine lost its
//             CPU memory since the latest level-1 completion, else `peer` from level 2 unless
//             every holder of some machine's partner copies was replaced since the latest
//             level-2 completion, else `storage` from level 3, else `scratch`.
//   migration a predicted hardware failure (failures.migration, failure/migration.hpp) with a
//             standby free at its time ends the segment at the last iteration boundary before
//             it; the job pauses P (breakdown.migration) and resumes from that boundary with
//             nothing rolled back and no CPU memory lost; the standby pool gets a machine back
//             one replacement delay after the boundary. A failure during the pause is taken at
//             its end. With no standby free the failure happens as any other.
//   elastic   failures.elastic (failure/elastic.hpp): an episode whose lost machines find no
//             standby may restart without their data-parallel units instead of waiting (the
//             reshard counts as retrieval); until every replacement has arrived the job trains at
//             (N - out)/N of its rate (the rest is degraded), then at the next iteration boundary
//             it stops, reshards back and restarts (retrieval, restart), nothing rolled back.
//   adaptive  strategy.adaptive_interval: before each segment the persistent period is set by
//             the policy of interval_policy.hpp from the failures seen so far.
// Accounting (all int64 ns, so the parts add up to the wall time exactly):
//   wall = compute + checkpoint_stall + degraded + detection + replacement_wait + retrieval + restart
//          + migration,
//   training = final progress x T (+ the compute of a final partial iteration),
//   lost_progress = compute - training.
//   ETTR = training / wall.
// A run.iterations target that failures keep out of reach stops at 100x its failure-free time,
// or at 100 years (ReplicaResult::finished = false), so no replica runs forever; every instant
// of a replica lies within the run's worst-case horizon (run_horizon.hpp), which the strategy
// costs check against the clock before any replica runs. The work a run asks for (failure
// events, memory) is estimated and limited by its caller (work_estimate.hpp, run_checks.hpp).
// Domain failures take machines [first, first+count) down at one instant: each of them, when
// hardware, loses its CPU memory and needs a replacement (a standby each while any is free).
// Causes (failure_causes()): an episode phase started by a failure uses that failure's cause's
// detection time; the restart warm-up is the longest restart of the episode's causes.
// Time lost by cause: each phase of an episode (from a failure until the next failure or the
// restart) counts to the cause of the failure that started it; the work rolled back (lineage at
// the failure minus that of the state recovered) counts to the episode's first failure.
// Time lost by tier: the episode's rolled-back work and downtime count to the tier it recovered
// from (or would have, when the run ended during it).
//   Wasted time of an episode (GEMINI's metric, Eq. 1) = work (compute + stall) done since the
//   recovered state was captured + retrieval time spent in the episode; per failure = the
//   replica's total over its failures.
#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/run/recovery/machines.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

class MechanismPlan;  // run/recovery/recovery_mechanism.hpp

enum class AdvanceMode { closed_form, exact };

enum class RecoveryTier { local = 0, peer = 1, storage = 2, scratch = 3 };
constexpr std::array<const char*, 4> kRecoveryTierNames{"local", "peer", "storage", "scratch"};

struct TimeBreakdown {
  SimTime training;
  SimTime checkpoint_stall;
  SimTime lost_progress;
  SimTime detection;
  SimTime replacement_wait;
  SimTime retrieval;
  SimTime restart;
  SimTime degraded;  ///< time beyond T of steps run slower than healthy (goodput.hpp)
  SimTime migration;  ///< live-migration pauses (failure/migration.hpp)
  [[nodiscard]] SimTime total() const {
    return training + checkpoint_stall + lost_progress + detection + replacement_wait + retrieval + restart +
           degraded + migration;
  }
};

struct ReplicaResult {
  SimTime wall_time;
  std::int64_t iterations = 0;  ///< net progress at the end
  /// False when a run.iterations target was not reached within 100x its failure-free time (or 100 years).
  bool finished = true;
  std::int64_t software_failures = 0;
  std::int64_t hardware_failures = 0;
  std::int64_t machines_replaced = 0;         ///< machines that lost CPU memory (hardware, per machine)
  bool live_migration = false;                ///< failures.migration modelled (its columns are written)
  bool elastic = false;                       ///< failures.elastic modelled (its columns are written)
  std::int64_t migrations = 0;                ///< predicted failures averted by a live migration
  std::int64_t elastic_shrinks = 0;           ///< restarts at a smaller size instead of waiting (failure/elastic.hpp)
  std::int64_t elastic_grows = 0;             ///< planned stops to grow back to N machines
  /// Recovery episodes begun (completed ones plus one the run's end cut short): MTTR's divisor.
  std::int64_t episodes = 0;
  std::array<std::int64_t, 4> recoveries{};  ///< by RecoveryTier
  std::array<SimTime, 4> lost_by_tier{};     ///< rolled-back work + downtime, by RecoveryTier
  std::vector<std::int64_t> failures_by_cause;  ///< indexed like causes
  std::vector<SimTime> lost_by_cause;           ///< rolled-back work + downtime, indexed like causes
  std::shared_ptr<const std::vector<FailureCause>> causes;
  SimTime wasted_time;                       ///< summed over episodes
  /// The persistent period in force at the end, in iterations (remote-periodic: its checkpoint
  /// period; memory tiers: the persistent track; 0 = none). Moves with strategy.adaptive_interval.
  std::int64_t final_persistent_every = 0;
  /// Just-in-time (tier just_in_time): recoveries from the surviving replicas' save, and those
  /// that fell back to the periodic checkpoint (or the initial state) because every replica of
  /// some shard failed in the episode.
  bool just_in_time = false;
  /// Restart tiers (failures.restart_tiers, failure/restart_tiers.hpp): completed restarts by
  /// RestartTier (in-process, in-job, new job); per failure under per-step fault tolerance.
  bool restart_tiers = false;
  std::int64_t jit_recoveries = 0;
  std::int64_t jit_fallbacks = 0;
  std::array<std::int64_t, 3> restarts_by_tier{};
  TimeBreakdown breakdown;
  [[nodiscard]] std::int64_t failures() const { return software_failures + hardware_failures; }
  [[nodiscard]] double ettr() const {
    return wall_time.ns() > 0 ? static_cast<double>(breakdown.training.ns()) / static_cast<double>(wall_time.ns()) : 0.0;
  }
  /// Mean wasted time per failure (s); 0 with no failure.
  [[nodiscard]] double wasted_time_per_failure_s() const {
    return failures() > 0 ? wasted_time.seconds() / static_cast<double>(failures()) : 0.0;
  }
};

/// Everything a replica needs, prepared once per run and shared read-only by threads.
class RunModel {
 public:
  RunModel(const Scenario& scenario, StrategyCosts costs);
  [[nodiscard]] ReplicaResult simulate(std::uint64_t replica, AdvanceMode mode = AdvanceMode::closed_form) const;
  [[nodiscard]] const StrategyCosts& costs() const { return costs_; }
  [[nodiscard]] const Scenario& scenario() const { return scenario_; }
  [[nodiscard]] const Placement* placement() const { return has_placement_ ? &placement_ : nullptr; }

 private:
  void check_trace_causes() const;

  Scenario scenario_;
  StrategyCosts costs_;
  bool has_placement_ = false;
  Placement placement_;
  HolderIndex holder_index_;
  std::vector<TraceRecord> trace_;
  std::shared_ptr<const std::vector<FailureCause>> causes_;
  /// The recovery mechanisms the scenario models, prepared once (run/recovery/recovery_mechanism.hpp).
  std::vector<std::shared_ptr<const MechanismPlan>> mechanisms_;
};

}  // namespace ckptsim
