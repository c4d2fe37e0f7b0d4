// ckptsim analyze: the closed forms (analysis/analytic_models.hpp) next to the run model's
// Monte Carlo estimates, with every disagreement beyond the confidence interval flagged.
#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/analyze_report.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/loader.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

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
  print_analyze_report(ctx.out, scenario, costs, report);
  return 0;
}

}  // namespace ckptsim::cli
