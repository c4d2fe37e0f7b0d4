#pragma once
// Monte Carlo driver: many independent replicas of the run model on a pool of threads.
//
// Replica r draws only from the streams (seed, r, component), and its result lands in slot r;
// summaries are folded in replica order afterwards. So the output is identical, byte for byte,
// for every thread count. Cost: O(replicas x failures per replica) / jobs.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ckptsim/core/statistics.hpp"
#include "ckptsim/run/run_model.hpp"

namespace ckptsim {

struct MonteCarloOptions {
  int replicas = 100;
  int jobs = 1;
  AdvanceMode mode = AdvanceMode::closed_form;
  /// Called from worker threads with (replicas done, total) at most ~100 times; may be empty.
  std::function<void(int, int)> progress;
};

std::vector<ReplicaResult> run_replicas(const RunModel& model, const MonteCarloOptions& options);

/// Metrics over replicas, each as mean / std / ci95, keyed by a dotted name
/// ("ettr", "failures.hardware", "time_breakdown_s.retrieval", ...).
struct RunSummary {
  std::map<std::string, Summary> metrics;
  int replicas = 0;
  [[nodiscard]] const Summary& at(const std::string& name) const { return metrics.at(name); }
};

/// The per-replica values of every metric, in a fixed order (used by the summary and CSV).
std::vector<std::pair<std::string, double>> replica_metrics(const ReplicaResult& r);

/// False for a metric that has no value in this replica (wasted time per failure without a
/// failure, MTTR without a recovery episode): the summary leaves the replica out of its mean
/// and the CSV writes an empty cell.
bool metric_defined(const std::string& name, const ReplicaResult& r);

RunSummary summarize(const std::vector<ReplicaResult>& results);

}  // namespace ckptsim
