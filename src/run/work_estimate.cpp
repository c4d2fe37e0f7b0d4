// Up-front estimates of a Monte Carlo run's memory and events (work_estimate.hpp).
#include "ckptsim/run/work_estimate.hpp"

#include <algorithm>
#include <cmath>

#include "ckptsim/run/run_model.hpp"

namespace ckptsim {
namespace {

/// Failure-free length of the run in seconds (the horizon failures are drawn over, to first order).
double horizon_seconds(const Scenario& s, const StrategyCosts& c) {
  if (s.run.duration) return s.run.duration->seconds();
  return c.iteration_time.seconds() * static_cast<double>(s.run.iterations.value_or(0));
}

/// Bytes one replica in flight holds per machine: placement holder lists and the reverse index
/// (a vector each, ~32 bytes plus 4 per holder), health flags, and for Weibull failures one
/// Mersenne-Twister engine (2.5 KiB) and a queue entry per machine.
double bytes_per_machine(const Scenario& s) {
  // Erasure-coded groups are holder lists of the g group members.
  const int holders = s.strategy.kind == StrategyKind::erasure_coded ? s.strategy.group_size : s.strategy.replicas;
  double bytes = 2.0 * (32.0 + 4.0 * holders) + 16.0;
  if (s.failures.process == FailureProcessKind::weibull) bytes += 2560.0 + 32.0;
  return bytes;
}

}  // namespace

std::vector<WorkEstimate> estimate_run_work(const Scenario& s, const StrategyCosts& c, int replicas, int jobs) {
  std::vector<WorkEstimate> out;
  const double n = replicas;
  // Each result, plus one double per summarized metric (about 20) while summarizing.
  out.push_back({"--replicas (run.replicas)", "memory for the replica results",
                 n * (static_cast<double>(sizeof(ReplicaResult)) + 20.0 * sizeof(double)), kMaxMemoryBytes, "bytes"});
  const double in_flight = std::min<double>(std::max(1, jobs), n) + 1.0;  // + the shared placement
  out.push_back({"/cluster/machines", "memory for the per-machine state of the replicas in flight",
                 in_flight * s.cluster.machines * bytes_per_machine(s), kMaxMemoryBytes, "bytes"});

  const double horizon = horizon_seconds(s, c);
  double per_replica = 0;
  std::string input;
  if (s.failures.process == FailureProcessKind::exponential) {
    per_replica = s.failures.rate * s.cluster.machines * horizon;
    input = "/failures/rate";
  } else if (s.failures.process == FailureProcessKind::weibull) {
    const double mean_life = s.failures.weibull_scale.seconds() * std::tgamma(1.0 + 1.0 / s.failures.weibull_shape);
    // A mean life that rounds to zero means back-to-back failures: as many as the clock allows.
    per_replica = mean_life > 0 ? s.cluster.machines * horizon / mean_life : HUGE_VAL;
    if (!(mean_life < HUGE_VAL)) per_replica = 0;  // lives beyond any run: few failures
    input = "/failures/scale";
  }
  if (!input.empty())
    out.push_back({input + " with " + std::to_string(replicas) + " replicas",
                   "the simulated failures of all replicas", per_replica * n, kMaxSimulatedEvents, "failure events"});
  return out;
}

}  // namespace ckptsim
