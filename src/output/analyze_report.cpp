// The analyze report (analyze_report.hpp).
#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>

#include "ckptsim/analysis/eq1_by_tier.hpp"
#include "ckptsim/analysis/failure_mix.hpp"
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/printable.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/report_sections.hpp"
#include "ckptsim/output/restart_report.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/output/warnings.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

/// The percentiles of replacement windows the standby line sizes the pool for
/// (analysis/standby_sizing.hpp): most windows, and all but one in a thousand.
const std::vector<double> kStandbyPercentiles = {0.99, 0.999};

constexpr AnalyzeMetric kMetrics[] = {
    {"ettr", "ETTR", 4},
    {"wasted_time_per_failure_s", "wasted time per failure (s)", 1},
    {"failures.total", "failures", 2},
    {"failures.software", "failures: software", 2},
    {"failures.hardware", "failures: hardware", 2},
    {"recoveries.local", "recoveries: local", 2},
    {"recoveries.peer", "recoveries: peer", 2},
    {"recoveries.storage", "recoveries: storage", 2},
    {"recoveries.scratch", "recoveries: scratch", 2},
    {"time_breakdown_s.training", "time: training (s)", 0},
    {"time_breakdown_s.checkpoint_stall", "time: checkpoint stall (s)", 0},
    {"time_breakdown_s.lost_progress", "time: lost progress (s)", 0},
    {"time_breakdown_s.detection", "time: detection (s)", 0},
    {"time_breakdown_s.replacement_wait", "time: replacement wait (s)", 0},
    {"time_breakdown_s.retrieval", "time: retrieval (s)", 0},
    {"time_breakdown_s.restart", "time: restart (s)", 0},
    {"migrations", "live migrations", 2},
    {"time_breakdown_s.migration", "time: migration (s)", 0},
    {"elastic.shrinks", "elastic shrinks", 2},
    {"elastic.grows", "elastic grows", 2},
};

/// One row per metric that has a closed form or a simulated value.
std::vector<AnalyzeComparison> compare_metrics(const AnalyticPrediction& p, const std::optional<RunSummary>& summary) {
  std::vector<AnalyzeComparison> rows;
  for (const auto& r : kMetrics) {
    AnalyzeComparison c;
    c.key = r.key;
    const auto closed = p.metrics.find(r.key);
    const bool has_closed = p.available && closed != p.metrics.end();
    const bool has_sim = summary && summary->metrics.count(r.key) && summary->at(r.key).count > 0;
    if (!has_closed && !has_sim) continue;
    if (has_closed) c.closed = closed->second;
    c.closed_valid = has_closed && std::isfinite(c.closed) && c.closed >= 0;
    if (has_sim) {
      c.mean = summary->at(r.key).mean;
      c.ci95 = summary->at(r.key).ci95;
    }
    c.flagged = c.closed_valid && has_sim && summary->replicas >= 2 &&
                analyze_disagrees(c.key, c.closed, c.mean, c.ci95, summary->replicas);
    rows.push_back(c);
  }
  return rows;
}

std::int64_t closed_form_best_every(const Scenario& scenario, const StrategyCosts& costs, const AnalyticPrediction& p) {
  if (!p.available || !takes_checkpoints(costs.tier)) return 0;
  const auto search_limit = std::max<std::int64_t>(1000, static_cast<std::int64_t>(4.0 * p.daly_every_iterations));
  return static_cast<std::int64_t>(best_every_iterations(scenario, costs, search_limit).every_iterations);
}

nlohmann::json closed_form_json(const AnalyticPrediction& p, std::int64_t best_every) {
  nlohmann::json closed;
  closed["available"] = p.available;
  if (!p.available) closed["reason"] = p.reason;
  closed["notes"] = p.notes;
  closed["omitted_terms"] = p.omitted_terms;
  if (!p.available) return closed;
  closed["failure_rate_per_s"] = p.failure_rate;
  closed["wall_time_s"] = p.wall_time_s;
  closed["ettr_asymptotic"] = p.ettr_asymptotic;
  closed["mean_service_s"] = p.mean_service_s;
  closed["episode_mean_s"] = p.episode_mean_s;
  closed["failures_per_episode"] = p.failures_per_episode;
  closed["memory_loss_per_hardware_failure"] = p.memory_loss_per_hardware_failure;
  closed["eq1_wasted_time_s"] = p.eq1_wasted_time_s;
  closed["intervals"] = {{"checkpoint_cost_s", p.checkpoint_cost_s},
                         {"mtbf_s", p.mtbf_s},
                         {"young_s", p.young_interval_s},
                         {"daly_s", p.daly_interval_s},
                         {"young_every_iterations", p.young_every_iterations},
                         {"daly_every_iterations", p.daly_every_iterations},
                         {"closed_form_best_every_iterations", best_every}};
  return closed;
}

