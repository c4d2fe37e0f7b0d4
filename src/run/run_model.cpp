// The replica simulation of run_model.hpp.
#include "ckptsim/run/run_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/failure/elastic.hpp"
#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/migration.hpp"
#include "ckptsim/failure/restart_tiers.hpp"
#include "ckptsim/run/recovery/replica_state.hpp"
#include "ckptsim/run/recovery/restart_model.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/run/group_outages.hpp"
#include "ckptsim/run/interval_policy.hpp"
#include "ckptsim/run/level_clock.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/segment_clock.hpp"

namespace ckptsim {
namespace {

template <typename Clock>
class ReplicaSimulation {
 public:
  ReplicaSimulation(const ReplicaInputs& in, std::uint64_t replica)
      : s_(in.scenario),
        c_(in.costs),
        pattern_(SegmentPattern::from_costs(in.costs)),
        st_(in, replica),
        restarts_(in.scenario, in.costs, *in.causes),
        elastic_(in.elastic) {
    const Scenario& s = in.scenario;
    if (silent_corruption_modelled(s.failures)) {
      onsets_.emplace(s.failures.silent_corruption, s.cluster.machines, s.run.seed, replica);
      next_onset_ = onsets_->next().first;
    }
    if (migration_modelled(s.failures)) {
      migration_pause_ = in.migration_pause;
      st_.result.live_migration = true;
    }
    if (elastic_ != nullptr) {
      st_.result.elastic = true;
      unit_out_.assign(elastic_->unit_machines.size(), 0);
    }
    if (c_.tier == CheckpointTier::just_in_time) {
      st_.result.just_in_time = true;
      jit_positions_ = std::max(1, s.cluster.machines / std::max(1, c_.replica_groups));
      jit_failed_.assign(static_cast<std::size_t>(jit_positions_), 0);
      jit_holder_lost_.assign(static_cast<std::size_t>(s.cluster.machines), 0);
    }
    st_.result.restart_tiers = restarts_.tiered();
  }

  ReplicaResult run() {
    if (c_.tier == CheckpointTier::per_step) return run_per_step();
    SimTime t;
    std::int64_t n0 = 0;
    SimTime lineage0;
    // An iteration target that failures keep out of reach (e.g. no checkpoints and a high
    // failure rate) must not run forever: such a replica stops at 100x its failure-free time
    // (or 100 years) and is reported as unfinished.
    // run.duration, or for run.iterations 100x the failure-free time (at most 100 years): the
    // end of the run_horizon.hpp check, so every instant of the replica fits the clock.
    const SimTime end_time = run_end_bound(s_, Clock(pattern_, 0).time_to_complete(s_.run.iterations.value_or(0)));
    for (;;) {
      if (c_.adaptive_interval) adapt_persistent_period(t, end_time);
      Clock clock(pattern_, n0);
      // When training alone would end the run.
      SimTime target_end = end_time;
      // Healthy work to the iteration target, when it is reached first (stragglers stretch it
      // into more wall time: fault_model.hpp).
      std::optional<SimTime> target_work;
      // Asked first as completed(), which stays in the clock: the time to complete the
      // remaining iterations may not (an adaptive persistent period can put a long stall at
      // every block once the run has started; fuzz/fuzz_time_edges finding), and then the
      // run's end comes first anyway. Work never exceeds wall time, so a target out of reach
      // at full speed stays out of reach.
      if (s_.run.iterations && clock.completed(end_time - t) >= *s_.run.iterations - n0) {
        const SimTime w = clock.time_to_complete(*s_.run.iterations - n0);
        const SimTime wall = st_.rate.wall_after(t, w);
        if (wall <= end_time) {
          target_end = wall;
          target_work = w;
        }
      }
      skip_undone_detections(clock, t, lineage0);
      if (st_.rate.machines_out() > 0) {
        const Resize g = grow(clock, t, n0, lineage0, end_time, target_end);
        if (g == Resize::run_ended) break;
        if (g == Resize::done) continue;
      }
      if (!st_.failures.any() || st_.failures.next().time >= target_end) {
        const SimTime e = target_work ? *target_work : st_.rate.work(t, target_end);
        register_onsets(clock, t, target_end, lineage0);
        st_.result.breakdown.degraded += (target_end - t) - e;
        const std::int64_t done = clock.completed(e);
        const SimTime stall = clock.stall(e);
        st_.compute += e - stall;
        st_.result.breakdown.checkpoint_stall += stall;
        st_.result.iterations = n0 + done;
        // The compute of a partial final iteration counts as training (progress is continuous):
        // the segment's compute minus that of its `done` whole iterations (T each).
        st_.partial_training = (e - stall) - c_.iteration_time * done;
        st_.result.wall_time = target_end;
        st_.result.finished = !s_.run.iterations || st_.result.iterations >= *s_.run.iterations;
        break;
      }
      if (st_.failures.next().predicted) {
        const Migration m = migrate(clock, st_.failures.next(), t, n0, lineage0, end_time);
        if (m == Migration::run_ended) break;
        if (m == Migration::done) continue;
      }
      // Train until the failure.
      const FailureEvent f = st_.failures.next();
      const SimTime e = st_.rate.work(t, f.time);
      st_.result.breakdown.degraded += (f.time - t) - e;
      const SimTime stall = clock.stall(e);
      st_.compute += e - stall;
      st_.result.breakdown.checkpoint_stall += stall;
      register_onsets(clock, t, f.time, lineage0);
      note_completed_checkpoints(clock, e, lineage0);
      const SimTime lineage_at_failure = lineage0 + e;
      // Just-in-time: the state at the start of the interrupted minibatch (the last whole
      // iteration), which the surviving replicas can save.
      if (c_.tier == CheckpointTier::just_in_time) {
        const std::int64_t done = clock.completed(e);
        jit_ = Version{n0 + done, lineage0 + clock.time_to_complete(done)};
      }
      // Recovery episode.
      const auto outcome = recover(f, end_time);
      const SimTime rolled_back = lineage_at_failure - outcome.target.lineage;
      st_.result.wasted_time += rolled_back + outcome.retrieval_spent;
      st_.cause_lost(f.cause) += rolled_back;
      st_.result.lost_by_tier[static_cast<std::size_t>(outcome.tier)] += rolled_back + outcome.downtime;
      if (outcome.run_ended) {
        st_.result.iterations = outcome.target.iteration;
        st_.result.wall_time = end_time;
        st_.result.finished = !s_.run.iterations;
        break;
      }
      t = outcome.resume_at;
      n0 = outcome.target.iteration;
      lineage0 = outcome.target.lineage;
      if (s_.run.iterations && n0 >= *s_.run.iterations) {
        st_.result.iterations = n0;
        st_.result.wall_time = t;
        break;
      }
    }
    st_.result.final_persistent_every = c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time
                                         ? pattern_.every
                                         : pattern_.persistent_every;
    auto& b = st_.result.breakdown;
    b.training = c_.iteration_time * st_.result.iterations + st_.partial_training;
    b.lost_progress = st_.compute - b.training;
    return st_.result;
  }

