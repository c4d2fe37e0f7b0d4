#pragma once
// Cost rules several strategies share (run/strategy_costs.hpp gives the formulas). Private to
// the strategies in this folder.
#include <cstdint>
#include <string>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/run/strategy_costs.hpp"

namespace ckptsim::strategies {

inline const std::string kEveryPointer = "/strategy/every_iterations";

/// ceil(a / b) for a >= 0, b > 0, in 128 bits (a + b - 1 may pass 2^63 - 1 ns).
std::int64_t ceil_div(SimTime a, SimTime b);

/// The one rounding rule for a checkpoint interval given as a duration: the whole number of
/// periods nearest to interval / period (halves round up), at least 1. Exact in integer
/// nanoseconds: floor((2 interval + period) / (2 period)).
std::int64_t periods_nearest(SimTime interval, SimTime period);

/// The number of `unit_time`-long steps nearest to `interval`, as a multiple of `unit`
/// iterations (at least one unit), checked against overflow.
std::int64_t nested_period(SimTime interval, SimTime unit_time, std::int64_t unit, const std::string& pointer);

/// Memory tier, checkpoint every strategy.every_iterations.
void in_memory_common(const CostInputs& in, StrategyCosts& c);

/// strategy.adaptive_interval and adaptive_prior_mtbf, for the strategies whose persistent period
/// follows Daly's interval (remote-periodic, remote-highfreq, multi-level): only they read them.
void adaptive_interval_costs(const CostInputs& in, StrategyCosts& c);

/// The persistent track of an in-memory strategy (strategy.persistent_interval): uploads every
/// kp iterations, kp a multiple of k, never sooner than the previous upload can have finished.
void persistent_track(const CostInputs& in, StrategyCosts& c);

/// `bytes` per machine through the NIC at the line rate.
SimTime network_copies(const CostInputs& in, double bytes);

/// The m - 1 copies of the shard through the NIC.
SimTime replica_bytes_time(const CostInputs& in);

/// The stall S of a checkpoint whose traffic (`bytes` per machine) is interleaved into the idle
/// spans of k iterations (GEMINI's scheme; the iteration model planned the same bytes).
SimTime interleaved_stall(const CostInputs& in, std::int64_t k, double bytes);

/// Completion of a checkpoint sent during the k iterations after its state: k T + S.
SimTime block_end(const CostInputs& in, std::int64_t k, SimTime stall);

}  // namespace ckptsim::strategies