/// The lines above the metric table: scenario, costs, failures, Eq. 1, intervals, notes.
void print_header_lines(std::ostream& out, const Scenario& scenario, const StrategyCosts& costs,
                          const AnalyticPrediction& p, std::int64_t best_every, const std::optional<StandbySizing>& sizing) {
  out << fmt::format("scenario   {} — {} machines, strategy {}, {}\n", printable(scenario.name), scenario.cluster.machines,
                     name_of(scenario.strategy.kind),
                     scenario.run.duration ? format_duration(*scenario.run.duration)
                                           : fmt::format("{} iterations", scenario.run.iterations.value_or(0)));
  out << fmt::format("costs      iteration {}, every {} iteration(s), stall {}, complete after {}\n",
                     format_duration(costs.iteration_time), costs.every_iterations, format_duration(costs.stall),
                     format_duration(costs.completion));
  const std::vector<ReportSection> sections = strategy_of(costs.strategy).report_sections();
  for (const ReportSection section : sections) report_section(section).print_after_costs(out, scenario, costs);
  print_restart_phases(out, scenario);
  print_warning_lines(out, costs.warnings);
  if (!p.available) {
    out << fmt::format("closed form: not available — {}\n", p.reason);
  } else {
    out << fmt::format("failures   Lambda = {:.4g} per day for the cluster (MTBF {}); an episode lasts {:.1f} s on average, "
                       "{:.4f} failures per episode\n",
                       p.failure_rate * 86400.0, p.mtbf_s > 0 ? format_duration(SimTime::from_seconds(p.mtbf_s)) : "-",
                       p.episode_mean_s, p.failures_per_episode);
    if (sizing)
      out << fmt::format("standbys   p = {1:.4g} that a machine is replaced within a window of {0} (detection + mean "
                         "replacement): {2}% of windows need {3} standby machine(s), {4}% need {5} (the cluster has {6})\n",
                         format_duration(SimTime::from_seconds(sizing->window_s)), sizing->machine_probability,
                         100 * sizing->pools[0].first, sizing->pools[0].second, 100 * sizing->pools[1].first,
                         sizing->pools[1].second, scenario.cluster.standby_machines);
    for (const ReportSection section : sections)
      report_section(section).print_closed_form(out, scenario, costs, p, best_every);
    for (const ReportSection section : sections) report_section(section).print_memory(out, costs, p);
    for (const auto& n : p.notes) out << "note       " << n << '\n';
    for (const auto& t : p.omitted_terms) out << "leaves out " << t << " (compare with the Monte Carlo)\n";
  }
}

/// The metric table: closed form, simulated mean and ci95, '!' where they disagree.
void print_metric_table(std::ostream& out, const Scenario& scenario, const AnalyzeReport& report) {
  const AnalyticPrediction& p = report.prediction;
  const std::optional<RunSummary>& summary = report.summary;
  const int flagged = report.flagged;
  out << fmt::format("replicas   {} (seed {})\n\n", summary ? summary->replicas : 0, scenario.run.seed);
  out << fmt::format("  {:<30} {:>16} {:>16} {:>14}\n", "metric", "closed form", "simulated mean", "± ci95");
  const auto metrics = analyze_metrics();
  for (const auto& c : report.rows) {
    const auto row = std::find_if(metrics.begin(), metrics.end(), [&](const AnalyzeMetric& r) { return c.key == r.key; });
    const int prec = row->precision;
    const bool has_closed = p.available && p.metrics.count(c.key);
    const bool has_sim = summary && summary->metrics.count(c.key);
    out << fmt::format("{} {:<30} {:>16} {:>16} {:>14}\n", c.flagged ? '!' : ' ', row->label,
                       !has_closed ? std::string("-") : c.closed_valid ? fmt::format("{:.{}f}", c.closed, prec) : "n/a",
                       has_sim ? fmt::format("{:.{}f}", c.mean, prec) : "-",
                       !has_sim ? std::string("-") : summary->replicas < 2 ? "n/a" : fmt::format("{:.{}f}", c.ci95, prec));
  }
  if (p.available && summary)
    out << fmt::format("\n{} metric(s) outside the simulated 95% interval{}\n", flagged,
                       flagged > 0 ? " (marked '!'; about 1 in 20 is expected by chance)" : "");
}

}  // namespace

std::span<const AnalyzeMetric> analyze_metrics() { return kMetrics; }