 private:
  struct Outcome {
    Version target;
    SimTime retrieval_spent;
    SimTime resume_at;
    bool run_ended = false;
    RecoveryTier tier = RecoveryTier::scratch;
    SimTime downtime;  ///< from the first failure until the restart (or the run's end)
  };

  /// Per-step fault tolerance (TorchFT; group_outages.hpp, docs/models.md): the job never
  /// stops for a failure. A failure of machine j takes its replica group (j / (N / G)) out of the
  /// quorum; the step in flight is discarded by every group (its work is lost progress) and
  /// every group waits the failure's detection (the collective timeout) before the next quorum;
  /// then the others train on while the group waits for its replacement (hardware: a standby at
  /// once if free), restarts (warm-up R) and heals (copies the state from a live peer), then
  /// rejoins. No checkpoint is needed while one group is alive.
  ReplicaResult run_per_step() {
    const int groups = c_.replica_groups;
    const int per_group = std::max(1, s_.cluster.machines / groups);
    GroupOutages out(groups, c_.min_groups);
    const SimTime t_iter = c_.iteration_time;
    const SimTime end_time = run_end_bound(s_, t_iter * s_.run.iterations.value_or(0));
    const std::int64_t target = s_.run.iterations.value_or(0);
    SimTime t;
    SimTime work;  // healthy-equivalent work kept so far (progress = work / T)
    auto& b = st_.result.breakdown;
    const auto work_over = [&](SimTime from, SimTime to) { return out.work(from, to, st_.rate.stragglers().windows(from, to), st_.rate.stragglers().speed()); };
    for (;;) {
      SimTime stop = end_time;
      const bool failure = st_.failures.any() && st_.failures.next().time < end_time;
      // A failure during the wait of the previous one is handled when the wait ends.
      if (failure) stop = std::max(t, st_.failures.next().time);
      SimTime w = work_over(t, stop);
      bool reached = false;
      if (s_.run.iterations && (work + w).ns() / t_iter.ns() >= target) {
        // The wall time at which the target's work is done: the first instant with enough work
        // (work is monotone in time: bisection in whole ns).
        const SimTime need = t_iter * target - work;
        std::int64_t lo = t.ns(), hi = stop.ns();
        while (lo < hi) {
          const std::int64_t mid = lo + (hi - lo) / 2;
          if (work_over(t, SimTime::from_ns(mid)) >= need) hi = mid; else lo = mid + 1;
        }
        stop = SimTime::from_ns(lo);
        w = need;
        reached = true;
      }
      b.degraded += (stop - t) - w;
      st_.compute += w;
      work += w;
      if (reached || !failure) {
        st_.result.iterations = work.ns() / t_iter.ns();
        st_.result.wall_time = stop;
        st_.result.finished = !s_.run.iterations || st_.result.iterations >= target;
        st_.partial_training = work - t_iter * st_.result.iterations;
        break;
      }
      const FailureEvent f = st_.failures.next();
      if (f.predicted && st_.standbys.take(stop)) {
        // Live migration (failure/migration.hpp): the machine's group leaves the quorum at the
        // step boundary and rejoins on the standby P later; no step is discarded, nobody waits.
        ++st_.result.migrations;
        const int g = std::min(out.groups() - 1, f.machine / per_group);
        out.take_out(g, stop, saturating_add(stop, migration_pause_));
        st_.failures.pull();
        t = stop;
        continue;
      }
      apply_per_step_failure(f, out, per_group);
      // The step in flight is discarded: progress falls back to the last whole iteration.
      const SimTime kept = t_iter * (work.ns() / t_iter.ns());
      st_.cause_lost(f.cause) += work - kept;
      st_.result.wasted_time += work - kept;
      work = kept;
      // Every group waits (no work, ends the run if it comes first): until the failed step's
      // collective errors out (the failure's detection) or times out, and the lighthouse has
      // dropped the failed group (heartbeat timeout), whichever is later.
      const SimTime resumed = std::max(stop, std::min(end_time, saturating_add(f.time, per_step_wait(f))));
      b.detection += resumed - stop;
      st_.cause_lost(f.cause) += resumed - stop;
      t = resumed;
      if (resumed == end_time) {
        st_.result.iterations = work.ns() / t_iter.ns();
        st_.result.wall_time = end_time;
        st_.result.finished = !s_.run.iterations;
        break;
      }
    }
    b.training = t_iter * st_.result.iterations + st_.partial_training;
    b.lost_progress = st_.compute - b.training;
    return st_.result;
  }

