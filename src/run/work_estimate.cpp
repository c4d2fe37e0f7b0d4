// Up-front estimates of a Monte Carlo run's memory and events (work_estimate.hpp).
#include "ckptsim/run/work_estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/run/run_horizon.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

/// Bytes one replica in flight holds per machine: placement holder lists and the reverse index
/// (a vector each, ~32 bytes plus 4 per holder), health flags, and for Weibull failures one
/// Mersenne-Twister engine (2.5 KiB) and a queue entry per machine.
double bytes_per_machine(const Scenario& s) {
  // Erasure-coded groups are holder lists of the g group members.
  const int holders =
      checkpoint_layout(s.strategy.kind) == CheckpointLayout::erasure_code ? s.strategy.group_size : s.strategy.replicas;
  double bytes = 2.0 * (32.0 + 4.0 * holders) + 16.0;
  if (s.failures.process == FailureProcessKind::weibull) bytes += 2560.0 + 32.0;
  return bytes;
}

/// The fields the failure count is a product of, and their values as written.
std::pair<std::string, std::string> failure_inputs(const Scenario& s, const std::string& length_field, SimTime length) {
  std::string fields = s.failures.process == FailureProcessKind::weibull ? "/failures/scale" : "/failures/rate";
  std::string values = s.failures.process == FailureProcessKind::weibull
                           ? fmt::format("{:.6g} s", s.failures.weibull_scale.seconds())
                           : fmt::format("{:.4g} per machine-day", s.failures.rate * 86400.0);
  bool domains = false;
  for (const auto& d : s.failures.domains) domains = domains || (d.machines > 0 && d.rate > 0);
  if (domains) fields += " (and /failures/domains)";
  fields += " x /cluster/machines x " + length_field;
  values += fmt::format(" x {} x {}", s.cluster.machines, format_duration(length));
  return {fields, values};
}

}  // namespace

std::vector<WorkEstimate> estimate_run_work(const Scenario& s, const StrategyCosts& c, int replicas, int jobs) {
  std::vector<WorkEstimate> out;
  const double n = replicas;
  const std::string& file = s.source_file;
  // Each result, plus one double per summarized metric (about 20) while summarizing.
  out.push_back({"--replicas (run.replicas)", "memory for the replica results",
                 n * (static_cast<double>(sizeof(ReplicaResult)) + 20.0 * sizeof(double)), kMaxMemoryBytes, WorkUnit::bytes,
                 file, std::to_string(replicas)});
  const double in_flight = std::min<double>(std::max(1, jobs), n) + 1.0;  // + the shared placement
  out.push_back({"/cluster/machines", "memory for the per-machine state of the replicas in flight",
                 in_flight * s.cluster.machines * bytes_per_machine(s), kMaxMemoryBytes, WorkUnit::bytes, file,
                 fmt::format("{} (x {} replicas in flight)", s.cluster.machines, in_flight)});
  if (s.failures.process == FailureProcessKind::trace) return out;  // a file already in memory

  // All replicas over the failure-free length (the expected work), and one replica over the
  // longest it can run (run_horizon.hpp: the run's end, 100x the failure-free length at most).
  const SimTime failure_free = s.run.duration ? *s.run.duration : failure_free_length(s, c);
  const SimTime end = run_end_bound(s, failure_free);
  const std::string length_field = s.run.duration ? "/run/duration" : "/run/iterations";
  const double all = expected_failure_events(s.failures, s.cluster.machines, failure_free) * n;
  const auto [fields, values] = failure_inputs(s, length_field, failure_free);
  out.push_back({fields + " x --replicas", "the simulated failures of all replicas", all, kMaxSimulatedEvents,
                 WorkUnit::failure_events, file, fmt::format("{} x {}", values, replicas)});
  const auto [replica_fields, replica_values] = failure_inputs(s, length_field + " (the run's end)", end);
  out.push_back({replica_fields, "the simulated failures of one replica",
                 expected_failure_events(s.failures, s.cluster.machines, end), kMaxFailureEventsPerReplica,
                 WorkUnit::failure_events, file, replica_values});
  return out;
}

std::vector<WorkEstimate> estimate_closed_form_work(const Scenario& s) {
  return {{"/cluster/machines", "memory for the placement of the closed forms", s.cluster.machines * bytes_per_machine(s),
           kMaxMemoryBytes, WorkUnit::bytes, s.source_file, std::to_string(s.cluster.machines)}};
}

}  // namespace ckptsim