bool analyze_disagrees(const std::string& key, double closed, double mean, double ci95, int replicas) {
  const double gap = std::abs(closed - mean);
  if (ci95 > 0) return gap > ci95;
  const bool count = key.rfind("failures.", 0) == 0 || key.rfind("recoveries.", 0) == 0;
  if (count && replicas > 0) return gap > 3.0 / replicas;
  return gap > 1e-9 * std::max({1.0, std::abs(closed), std::abs(mean)});
}

AnalyzeReport make_analyze_report(const Scenario& scenario, const StrategyCosts& costs, const RunChecks& checks) {
  AnalyzeReport report;
  check_closed_form_work(scenario, checks);  // the closed forms build the placement first
  report.prediction = predict_run(scenario, costs);
  if (scenario.run.replicas > 0) {
    const RunModel model = checked_run_model(scenario, costs, scenario.run.replicas, checks);
    MonteCarloOptions options;
    options.replicas = scenario.run.replicas;
    options.jobs = checks.jobs;
    report.summary = summarize(run_replicas(model, options));
  }
  report.rows = compare_metrics(report.prediction, report.summary);
  report.flagged = static_cast<int>(
      std::count_if(report.rows.begin(), report.rows.end(), [](const AnalyzeComparison& c) { return c.flagged; }));
  report.best_every_iterations = closed_form_best_every(scenario, costs, report.prediction);
  report.standby = standby_sizing(scenario, kStandbyPercentiles);
  return report;
}

nlohmann::json analyze_report_json(const Scenario& scenario, const StrategyCosts& costs, const AnalyzeReport& report) {
  nlohmann::json doc;
  doc["scenario"] = effective_scenario_json(scenario);
  doc["costs"] = costs_json(costs);
  if (nlohmann::json restart = restart_phases_json(scenario); !restart.is_null()) doc["restart"] = std::move(restart);
  doc["closed_form"] = closed_form_json(report.prediction, report.best_every_iterations);
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& c : report.rows) {
    nlohmann::json m;
    if (c.closed_valid) m["closed"] = c.closed;
    if (report.summary && report.summary->metrics.count(c.key)) m["simulated"] = {{"mean", c.mean}, {"ci95", c.ci95}};
    m["disagrees"] = c.flagged;
    metrics[c.key] = m;
  }
  doc["metrics"] = metrics;
  doc["replicas"] = report.summary ? report.summary->replicas : 0;
  doc["disagreements"] = report.flagged;
  // Eq. 1 for one failure by recovery tier (analysis/eq1_by_tier.hpp): null where the strategy
  // cannot recover from that tier.
  const Eq1ByTier eq1 = eq1_by_tier(costs);
  const auto seconds_or_null = [](const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); };
  doc["closed_form"]["eq1_by_tier_s"] = {{"local", seconds_or_null(eq1.local)},
                                         {"peer", seconds_or_null(eq1.peer)},
                                         {"storage", seconds_or_null(eq1.storage)}};
  // The recovery parts every failure pays (analysis/failure_mix.hpp: rate-weighted over the
  // failure classes; the replacement delay's mean), for scripts that draw a recovery timeline.
  if (const FailureMix mix = failure_mix(scenario); mix.available)
    doc["closed_form"]["failure_means_s"] = {{"detection", mix.mean_detection_s},
                                             {"restart", mix.mean_restart_s},
                                             {"replacement", mean_replacement_s(scenario.failures.replacement)}};
  if (const std::optional<StandbySizing>& sizing = report.standby) {
    nlohmann::json pools = nlohmann::json::array();
    for (const auto& [q, k] : sizing->pools) pools.push_back({{"percentile", q}, {"standby_machines", k}});
    doc["closed_form"]["standby_sizing"] = {{"window_s", sizing->window_s},
                                            {"machine_probability", sizing->machine_probability},
                                            {"pools", pools},
                                            {"standby_machines", scenario.cluster.standby_machines}};
  }
  for (const ReportSection section : strategy_of(costs.strategy).report_sections())
    report_section(section).add_analyze_json(scenario, costs, doc);
  return doc;
}

nlohmann::json analyze_document(const Scenario& scenario, const StrategyCosts& costs, const AnalyzeReport& report,
                                const std::string& command_line) {
  nlohmann::json doc = analyze_report_json(scenario, costs, report);
  doc["manifest"] = make_manifest(scenario, command_line);
  return tidy_numbers(std::move(doc));
}

void print_analyze_report(std::ostream& out, const Scenario& scenario, const StrategyCosts& costs,
                          const AnalyzeReport& report) {
  print_header_lines(out, scenario, costs, report.prediction, report.best_every_iterations, report.standby);
  print_metric_table(out, scenario, report);
}

}  // namespace ckptsim