  /// Per-step fault tolerance: how long after failure f every group waits before the next
  /// quorum, max(heartbeat_timeout, min(detection, step_timeout)) (run/strategies/torchft.cpp).
  SimTime per_step_wait(const FailureEvent& f) const {
    return std::max(c_.heartbeat_timeout, std::min(restarts_.detection(f), c_.step_timeout));
  }

  /// A failure under per-step fault tolerance: its groups leave the quorum until healed.
  void apply_per_step_failure(const FailureEvent& f, GroupOutages& out, int per_group) {
    st_.failures.pull();
    ++st_.result.episodes;
    ++st_.result.failures_by_cause[static_cast<std::size_t>(f.cause)];
    const SimTime detected = saturating_add(f.time, per_step_wait(f));
    SimTime ready = detected;
    bool spare = true;
    if (f.type == FailureType::hardware) {
      ++st_.result.hardware_failures;
      st_.episode.replacements_ready = SimTime::zero();
      for (int j = f.machine; j < f.machine + f.machines; ++j) spare = st_.replace_machine(j, f.time, detected) && spare;
      ready = std::max(ready, st_.episode.replacements_ready);
    } else {
      ++st_.result.software_failures;
    }
    const auto [tier, restart] = restarts_.restart(f, spare);
    if (restarts_.tiered()) ++st_.result.restarts_by_tier[static_cast<std::size_t>(tier)];
    const SimTime rejoin = saturating_add(saturating_add(ready, restart), c_.heal);
    const int first = std::min(out.groups() - 1, f.machine / per_group);
    const int last = std::min(out.groups() - 1, (f.machine + f.machines - 1) / per_group);
    for (int g = first; g <= last; ++g) out.take_out(g, f.time, rejoin);
    ++st_.result.recoveries[static_cast<std::size_t>(RecoveryTier::peer)];
  }

  /// The adaptive policy (run/interval_policy.hpp): Daly's period for the failures seen by
  /// wall time t. remote-periodic: every failure, its checkpoint stall, in iterations;
  /// multi-level: the failures no memory level could absorb, the level-3 cost above level 2,
  /// in multiples of the level-2 period.
  /// The period is capped at the run's end `end` (a longer one never checkpoints within it).
  void adapt_persistent_period(SimTime t, SimTime end) {
    if (c_.tier == CheckpointTier::storage) {
      pattern_.every = adaptive_period_iterations(c_.stall, c_.iteration_time, 1, st_.result.failures(), t,
                                                  c_.adaptive_prior_mtbf, end);
    } else if (c_.tier == CheckpointTier::multi_level && pattern_.persistent_every > 0) {
      pattern_.persistent_every =
          adaptive_period_iterations(c_.persistent_stall - c_.partner_stall, c_.iteration_time, c_.partner_every_iterations,
                                     st_.persistent_recoveries, t, c_.adaptive_prior_mtbf, end);
    }
  }

  void note_completed_checkpoints(const Clock& clock, SimTime e, SimTime lineage0) {
    if (c_.tier == CheckpointTier::multi_level) {
      note_completed_levels(clock, e, lineage0);
    } else if (c_.tier == CheckpointTier::memory) {
      if (auto ck = clock.latest_checkpoint(e)) {
        st_.states.memory = Version{ck->version, lineage0 + ck->captured_at};
        st_.memory.refill();
      }
      if (auto ck = clock.latest_persistent(e)) st_.states.persistent = Version{ck->version, lineage0 + ck->captured_at};
    } else if (c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time) {
      if (auto ck = clock.latest_checkpoint(e)) st_.states.persistent = Version{ck->version, lineage0 + ck->captured_at};
    }
  }

  /// Multi-level: the latest checkpoint of each level that completed in this segment. A
  /// level-1 (or higher) completion restores every machine's local copy; a level-2 (or higher)
  /// completion refills the partner copies.
  void note_completed_levels(const Clock& clock, SimTime e, SimTime lineage0) {
    if constexpr (requires { clock.latest_by_level(e); }) {
      const LatestByLevel latest = clock.latest_by_level(e);
      if (const auto& ck = latest[0]) {
        st_.states.memory = Version{ck->version, lineage0 + ck->captured_at};
        st_.states.local_lost = false;
      }
      if (const auto& ck = latest[1]) {
        st_.states.partner = Version{ck->version, lineage0 + ck->captured_at};
        st_.memory.refill();
      }
      if (const auto& ck = latest[2]) st_.states.persistent = Version{ck->version, lineage0 + ck->captured_at};
    }
  }

