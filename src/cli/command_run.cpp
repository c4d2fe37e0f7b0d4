// ckptsim run: Monte Carlo replicas of a whole training run under failures.
#include <iostream>
#include <ostream>
#include <sstream>
#include <thread>

#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/output/run_report.hpp"
#include "ckptsim/run/monte_carlo.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/loader.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

int command_run(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim run SCENARIO [options]\n\n"
      "Simulates the scenario's training run under failures, replica after replica (Monte Carlo),\n"
      "and prints the effective training time ratio (ETTR), failures, recoveries by tier, wasted\n"
      "time per failure and where the wall time went.\n\noptions");
  std::string output;
  std::string format = "table";
  int replicas = 0;
  long long seed = -1;
  int jobs = 1;
  visible.add_options()("help,h", "print this help")
      ("replicas,r", po::value<int>(&replicas), "Monte Carlo replicas (default: the scenario's run.replicas)")
      ("seed,s", po::value<long long>(&seed), "random seed (default: the scenario's run.seed)")
      ("jobs,j", po::value<int>(&jobs)->default_value(1), kJobsHelp)
      ("exact", "step iteration by iteration instead of the closed form (slow; for checking)")
      ("output,o", po::value<std::string>(&output), "also write the JSON report (manifest, scenario, summary) here")
      ("format,f", po::value<std::string>(&format)->default_value("table"),
       "stdout format: table (summary) or csv (one row per replica)")
      ("quiet,q", "no progress on stderr")
      ("defaults", "under the header, list every parameter the scenario file does not write (value and origin) "
                   "instead of the key assumptions")
      ("force", "run even when the estimated memory or simulated events exceed the limits of docs/limits.md");
  std::string scenario_path;
  const auto parsed = parse_command_options(ctx, visible, "scenario", &scenario_path);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (scenario_path.empty()) throw UsageError("missing SCENARIO (a scenario JSON file)");
  if (format != "table" && format != "csv") throw UsageError(fmt::format("--format expects table or csv, found \"{}\"", format));
  if (vm.count("replicas") && replicas < 1) throw UsageError(fmt::format("--replicas expects at least 1, found {}", replicas));
  if (vm.count("seed") && seed < 0) throw UsageError(fmt::format("--seed expects a non-negative integer, found {}", seed));

  refuse_output_over_inputs("--output", output, {scenario_path});
  Scenario scenario = load_scenario_file(scenario_path);
  refuse_output_over_inputs("--output", output, {scenario.failures.trace_file});
  if (!output.empty()) check_output_writable(output);
  if (vm.count("replicas")) scenario.run.replicas = replicas;
  if (vm.count("seed")) scenario.run.seed = static_cast<std::uint64_t>(seed);
  jobs = resolve_jobs(jobs);

  const RunChecks checks{jobs, vm.count("force") > 0};
  const StrategyCosts costs = checked_strategy_costs(scenario, checks);
  const RunModel model = checked_run_model(scenario, costs, scenario.run.replicas, checks);
  MonteCarloOptions options;
  options.replicas = scenario.run.replicas;
  options.jobs = jobs;
  options.mode = vm.count("exact") ? AdvanceMode::exact : AdvanceMode::closed_form;
  // Progress only for a person watching a terminal, and only when there is much to wait for.
  const bool show_progress = !vm.count("quiet") && &ctx.err == &std::cerr && isatty(STDERR_FILENO) != 0 &&
                             options.replicas >= 1000;
  if (show_progress) {
    options.progress = [&ctx](int done, int total) {
      if (done % std::max(1, total / 10) == 0 || done == total)
        ctx.err << fmt::format("\rckptsim run: {}/{} replicas", done, total) << (done == total ? "\n" : "")
                << std::flush;
    };
  }
  const auto results = run_replicas(model, options);
  const RunSummary summary = summarize(results);

  // Atomic (output_file.hpp): a killed or failed run never leaves a half-written report behind.
  if (!output.empty()) write_output_file(output, run_report_json(scenario, costs, summary, ctx.command_line).dump(2) + '\n');
  if (format == "csv") {
    write_replica_csv(ctx.out, results);
  } else {
    print_run_table(ctx.out, scenario, costs, summary, vm.count("defaults") > 0);
  }
  return 0;
}

}  // namespace ckptsim::cli
