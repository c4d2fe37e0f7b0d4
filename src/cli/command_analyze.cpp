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

#include "ckptsim/core/printable.hpp"
#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/multi_level_model.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/erasure_summary.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

/// The level table of a multi-level scenario: rates, periods, rollbacks and the best periods.
void print_multi_level(std::ostream& out, const MultiLevelPrediction& m) {
  out << "levels     first-order model (analysis/multi_level_model.hpp): P_i* = sqrt(2 (S_i - S_i-1) / lambda_i)\n";
  out << fmt::format("  {:<9} {:>14} {:>8} {:>10} {:>11} {:>12} {:>11} {:>12} {:>8}\n", "level", "failures/day",
                     "every", "stall (s)", "period (s)", "rollback (s)", "retrieve (s)", "best period", "best k");
  constexpr const char* kNames[] = {"local", "partner", "storage"};
  for (std::size_t i = 0; i < 3; ++i)
    out << fmt::format("  {:<9} {:>14.3f} {:>8} {:>10.2f} {:>11.1f} {:>12.1f} {:>11.2f} {:>12.1f} {:>8}\n", kNames[i],
                       m.rate[i] * 86400.0, m.every[i], m.stall_s[i], m.period_s[i], m.rollback_s[i], m.retrieval_s[i],
                       m.best_period_s[i], m.best_every[i]);
  out << fmt::format("  checkpoint overhead {:.4f}; first-order ETTR {:.4f} now, {:.4f} at the best periods\n",
                     m.checkpoint_overhead, m.ettr, m.best_ettr);
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
    if (costs.tier == CheckpointTier::multi_level) {
      print_multi_level(out, predict_multi_level(scenario, costs));
    } else if (takes_checkpoints(costs.tier)) {
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
    if (costs.erasure_coded())
      out << fmt::format("memory     P(a hardware failure leaves its coding group with more than p = {} members replaced) = {:.3g}\n",
                         costs.parity, p.memory_loss_per_hardware_failure);
    else if (costs.tier == CheckpointTier::memory)
      out << fmt::format("memory     P(a hardware failure leaves some checkpoint without holders) = {:.3g}\n",
                         p.memory_loss_per_hardware_failure);
    for (const auto& n : p.notes) out << "note       " << n << '\n';
    for (const auto& t : p.omitted_terms) out << "leaves out " << t << " (compare with the Monte Carlo)\n";
  }
}

/// The metric table: closed form, simulated mean and ci95, '!' where they disagree.
void print_analyze_table(std::ostream& out, const Scenario& scenario, const AnalyzeReport& report) {
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
      ("jobs,j", po::value<int>(&jobs)->default_value(1), kJobsHelp)
      ("force", "run even when the estimated memory, flows or simulated events exceed the limits of docs/limits.md");
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

  const RunChecks checks{jobs, vm.count("force") > 0};
  const StrategyCosts costs = checked_strategy_costs(scenario, checks);
  const AnalyzeReport report = make_analyze_report(scenario, costs, checks);
  if (json) {
    ctx.out << analyze_document(scenario, costs, report, ctx.command_line).dump(2) << '\n';
    return 0;
  }
  print_analyze_header(ctx.out, scenario, costs, report.prediction, report.best_every_iterations);
  print_analyze_table(ctx.out, scenario, report);
  return 0;
}

}  // namespace ckptsim::cli