  enum class Migration { not_possible, done, run_ended };

  /// Live migration (failure/migration.hpp) of the predicted failure f, which the segment from t
  /// (state n0, lineage0) reaches: the segment ends at the last iteration boundary before f, the
  /// job pauses P and resumes there (t, n0, lineage0 moved). Nothing changes without a free standby.
  template <typename C>
  Migration migrate(const C& clock, const FailureEvent& f, SimTime& t, std::int64_t& n0, SimTime& lineage0,
                    SimTime end_time) {
    const std::int64_t done = clock.completed(st_.rate.work(t, f.time));
    const SimTime e = clock.time_to_complete(done);
    const SimTime boundary = std::min(f.time, st_.rate.wall_after(t, e));
    if (!st_.standbys.take(boundary)) return Migration::not_possible;
    stop_at_boundary(clock, t, boundary, e, lineage0);
    const SimTime resume = std::min(end_time, saturating_add(boundary, migration_pause_));
    st_.result.breakdown.migration += resume - boundary;
    ++st_.result.migrations;
    st_.failures.pull();  // the predicted failure was averted
    return resume_after_pause(resume, done, e, t, n0, lineage0, end_time) ? Migration::done : Migration::run_ended;
  }

  /// A planned stop (a migration, an elastic grow): the segment from t ends at `boundary`, an
  /// iteration boundary reached after work e; its training, stalls and checkpoints are counted.
  template <typename C>
  void stop_at_boundary(const C& clock, SimTime t, SimTime boundary, SimTime e, SimTime lineage0) {
    st_.result.breakdown.degraded += (boundary - t) - e;
    const SimTime stall = clock.stall(e);
    st_.compute += e - stall;
    st_.result.breakdown.checkpoint_stall += stall;
    register_onsets(clock, t, boundary, lineage0);
    note_completed_checkpoints(clock, e, lineage0);
  }

  /// After a planned stop's pause until `resume`: failures that fall in the pause are taken at its
  /// end, and training resumes from the boundary (`done` more iterations, work e) with nothing
  /// rolled back. False when the pause reaches the run's end (the result is then final).
  bool resume_after_pause(SimTime resume, std::int64_t done, SimTime e, SimTime& t, std::int64_t& n0, SimTime& lineage0,
                          SimTime end_time) {
    register_downtime_onsets(resume);
    st_.failures.pause_until(resume);
    n0 += done;
    lineage0 = lineage0 + e;
    t = resume;
    if (resume < end_time) return true;
    st_.result.iterations = n0;
    st_.result.wall_time = end_time;
    st_.result.finished = !s_.run.iterations;
    return false;
  }

  enum class Resize { not_yet, done, run_ended };

  /// Elastic restart (failure/elastic.hpp): once every replacement of the units out has arrived,
  /// the segment from t ends at the first iteration boundary at or after that; the job reshards
  /// back to N machines and restarts (t, n0, lineage0 moved), nothing rolled back. Not yet when
  /// a failure or the segment's end `target_end` comes first.
  template <typename C>
  Resize grow(const C& clock, SimTime& t, std::int64_t& n0, SimTime& lineage0, SimTime end_time, SimTime target_end) {
    if (grow_at_ >= target_end || (st_.failures.any() && st_.failures.next().time <= grow_at_)) return Resize::not_yet;
    std::int64_t done = 0;
    SimTime e;
    if (grow_at_ > t) {
      const SimTime by_arrival = st_.rate.work(t, grow_at_);
      done = clock.completed(by_arrival);
      e = clock.time_to_complete(done);
      if (e < by_arrival) e = clock.time_to_complete(++done);
    }
    const SimTime boundary = st_.rate.wall_after(t, e);
    if (boundary >= target_end || (st_.failures.any() && st_.failures.next().time < boundary)) return Resize::not_yet;
    stop_at_boundary(clock, t, boundary, e, lineage0);
    // The pause: the reshard back to N machines (retrieval), then the restart.
    const SimTime resharded = std::min(end_time, saturating_add(boundary, elastic_->grow_reshard));
    const SimTime resume = std::min(end_time, saturating_add(resharded, grow_restart_));
    st_.result.breakdown.retrieval += resharded - boundary;
    st_.result.breakdown.restart += resume - resharded;
    st_.cause_lost(shrink_cause_) += resume - boundary;
    st_.result.lost_by_tier[static_cast<std::size_t>(shrink_tier_)] += resume - boundary;
    ++st_.result.elastic_grows;
    std::fill(unit_out_.begin(), unit_out_.end(), 0);
    st_.rate.set_machines_out(0);
    grow_at_ = SimTime::zero();
    grow_restart_ = SimTime::zero();
    return resume_after_pause(resume, done, e, t, n0, lineage0, end_time) ? Resize::done : Resize::run_ended;
  }

