#pragma once
// Fault-model features beyond fail-stop machine failures: hangs detected by timeouts, fail-slow
// stragglers, misdiagnosis and silent data corruption (docs/models.md, "Fault model").
//
// Hangs (failures/hangs). A failure is a hang with probability `fraction` (stream hangs): the
// processes stay alive, stuck in a collective, so no exit is seen. It is found by the first of
//   - the collective watchdog: PyTorch's ProcessGroupNCCL aborts a collective after its timeout
//     (default 10 min, torch.distributed default_pg_nccl_timeout;
//     https://pytorch.org/docs/stable/distributed.html#torch.distributed.init_process_group);
//   - the NVIDIA Resiliency Extension rank heartbeat: with no explicit rank_heartbeat_timeout,
//     the timeout is deduced as safety_factor (default 5) x the longest observed heartbeat
//     interval, here one heartbeat per iteration T, and the rank monitor checks it every
//     workload_check_interval (default 5 s), on average half an interval late
//     (FaultToleranceConfig, https://github.com/NVIDIA/nvidia-resiliency-ext, fault_tolerance/config.py).
//   detection_hang = min(collective_timeout, safety_factor x T) + check_interval / 2.
// A crash keeps its cause's detection time (failures.detection, or the cause table's).
//
// Fail-slow stragglers (failures/stragglers). Straggler onsets form a Poisson process of rate
// N x rate (machine uniform); each lasts D ~ Exp(mean duration) unless it is evicted `eviction`
// after its onset (E): it slows the job over [onset, onset + min(D, E)). A synchronous job runs
// at the pace of its slowest member, so while any straggler is present it progresses at `speed`
// of its healthy rate (overlapping stragglers slow it no further). A straggler still present at
// E is evicted: its machine is replaced as after a hardware failure (cause "straggler"). Wall time
// w under stragglers does w - (1 - speed) x |slow part of w| of healthy work; the difference is
// degraded throughput (run/goodput.hpp). FALCON (Wu et al., arXiv:2410.12588, 2024) reports
// fail-slows lasting from tens of seconds to nearly ten hours; the defaults (1 h, speed 0.5,
// eviction 10 min) are illustrative values inside that range, not measurements, and the rate
// defaults to 0 (off). Stream stragglers (one stream read by two cursors: the run model's slow
// windows and the failure stream's evictions draw the same numbers).
//
// Misdiagnosis (failures/misdiagnosis). A hardware failure is misdiagnosed with probability
// `fraction` (stream misdiagnosis): a healthy machine is evicted (it is replaced, as usual) and the
// faulty one stays in the job and fails again, same cause, after Exp(mean recurrence); the
// recurrence can be misdiagnosed in its turn. Expected failures per fault = 1 / (1 - fraction).
//
// Silent data corruption (failures/silent_corruption). Corruptions start as a Poisson process of
// rate N x rate (stream silent_corruption, read by two cursors as above) and are detected
// `detection` later; detection is a failure (cause "silent-corruption", the machine replaced).
// Every checkpoint captured after the corruption is corrupt: the run rolls back to the newest
// checkpoint captured before it (an in-memory one only if it is still the newest in memory, so
// in-memory copies after the corruption are useless), else to the initial state. A corruption
// that starts while the job is down, or that a rollback has already undone, does nothing.
#include <cstdint>
#include <deque>
#include <memory>
#include <utility>
#include <vector>

#include "ckptsim/core/random.hpp"
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Detection time of a hang at iteration time T (formula above).
SimTime hang_detection(const HangSpec& spec, SimTime iteration_time);

/// True when any of the fault-model features changes the run (a run without them is unchanged).
bool stragglers_modelled(const FailureSpec& spec);
bool silent_corruption_modelled(const FailureSpec& spec);

/// One straggler: slows the job over [start, end); evicted at `end` when `evicted`.
struct Straggler {
  SimTime start;
  SimTime end;
  int machine = 0;
  bool evicted = false;
};

/// The stragglers of one replica in onset order (stream (seed, replica, stragglers)).
class StragglerDraws {
 public:
  StragglerDraws(const StragglerSpec& spec, int machines, std::uint64_t seed, std::uint64_t replica);
  Straggler next();

 private:
  StragglerSpec spec_;
  int machines_;
  RandomEngine engine_;
  SimTime now_;
};

/// The union of the straggler windows, queried over increasing wall-time intervals.
/// Cost: O(windows overlapping the queries), amortized.
class SlowWindows {
 public:
  SlowWindows(const FailureSpec& spec, int machines, std::uint64_t seed, std::uint64_t replica);
  /// Wall time within [from, to) during which the job runs slow. `from` never decreases between
  /// calls.
  SimTime slow_time(SimTime from, SimTime to);
  /// Healthy work done over [from, to): (to - from) - (1 - speed) x slow_time. Inline for
  /// the common case without stragglers (the run model asks at every failure).
  SimTime work(SimTime from, SimTime to) {
    if (to <= from) return SimTime::zero();
    return active_ ? slowed_work(from, to) : to - from;
  }
  /// The wall time at which `work` of healthy work has been done from `from` (saturating).
  SimTime wall_after_work(SimTime from, SimTime work);
  /// The slow windows clipped to [from, to), disjoint and in order (same rule for `from`).
  std::vector<std::pair<SimTime, SimTime>> windows(SimTime from, SimTime to);
  [[nodiscard]] double speed() const { return speed_; }
  [[nodiscard]] bool active() const { return active_; }

 private:
  void extend_to(SimTime t);
  SimTime slowed_work(SimTime from, SimTime to);
  SimTime slowed(SimTime slow) const;
  bool active_ = false;
  double speed_ = 1.0;
  std::unique_ptr<StragglerDraws> draws_;
  Straggler pending_;
  std::deque<std::pair<SimTime, SimTime>> windows_;  ///< merged, in order
};

/// Onsets of silent corruptions in time order (stream (seed, replica, silent_corruption)).
class CorruptionOnsets {
 public:
  CorruptionOnsets(const SilentCorruptionSpec& spec, int machines, std::uint64_t seed, std::uint64_t replica);
  /// The next onset and its machine.
  std::pair<SimTime, int> next();

 private:
  double rate_;
  int machines_;
  RandomEngine engine_;
  SimTime now_;
};

/// Wraps a replica's failure source with the fault-model features: hang flags, misdiagnosed
/// recurrences, straggler evictions and corruption detections, merged in time order.
std::unique_ptr<FailureSource> with_fault_model(std::unique_ptr<FailureSource> base, const FailureSpec& spec,
                                                int machines, std::uint64_t seed, std::uint64_t replica);

/// Cause indices of the fault-model causes in failure_causes() (-1 when not modelled).
int straggler_cause(const FailureSpec& spec);
int silent_corruption_cause(const FailureSpec& spec);

}  // namespace ckptsim
