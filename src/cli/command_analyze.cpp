// ckptsim analyze: the closed forms (analysis/analytic_models.hpp) next to the run model's
// Monte Carlo estimates, with every disagreement beyond the confidence interval flagged.
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>
#include <ostream>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/printable.hpp"
#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/resolve_costs.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/scenario/units.hpp"
#include "erasure_summary.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

struct MetricRow {
  const char* key;
  const char* label;
  int precision;
};

constexpr MetricRow kRows[] = {
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
};

struct Comparison {
  std::string key;
  double closed = 0;
  double mean = 0;
  double ci95 = 0;
  bool closed_valid = false;  ///< the closed form is a finite, non-negative number
  bool flagged = false;
};

/// |closed - mean| > ci95 flags a metric. When every replica gave the same value (ci95 = 0), a
/// count (failures, recoveries) uses the rule of three, 3/n (the 95% bound on a mean count
/// after n replicas that all saw the same count); other metrics a relative 1e-9 (rounding).
bool disagrees(const std::string& key, double closed, double mean, double ci95, int replicas) {
  const double gap = std::abs(closed - mean);
  if (ci95 > 0) return gap > ci95;
  const bool count = key.rfind("failures.", 0) == 0 || key.rfind("recoveries.", 0) == 0;
  if (count && replicas > 0) return gap > 3.0 / replicas;
  return gap > 1e-9 * std::max({1.0, std::abs(closed), std::abs(mean)});
}

}  // namespace