  /// Elastic restart: the episode restarted without the units of its machines that found no
  /// standby; the job grows back once every replacement of the units out has arrived.
  void shrink(int machines_out, RecoveryTier tier, int cause) {
    for (int j : st_.episode.unplaced) unit_out_[static_cast<std::size_t>(elastic_->unit_of[static_cast<std::size_t>(j)])] = 1;
    grow_at_ = std::max(grow_at_, st_.episode.replacements_ready);
    if (machines_out == st_.rate.machines_out()) return;  // every unit was out already
    st_.rate.set_machines_out(machines_out);
    grow_restart_ = std::max(grow_restart_, st_.episode.restart);
    shrink_tier_ = tier;
    shrink_cause_ = cause;
    ++st_.result.elastic_shrinks;
  }

  /// Elastic restart: the machines out if the job restarted now without the units of this
  /// episode's machines that found no standby (those already out count once).
  int machines_out_if_shrunk() const {
    int out = st_.rate.machines_out();
    std::vector<char> seen;
    for (int j : st_.episode.unplaced) {
      const auto u = static_cast<std::size_t>(elastic_->unit_of[static_cast<std::size_t>(j)]);
      if (unit_out_[u] != 0) continue;
      if (seen.empty()) seen.assign(unit_out_.size(), 0);
      if (seen[u] != 0) continue;
      seen[u] = 1;
      out += elastic_->unit_machines[u];
    }
    return out;
  }

  /// Counts the failure and, for hardware, empties its machines and requests their replacements.
  void apply_failure(const FailureEvent& f) {
    st_.failures.pull();
    if (f.corruption) take_corruption(*f.corruption);
    mark_jit_positions(f);
    ++st_.result.failures_by_cause[static_cast<std::size_t>(f.cause)];
    bool spare = true;
    if (f.type == FailureType::software) {
      ++st_.result.software_failures;
    } else {
      ++st_.result.hardware_failures;
      const SimTime detected = f.time + restarts_.detection(f);
      for (int j = f.machine; j < f.machine + f.machines; ++j) spare = st_.replace_machine(j, f.time, detected) && spare;
    }
    // The episode restarts once, at the highest tier and latency among its failures.
    const auto [tier, restart] = restarts_.restart(f, spare);
    st_.episode.restart = std::max(st_.episode.restart, restart);
    st_.episode.restart_tier = std::max(st_.episode.restart_tier, tier);
  }

  /// Silent corruptions (fault_model.hpp): registers the onsets before `until` that fall in the
  /// training segment starting at t, with the newest states captured before each (candidates
  /// completed by the onset; st_.states.memory / st_.states.persistent still hold the segment's starting values).
  template <typename C>
  void register_onsets(const C& clock, SimTime t, SimTime until, SimTime lineage0) {
    // Inline for the common case (no onset before `until`; none at all without silent
    // corruption): the run model asks at every failure.
    if (next_onset_ < until) register_onsets_before(clock, t, until, lineage0);
  }

  template <typename C>
  void register_onsets_before(const C& clock, SimTime t, SimTime until, SimTime lineage0) {
    while (next_onset_ < until) {
      Corruption c;
      c.id = onsets_seen_++;
      if (next_onset_ >= t) {
        c.valid = true;
        const SimTime e = st_.rate.work(t, next_onset_);
        c.lineage = lineage0 + e;
        const auto version = [&](const std::optional<SegmentCheckpoint>& ck, const std::optional<Version>& before) {
          return ck ? std::optional<Version>(Version{ck->version, lineage0 + ck->captured_at}) : before;
        };
        if (c_.tier == CheckpointTier::memory) {
          c.memory_clean = version(clock.latest_checkpoint(e), st_.states.memory);
          c.persistent_clean = version(clock.latest_persistent(e), st_.states.persistent);
        } else if (c_.tier == CheckpointTier::storage || c_.tier == CheckpointTier::just_in_time) {
          c.persistent_clean = version(clock.latest_checkpoint(e), st_.states.persistent);
        } else if (c_.tier == CheckpointTier::multi_level) {
          c.persistent_clean = version(clock.latest_persistent(e), st_.states.persistent);
        }
      }
      corruptions_.push_back(c);
      next_onset_ = onsets_->next().first;
    }
  }

  /// Onsets before `until` while the job is down: no computation to corrupt.
  void register_downtime_onsets(SimTime until) {
    while (next_onset_ < until) {
      corruptions_.push_back(Corruption{onsets_seen_++, false, SimTime::zero(), std::nullopt, std::nullopt});
      next_onset_ = onsets_->next().first;
    }
  }

  /// True when the pending failure detects a corruption that did nothing (started while the
  /// job was down, or rolled back since): such a detection is dropped.
  bool pending_is_undone() const {
    if (!st_.failures.any() || !st_.failures.next().corruption) return false;
    return corruptions_.empty() || corruptions_.front().id != *st_.failures.next().corruption || !corruptions_.front().valid;
  }

  void drop_pending() {
    if (!corruptions_.empty() && corruptions_.front().id == *st_.failures.next().corruption) corruptions_.pop_front();
    st_.failures.pull();
  }

  template <typename C>
  void skip_undone_detections(const C& clock, SimTime t, SimTime lineage0) {
    while (st_.failures.any() && st_.failures.next().corruption) {
      register_onsets(clock, t, st_.failures.next().time, lineage0);
      if (!pending_is_undone()) return;
      drop_pending();
    }
  }

