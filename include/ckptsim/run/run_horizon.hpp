#pragma once
// The worst-case horizon of a run (docs/limits.md, "Clock range").
//
// Each duration an input names or derives is at most 100 years, but a replica adds them up:
// after any instant of the run (at most its end E) an episode waits for detection D, a
// replacement W, a retrieval G and a restart R, and a training segment looks one checkpoint
// ahead: a period P, its stall S, completion C and upload U. Every instant a replica computes
// therefore lies before
//   H = E + D + W + G + R + P + S + C + U
// with
//   E  run.duration; with run.iterations, min(100 x the failure-free length, 100 years): a
//      target that failures keep out of reach stops there (ReplicaResult::finished = false);
//   D  the longest detection (failures.detection and every cause's own);
//   W  the longest replacement delay: the fixed time, or the uniform distribution's high end
//      (lognormal samples have no bound: they saturate at the clock's end, "never");
//   G  the slowest retrieval the strategy can use (local, peer, storage);
//   R  the longest restart (failures.restart and every cause's own);
//   P  one checkpoint period, k x T (remote-periodic: its interval in iterations x T; with
//      strategy.adaptive_interval the adaptive period is capped at E); T without checkpoints;
//   S  the largest stall (multi-level: level 3's), C the completion, U the persistent upload.
// H is summed exactly (128-bit integer nanoseconds) and must fit the int64-ns clock (2^63 - 1
// ns, 292.3 years); otherwise check_run_horizon refuses the run before it starts, with a
// ModelError naming the largest term's field and listing every term, so that no replica's
// arithmetic can leave the clock (SimTime's operators throw ClockOverflow if one ever did).
#include <cstdint>
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// A run.iterations target stops at this multiple of its failure-free length (or 100 years).
inline constexpr std::int64_t kUnfinishedRunFactor = 100;

/// One term of H: the input field responsible, what it is, and its duration.
struct HorizonTerm {
  std::string field;  ///< a JSON pointer, e.g. "/failures/detection"
  std::string what;   ///< "detection"
  SimTime time;
};

/// E: run.duration, or min(kUnfinishedRunFactor x failure_free, kMaxDuration) for run.iterations.
SimTime run_end_bound(const Scenario& scenario, SimTime failure_free);

/// The failure-free length of a run.iterations target under the costs' checkpoint pattern
/// (what the run model's clock gives for the whole target); zero for a run.duration.
SimTime failure_free_length(const Scenario& scenario, const StrategyCosts& costs);

/// Pieces of H for the recovery policies' rows (run/recovery/recovery_policy.hpp): G from
/// storage; G as the slowest of storage, peers and local memory; S (the largest stall given) and C.
HorizonTerm storage_retrieval(const StrategyCosts& costs);
HorizonTerm slowest_memory_retrieval(const StrategyCosts& costs);
void checkpoint_horizon_terms(const Scenario& scenario, const StrategyCosts& costs, SimTime stall,
                              std::vector<HorizonTerm>& terms);

/// The terms of H, largest first (terms of zero length left out). `period_field` is the field
/// that sets the checkpoint period (the strategy's, run/strategy.hpp: Strategy::period_field),
/// named by the period's term unless the period is adaptive.
std::vector<HorizonTerm> run_horizon_terms(const Scenario& scenario, const StrategyCosts& costs,
                                           const std::string& period_field);

/// Throws ModelError (the largest term's field) when H leaves the int64-ns clock.
void check_run_horizon(const Scenario& scenario, const StrategyCosts& costs, const std::string& period_field);

}  // namespace ckptsim