namespace {

/// One row per metric that has a closed form or a simulated value.
std::vector<Comparison> compare_metrics(const AnalyticPrediction& p, const std::optional<RunSummary>& summary) {
  std::vector<Comparison> rows;
  for (const auto& r : kRows) {
    Comparison c;
    c.key = r.key;
    const auto closed = p.metrics.find(r.key);
    const bool has_closed = p.available && closed != p.metrics.end();
    const bool has_sim = summary && summary->metrics.count(r.key) && summary->at(r.key).count > 0;
    if (!has_closed && !has_sim) continue;
    // A closed form that is not finite (or a negative count) is no prediction: shown as n/a,
    // never compared, never printed as nan/inf.
    if (has_closed) c.closed = closed->second;
    c.closed_valid = has_closed && std::isfinite(c.closed) && c.closed >= 0;
    if (has_sim) {
      c.mean = summary->at(r.key).mean;
      c.ci95 = summary->at(r.key).ci95;
    }
    c.flagged = c.closed_valid && has_sim && summary->replicas >= 2 && disagrees(c.key, c.closed, c.mean, c.ci95, summary->replicas);
    rows.push_back(c);
  }
  return rows;
}

/// The JSON document of `analyze --json`.
nlohmann::json analyze_json(const CommandContext& ctx, const Scenario& scenario, const StrategyCosts& costs,
                            const AnalyticPrediction& p, const std::optional<RunSummary>& summary,
                            const std::vector<Comparison>& rows, int flagged, std::int64_t best_every) {
  nlohmann::json doc;
  doc["manifest"] = make_manifest(scenario, ctx.command_line);
  doc["scenario"] = effective_scenario_json(scenario);
  doc["costs"] = costs_json(costs);
  if (costs.erasure_coded()) doc["erasure_code"] = erasure_summary_json(scenario, costs);
  nlohmann::json closed;
  closed["available"] = p.available;
  if (!p.available) closed["reason"] = p.reason;
  closed["notes"] = p.notes;
  if (p.available) {
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
  }
  doc["closed_form"] = closed;
  nlohmann::json metrics = nlohmann::json::object();
  for (const auto& c : rows) {
    nlohmann::json m;
    if (c.closed_valid) m["closed"] = c.closed;
    if (summary && summary->metrics.count(c.key)) m["simulated"] = {{"mean", c.mean}, {"ci95", c.ci95}};
    m["disagrees"] = c.flagged;
    metrics[c.key] = m;
  }
  doc["metrics"] = metrics;
  doc["replicas"] = summary ? summary->replicas : 0;
  doc["disagreements"] = flagged;
  return doc;
}

/// The lines above the metric table: scenario, costs, failures, Eq. 1, intervals, notes.
void print_analyze_header(std::ostream& out, const Scenario& scenario, const StrategyCosts& costs,
                          const AnalyticPrediction& p, std::int64_t best_every) {
  out << fmt::format("scenario   {} — {} machines, strategy {}, {}\n", printable(scenario.name), scenario.cluster.machines,
                     name_of(scenario.strategy.kind),
                     scenario.run.duration ? format_duration(*scenario.run.duration)
                                           : fmt::format("{} iterations", scenario.run.iterations.value_or(0)));
  out << fmt::format("costs      iteration {}, every {} iteration(s), stall {}, complete after {}\n",
                     format_duration(costs.iteration_time), costs.every_iterations, format_duration(costs.stall),
                     format_duration(costs.completion));
  if (costs.erasure_coded()) print_erasure_summary(out, scenario, costs);
  if (!p.available) {
    out << fmt::format("closed form: not available — {}\n", p.reason);
  } else {
    out << fmt::format("failures   Lambda = {:.4g} per day for the cluster (MTBF {}); an episode lasts {:.1f} s on average, "
                       "{:.4f} failures per episode\n",
                       p.failure_rate * 86400.0, p.mtbf_s > 0 ? format_duration(SimTime::from_seconds(p.mtbf_s)) : "-",
                       p.episode_mean_s, p.failures_per_episode);
    if (costs.tier != CheckpointTier::none) {
      out << fmt::format("Eq. 1      t_ckpt + 1/(2f) + t_rtvl = {:.1f} s per failure (GEMINI SOSP '23 §2)\n",
                         p.eq1_wasted_time_s);
      if (p.mtbf_s > 0 && p.checkpoint_cost_s <= 0)
        out << fmt::format("intervals  no stall per checkpoint: Young and Daly give 0 s, i.e. every iteration (Eq. 2); "
                           "closed-form best: every {} iteration(s)\n",
                           best_every);
      else if (p.mtbf_s > 0)
        out << fmt::format("intervals  Young {:.1f} s ({:.1f} iterations), Daly {:.1f} s ({:.1f} iterations) for a {:.2f} s "
                           "checkpoint; closed-form best: every {} iteration(s)\n",
                           p.young_interval_s, p.young_every_iterations, p.daly_interval_s, p.daly_every_iterations,
                           p.checkpoint_cost_s, best_every);
    }
    if (costs.tier == CheckpointTier::memory)
      out << fmt::format("memory     P(a hardware failure leaves some checkpoint without holders) = {:.3g}\n",
                         p.memory_loss_per_hardware_failure);
    for (const auto& n : p.notes) out << "note       " << n << '\n';
  }
}

/// The metric table: closed form, simulated mean and ci95, '!' where they disagree.
void print_analyze_table(std::ostream& out, const Scenario& scenario, const AnalyticPrediction& p,
                         const std::optional<RunSummary>& summary, const std::vector<Comparison>& rows, int flagged) {
  out << fmt::format("replicas   {} (seed {})\n\n", summary ? summary->replicas : 0, scenario.run.seed);
  out << fmt::format("  {:<30} {:>16} {:>16} {:>14}\n", "metric", "closed form", "simulated mean", "± ci95");
  for (const auto& c : rows) {
    const auto* row = std::find_if(std::begin(kRows), std::end(kRows), [&](const MetricRow& r) { return c.key == r.key; });
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

int command_analyze(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim analyze SCENARIO [options]\n\n"
      "Prints the closed-form predictions for the scenario (ETTR, wasted time per failure,\n"
      "failures, recoveries by tier, time breakdown; Eq. 1 of GEMINI; Young's and Daly's optimal\n"
      "checkpoint intervals) next to the run model's Monte Carlo estimates (mean +- 95% CI), and\n"
      "flags (with '!') every metric whose closed form lies outside the simulated interval.\n"
      "Closed forms assume Poisson failures (exponential; weibull is approximated by a Poisson\n"
      "process with the same expected count; trace-driven runs have none). About 1 metric in 20\n"
      "falls outside a 95% interval by chance. Derivation and approximations:\n"
      "include/ckptsim/analysis/analytic_models.hpp.\n\n"
      "options");
  int replicas = 0;
  long long seed = -1;
  int jobs = 1;
  visible.add_options()("help,h", "print this help")
      ("json", "print one JSON document instead of the table")
      ("replicas,r", po::value<int>(&replicas), "Monte Carlo replicas (default: the scenario's run.replicas; 0 = closed form only)")
      ("seed,s", po::value<long long>(&seed), "random seed (default: the scenario's run.seed)")
      ("jobs,j", po::value<int>(&jobs)->default_value(1), kJobsHelp);
  std::string scenario_path;
  const auto parsed = parse_command_options(ctx, visible, "scenario", &scenario_path);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (scenario_path.empty()) throw UsageError("missing SCENARIO (a scenario JSON file)");
  if (vm.count("replicas") && replicas < 0) throw UsageError(fmt::format("--replicas expects 0 or more, found {}", replicas));
  if (vm.count("seed") && seed < 0) throw UsageError(fmt::format("--seed expects a non-negative integer, found {}", seed));
  const bool json = vm.count("json") > 0;

  Scenario scenario = load_scenario_file(scenario_path);
  if (vm.count("replicas")) scenario.run.replicas = replicas;
  if (vm.count("seed")) scenario.run.seed = static_cast<std::uint64_t>(seed);
  jobs = resolve_jobs(jobs);

  const StrategyCosts costs = resolve_strategy_costs(scenario);
  const AnalyticPrediction p = predict_run(scenario, costs);
  std::optional<RunSummary> summary;
  if (scenario.run.replicas > 0) {
    const RunModel model(scenario, costs);
    MonteCarloOptions options;
    options.replicas = scenario.run.replicas;
    options.jobs = jobs;
    summary = summarize(run_replicas(model, options));
  }

  const std::vector<Comparison> rows = compare_metrics(p, summary);
  const auto flagged = static_cast<int>(std::count_if(rows.begin(), rows.end(), [](const Comparison& c) { return c.flagged; }));
  const std::int64_t best_every = p.available && costs.tier != CheckpointTier::none
                                ? static_cast<std::int64_t>(best_every_iterations(scenario, costs,
                                                                          std::max<std::int64_t>(1000, static_cast<std::int64_t>(4.0 * p.daly_every_iterations)))
                                                        .every_iterations)
                                : 0;

  if (json) {
    ctx.out << analyze_json(ctx, scenario, costs, p, summary, rows, flagged, best_every).dump(2) << '\n';
    return 0;
  }
  print_analyze_header(ctx.out, scenario, costs, p, best_every);
  print_analyze_table(ctx.out, scenario, p, summary, rows, flagged);
  return 0;
}

}  // namespace ckptsim::cli