  void skip_undone_detections_while_down(SimTime until) {
    while (st_.failures.any() && st_.failures.next().corruption && st_.failures.next().time < until) {
      register_downtime_onsets(st_.failures.next().time);
      if (!pending_is_undone()) return;
      drop_pending();
    }
  }

  /// A detected corruption binds the episode's recovery to a state captured before it (the
  /// earliest such corruption when several are detected in one episode).
  void take_corruption(std::int64_t id) {
    if (corruptions_.empty() || corruptions_.front().id != id) return;
    const Corruption c = corruptions_.front();
    corruptions_.pop_front();
    if (c.valid && (!episode_corruption_ || c.lineage < episode_corruption_->lineage)) episode_corruption_ = c;
  }

  /// After a recovery to `target`: states newer than the corruption it undid are corrupt, and
  /// corruptions after the recovered state are undone.
  void after_recovery(const Version& target, SimTime resumed) {
    if (episode_corruption_) {
      st_.states.persistent = episode_corruption_->persistent_clean;
      st_.states.partner.reset();
      episode_corruption_.reset();
    }
    for (auto& c : corruptions_)
      if (c.valid && c.lineage >= target.lineage) c.valid = false;
    register_downtime_onsets(resumed);
  }

  std::pair<Version, RecoveryTier> choose_target() const {
    if (episode_corruption_) return choose_clean();
    if (jit_recovery()) return {*jit_, RecoveryTier::storage};
    if (c_.tier == CheckpointTier::multi_level) return choose_level();
    if (c_.tier == CheckpointTier::memory && st_.states.memory && st_.memory.recoverable())
      return {*st_.states.memory, st_.memory.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
    if (st_.states.persistent) return {*st_.states.persistent, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  /// Just-in-time: the episode's failures left a replica of every shard, and no corruption
  /// forces a rollback past the interrupted minibatch.
  bool jit_recovery() const { return c_.tier == CheckpointTier::just_in_time && jit_ && !jit_lost_ && !episode_corruption_; }

  /// Just-in-time: machine j holds shard position j mod (N / G); the position is lost once all G
  /// of its holders, G distinct machines, failed in this episode (their GPU state is gone). A
  /// machine that fails again within the episode is a holder already lost: counted once.
  void mark_jit_positions(const FailureEvent& f) {
    if (c_.tier != CheckpointTier::just_in_time) return;
    for (int j = f.machine; j < f.machine + f.machines; ++j) {
      auto& lost = jit_holder_lost_[static_cast<std::size_t>(j)];
      if (lost != 0) continue;
      lost = 1;
      jit_touched_.push_back(j);
      if (++jit_failed_[static_cast<std::size_t>(j % jit_positions_)] >= c_.replica_groups) jit_lost_ = true;
    }
  }

  void reset_jit_positions() {
    for (int j : jit_touched_) {
      jit_holder_lost_[static_cast<std::size_t>(j)] = 0;
      jit_failed_[static_cast<std::size_t>(j % jit_positions_)] = 0;
    }
    jit_touched_.clear();
    jit_lost_ = false;
  }

  /// After a detected corruption: the newest state captured before it that still exists; an
  /// in-memory one only while it is still the newest in memory.
  std::pair<Version, RecoveryTier> choose_clean() const {
    const Corruption& c = *episode_corruption_;
    if (c_.tier == CheckpointTier::memory && c.memory_clean && st_.states.memory && st_.states.memory->iteration == c.memory_clean->iteration &&
        st_.states.memory->lineage == c.memory_clean->lineage && st_.memory.recoverable())
      return {*st_.states.memory, st_.memory.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
    if (c.persistent_clean) return {*c.persistent_clean, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  /// Multi-level: the cheapest level that survived. Level 1 (`local`) unless some machine lost
  /// its CPU memory since the latest level-1 completion; then level 2 (`peer`) unless every
  /// holder of some machine's partner copies was replaced since the latest level-2 completion;
  /// then level 3 (`storage`); else the initial state. The levels nest (a level-2 checkpoint is
  /// a level-1 one too), so the cheapest surviving level is also the newest surviving state.
  std::pair<Version, RecoveryTier> choose_level() const {
    if (st_.states.memory && !st_.states.local_lost) return {*st_.states.memory, RecoveryTier::local};
    if (st_.states.partner && st_.memory.recoverable()) return {*st_.states.partner, RecoveryTier::peer};
    if (st_.states.persistent) return {*st_.states.persistent, RecoveryTier::storage};
    return {Version{}, RecoveryTier::scratch};
  }

  SimTime retrieval_time(RecoveryTier tier) const {
    switch (tier) {
      case RecoveryTier::local: return c_.retrieval_local;
      case RecoveryTier::peer: return c_.retrieval_peer;
      case RecoveryTier::storage: return c_.retrieval_storage;
      case RecoveryTier::scratch: return SimTime::zero();
    }
    return SimTime::zero();
  }

  Outcome recover(const FailureEvent& first, SimTime end_time) {
    st_.episode.replacements_ready = SimTime::zero();
    st_.episode.restart = SimTime::zero();
    st_.episode.restart_tier = RestartTier::in_process;
    episode_corruption_.reset();
    st_.episode.unplaced.clear();
    reset_jit_positions();
    ++st_.result.episodes;
    apply_failure(first);
    SimTime start = first.time;
    int cause = first.cause;
    SimTime detection = restarts_.detection(first);
    SimTime retrieval_spent;
    auto& b = st_.result.breakdown;
    for (;;) {
      const auto [target, tier] = choose_target();
      const SimTime detected = start + detection;
      // Just-in-time: the surviving replicas save over [detected, saved), while the
      // replacements are on their way.
      const bool jit = jit_recovery();
      const SimTime saved = jit ? saturating_add(detected, c_.jit_save) : detected;
      // Saturating after a replacement that may never come (lognormal); the horizon check
      // (run_horizon.hpp) keeps every other sum of the episode within the clock.
      // Elastic restart (failure/elastic.hpp): shrink instead of waiting, when allowed and shorter.
      int shrunk_out = 0;
      SimTime reshard;
      if (elastic_ != nullptr && !st_.episode.unplaced.empty() && st_.episode.replacements_ready > saved) {
        // Machines whose units are out already cost nothing more: the job is that size, and its
        // grow waits for their replacements too.
        const int out = machines_out_if_shrunk();
        const int size = s_.cluster.machines - out;
        if (out == st_.rate.machines_out()) {
          shrunk_out = out;
        } else if (size >= elastic_->min_machines) {
          reshard = reshard_time(s_, size);
          const SimTime cost = saturating_add(saturating_add(reshard, elastic_->grow_reshard), st_.episode.restart);
          if (st_.episode.replacements_ready - saved > cost) shrunk_out = out;
          else reshard = SimTime::zero();
        }
      }
      const SimTime replaced = shrunk_out > 0 ? saved : std::max(saved, st_.episode.replacements_ready);
      const SimTime retrieved = saturating_add(replaced, saturating_add(retrieval_time(tier), reshard));
      const SimTime restarted = saturating_add(retrieved, st_.episode.restart);
      SimTime stop = restarted;
      bool interrupted = false;
      skip_undone_detections_while_down(std::min(restarted, end_time));
      if (st_.failures.any() && st_.failures.next().time < stop) {
        stop = st_.failures.next().time;
        interrupted = true;
      }
      const bool ends_run = end_time < stop;
      if (ends_run) stop = end_time;
      // The episode's phases follow one another from its start, start <= detected <= saved <=
      // replaced <= retrieved <= restarted, and stop >= start: each phase's part before stop is
      // the difference of its two ends cut at stop.
      const auto before_stop = [stop](SimTime from, SimTime to) { return std::min(to, stop) - std::min(from, stop); };
      b.detection += before_stop(start, detected);
      b.checkpoint_stall += before_stop(detected, saved);
      b.replacement_wait += before_stop(saved, replaced);
      const SimTime r = before_stop(replaced, retrieved);
      b.retrieval += r;
      retrieval_spent += r;
      b.restart += before_stop(retrieved, restarted);
      st_.cause_lost(cause) += stop - start;
      if (ends_run) return Outcome{target, retrieval_spent, stop, true, tier, stop - first.time};
      if (interrupted) {
        const FailureEvent next = st_.failures.next();
        apply_failure(next);
        start = next.time;
        cause = next.cause;
        detection = restarts_.detection(next);
        continue;
      }
      ++st_.result.recoveries[static_cast<std::size_t>(tier)];
      if (restarts_.tiered()) ++st_.result.restarts_by_tier[static_cast<std::size_t>(st_.episode.restart_tier)];
      if (shrunk_out > 0) shrink(shrunk_out, tier, first.cause);
      if (c_.tier == CheckpointTier::just_in_time) {
        ++(jit ? st_.result.jit_recoveries : st_.result.jit_fallbacks);
        if (jit) st_.states.persistent = target;  // the save is in storage now: a later fallback's newest
        jit_.reset();
      }
      after_recovery(target, restarted);
      if (tier == RecoveryTier::storage || tier == RecoveryTier::scratch) {
        st_.states.memory.reset();
        st_.states.partner.reset();
        ++st_.persistent_recoveries;
      }
      // Multi-level after a peer recovery: the replaced machines got their shards from their
      // partners into GPU memory but hold no level-1 copy of their own until the next level-1
      // checkpoint completes (note_completed_levels), so st_.states.local_lost stays set and a failure
      // before then recovers from a peer again (docs/models.md; GEMINI's rule for memory).
      // Recovering to an older state discards newer persistent/in-memory versions' relevance:
      // st_.states.persistent stays (it is still in storage); st_.states.memory is kept only after a memory recovery.
      return Outcome{target, retrieval_spent, restarted, false, tier, restarted - first.time};
    }
  }

  const Scenario& s_;
  const StrategyCosts& c_;
  SegmentPattern pattern_;
  ReplicaState st_;
  RestartModel restarts_;
  SimTime migration_pause_;  ///< P of failure/migration.hpp (live migration modelled)
  std::optional<Version> jit_;        ///< just-in-time: the interrupted minibatch's starting state
  int jit_positions_ = 1;             ///< just-in-time: shard positions N / G
  std::vector<int> jit_failed_;       ///< just-in-time: distinct holders failed in this episode, by position
  std::vector<char> jit_holder_lost_; ///< just-in-time: machine failed in this episode, by machine
  std::vector<int> jit_touched_;      ///< just-in-time: the machines marked in jit_holder_lost_
  bool jit_lost_ = false;             ///< just-in-time: some position lost every holder
  const ElasticPlan* elastic_;          ///< elastic restart (failure/elastic.hpp; nullptr: off)
  std::vector<char> unit_out_;          ///< elastic: units out of the job, by unit index
  SimTime grow_at_;                     ///< elastic: when every replacement of the units out has arrived
  SimTime grow_restart_;                ///< elastic: the restart after the grow (the shrinks' longest)
  RecoveryTier shrink_tier_ = RecoveryTier::scratch;  ///< elastic: the grow's pause counts to these
  int shrink_cause_ = 0;
  /// A silent corruption: its onset's lineage and the newest states captured before it.
  struct Corruption {
    std::int64_t id = 0;
    bool valid = false;
    SimTime lineage;
    std::optional<Version> memory_clean;
    std::optional<Version> persistent_clean;
  };
  std::optional<CorruptionOnsets> onsets_;
  SimTime next_onset_ = SimTime::max();
  std::int64_t onsets_seen_ = 0;
  std::deque<Corruption> corruptions_;     ///< registered, not yet detected, in onset order
  std::optional<Corruption> episode_corruption_;
};

}  // namespace

RunModel::RunModel(const Scenario& scenario, StrategyCosts costs) : scenario_(scenario), costs_(std::move(costs)) {
  std::vector<std::vector<int>> stored_on;
  int lost_at = 0;  // holders lost that lose a set: 0 = all of them
  if (costs_.erasure_coded()) {
    // A coding group is lost when p + 1 of its g members are replaced. Its members' holder sets
    // are all the group, so one counter per group suffices: machine j counts only for its
    // group's first member (one update per replaced machine, as cheap as GEMINI's pairs).
    placement_ = erasure_groups(costs_.placement, scenario_.cluster.machines, ErasureCode{costs_.group_size, costs_.parity});
    lost_at = costs_.parity + 1;
    stored_on.assign(placement_.holders.size(), {});
    for (std::size_t j = 0; j < placement_.holders.size(); ++j) stored_on[j] = {placement_.holders[j].front()};
    has_placement_ = true;
  } else if (costs_.tier == CheckpointTier::memory || costs_.tier == CheckpointTier::multi_level) {
    placement_ = make_placement(costs_.placement, scenario_.cluster.machines, costs_.replicas, scenario_.run.seed,
                                costs_.replication_jump);
    stored_on = placement_.stored_on();
    has_placement_ = true;
  }
  if (has_placement_) {
    holder_index_.offsets.push_back(0);
    for (const auto& sets : stored_on) {
      holder_index_.sets.insert(holder_index_.sets.end(), sets.begin(), sets.end());
      holder_index_.offsets.push_back(static_cast<int>(holder_index_.sets.size()));
    }
    for (const auto& holders : placement_.holders)
      holder_index_.loss_limit.push_back(lost_at > 0 ? lost_at : static_cast<int>(holders.size()));
  }
  if (scenario_.failures.process == FailureProcessKind::trace)
    trace_ = load_failure_trace(scenario_.failures.trace_file, scenario_.cluster.machines);
  check_trace_causes();
  // Once for every replica; a pause beyond the clock is refused here, before any replica runs.
  if (migration_modelled(scenario_.failures)) migration_pause_ = migration_pause(scenario_);
  if (elastic_modelled(scenario_.failures)) {
    // Per-step fault tolerance trains on without a failed group already (group_outages.hpp).
    if (costs_.tier == CheckpointTier::per_step)
      throw ModelError("/failures/elastic/min_machines",
                       "absent under per-step fault tolerance, whose groups leave the quorum and train on without "
                       "restarting (an elastic restart would restart the whole job)");
    elastic_ = elastic_plan(scenario_);
  }
  causes_ = std::make_shared<const std::vector<FailureCause>>(failure_causes(scenario_.failures));
}

void RunModel::check_trace_causes() const {
  const auto& table = scenario_.failures.causes.causes;
  for (const auto& r : trace_) {
    if (trace_cause_index(r, table) >= 0) continue;
    throw ModelError("/failures/causes",
                     fmt::format("the trace {} has a failure at {} with cause \"{}\", which the cause table does not "
                                 "name (with a cause table every trace line needs a cause column naming a row)",
                                 scenario_.failures.trace_file, format_duration(r.time), r.cause));
  }
}

ReplicaResult RunModel::simulate(std::uint64_t replica, AdvanceMode mode) const {
  const ReplicaInputs in{scenario_, costs_, has_placement_ ? &holder_index_ : nullptr, &trace_, causes_, migration_pause_,
                         elastic_ ? &*elastic_ : nullptr};
  if (costs_.tier == CheckpointTier::multi_level) {
    if (mode == AdvanceMode::exact) return ReplicaSimulation<SteppedLevelClock>(in, replica).run();
    return ReplicaSimulation<LevelClock>(in, replica).run();
  }
  if (mode == AdvanceMode::exact) return ReplicaSimulation<SteppedClock>(in, replica).run();
  return ReplicaSimulation<SegmentClock>(in, replica).run();
}

}  // namespace ckptsim
