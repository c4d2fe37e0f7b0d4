#pragma once
// Writers for `ckptsim run` results: the readable summary table, the JSON document and the
// per-replica CSV. Models never print; these functions only read results (CONTRIBUTING.md, style habit 7).
#include <iosfwd>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// {"mean", "std", "ci95"} objects nested by the dotted metric names of RunSummary.
nlohmann::json summary_json(const RunSummary& summary);

/// The strategy's derived costs in seconds (iteration time, stall, completion, retrievals...),
/// and "warnings" (StrategyCosts::warnings) when there are any.
nlohmann::json costs_json(const StrategyCosts& costs);

/// {"manifest", "scenario", "costs", "summary"}.
nlohmann::json run_report_json(const Scenario& scenario, const StrategyCosts& costs, const RunSummary& summary,
                               const std::string& command_line);

/// The summary table; under its header the key assumptions (output/assumptions_report.hpp), or
/// with every_default every parameter the scenario file does not write, then the costs' warnings.
void print_run_table(std::ostream& out, const Scenario& scenario, const StrategyCosts& costs,
                     const RunSummary& summary, bool every_default = false);

/// Header line plus one row per replica: replica index then every metric of replica_metrics().
/// `wasted_time_per_failure_s` is an empty cell (NA) for a replica without failures: it is
/// undefined there, and the summary's mean leaves those replicas out too.
void write_replica_csv(std::ostream& out, const std::vector<ReplicaResult>& results);

}  // namespace ckptsim
