#pragma once
// The result of `ckptsim analyze`: the closed forms (analysis/analytic_models.hpp) next to the
// run model's Monte Carlo estimates, with every disagreement beyond the confidence interval
// flagged. Built once here and shared by the analyze command (table and --json) and by sweep
// points whose command is "analyze" (sweep/evaluate.hpp), so both give the same document.
//
// Disagreement rule (per metric): |closed - mean| > ci95. When every replica gave the same value
// (ci95 = 0), a count (failures.*, recoveries.*) uses the rule of three, 3/n (the 95% upper bound
// on a mean count after n replicas that all saw the same count); other metrics a relative 1e-9
// (rounding). A closed form that is not finite, or a negative count, is no prediction: it is never
// compared and is reported as n/a (table) or omitted (JSON).
#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/standby_sizing.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// A metric analyze compares: its dotted key (as in RunSummary), its table label and digits.
struct AnalyzeMetric {
  const char* key;
  const char* label;
  int precision;
};

/// Every metric analyze reports, in table order.
std::span<const AnalyzeMetric> analyze_metrics();

struct AnalyzeComparison {
  std::string key;
  double closed = 0;
  double mean = 0;
  double ci95 = 0;
  bool closed_valid = false;  ///< the closed form is a finite, non-negative number
  bool flagged = false;
};

struct AnalyzeReport {
  AnalyticPrediction prediction;
  std::optional<RunSummary> summary;        ///< empty when run.replicas is 0
  std::vector<AnalyzeComparison> rows;      ///< one per metric with a closed form or a simulated value
  int flagged = 0;                          ///< rows whose closed form lies outside the simulated ci95
  std::int64_t best_every_iterations = 0;   ///< closed-form best interval (0 when not applicable)
  std::optional<StandbySizing> standby;     ///< the standby pools (analysis/standby_sizing.hpp); empty for trace-driven failures
};

/// True when the closed form and the simulated mean disagree (rule in the header comment).
bool analyze_disagrees(const std::string& key, double closed, double mean, double ci95, int replicas);

/// Closed forms, then scenario.run.replicas Monte Carlo replicas on `checks.jobs` threads (none
/// when replicas is 0; their work checked as `ckptsim run` checks it, run/run_checks.hpp), then
/// the comparison.
AnalyzeReport make_analyze_report(const Scenario& scenario, const StrategyCosts& costs, const RunChecks& checks);

/// {"scenario", "costs", "closed_form", "metrics", "replicas", "disagreements"}; closed_form has
/// failure_means_s {"detection", "restart", "replacement"} (the failure classes' rate-weighted
/// means and the replacement delay's mean, analysis/failure_mix.hpp) and standby_sizing
/// {"window_s", "machine_probability", "pools": [{"percentile", "standby_machines"}],
/// "standby_machines"} (the pool covering 99 % and 99.9 % of replacement windows,
/// analysis/standby_sizing.hpp) unless the failures are trace-driven; plus the members
/// of the strategy's report sections (output/report_sections.hpp: closed_form.multi_level for the
/// multi-level table, "erasure_code" for an erasure code): the document of `analyze --json` without its manifest (a sweep
/// point adds its own scenario part instead).
nlohmann::json analyze_report_json(const Scenario& scenario, const StrategyCosts& costs, const AnalyzeReport& report);

/// The whole document `ckptsim analyze --json` prints and the Python module's analyze() returns:
/// analyze_report_json plus "manifest" (output/manifest.hpp).
nlohmann::json analyze_document(const Scenario& scenario, const StrategyCosts& costs, const AnalyzeReport& report,
                                const std::string& command_line);

/// The table `ckptsim analyze` prints: scenario, costs, the strategy's report sections, the
/// failures line, the standby line, notes and left-out terms above the closed form and the simulated mean of every
/// metric, '!' where they disagree.
void print_analyze_report(std::ostream& out, const Scenario& scenario, const StrategyCosts& costs,
                          const AnalyzeReport& report);

}  // namespace ckptsim
