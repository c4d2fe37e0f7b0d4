// ckptsim optimize: the best ETTR over combinations of scenario values (analysis/optimizer.hpp).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <optional>
#include <ostream>
#include <sstream>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/printable.hpp"
#include "ckptsim/analysis/optimize_study.hpp"
#include "ckptsim/analysis/optimizer.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/output/assumptions_report.hpp"
#include "ckptsim/output/optimize_report.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

nlohmann::json read_document(const std::string& path) {
  return read_json_file(path, "a scenario file");
}

std::string value_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

/// The command line of `ckptsim optimize`, checked.
struct OptimizeArgs {
  std::string scenario_path;
  std::vector<VaryAxis> axes;
  OptimizeOptions options;
  bool json = false;
  bool force = false;  ///< --force: skip the work limits
  bool every_default = false;  ///< --defaults
};

/// nullopt after printing the help.
std::optional<OptimizeArgs> parse_optimize_args(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim optimize SCENARIO --vary POINTER=V1,V2,... [--vary ...] [options]\n\n"
      "Evaluates every combination of the values given for each JSON pointer of the scenario\n"
      "(e.g. --vary /strategy/replicas=2,3,4 --vary /strategy/every_iterations=1,2,4\n"
      "--vary /strategy/gpu_buffer=64MiB,128MiB), drops those that do not fit in CPU memory\n"
      "(the scenario loader's check) or GPU memory (the iteration model's GPU buffer for the\n"
      "in-memory strategies), and reports the best effective training time ratio (ETTR), the\n"
      "runner-up and the time-breakdown part that made it lose.\n"
      "Ranking: the ETTR closed form (analysis/analytic_models.hpp) by default; with\n"
      "--replicas N > 0 the run model's Monte Carlo mean (closed form shown beside it).\n"
      "Standby pool sizing: every combination reports its goodput per machine-hour,\n"
      "ETTR x N / (N + standby machines); --objective goodput ranks by it, so\n"
      "--vary /cluster/standby_machines=0,1,2,4,8 --objective goodput chooses the pool size.\n\n"
      "options");
  std::vector<std::string> varies;
  int replicas = 0;
  long long seed = -1;
  int jobs = 1;
  std::string objective = "ettr";
  visible.add_options()("help,h", "print this help")
      ("objective", po::value<std::string>(&objective)->default_value("ettr"),
       "what to maximise: ettr, or goodput (goodput per machine-hour, standby machines counted)")
      ("vary,v", po::value<std::vector<std::string>>(&varies), "POINTER=V1,V2,...: values to try at a JSON pointer (repeatable)")
      ("json", "print one JSON document instead of the table")
      ("replicas,r", po::value<int>(&replicas)->default_value(0), "Monte Carlo replicas per combination (0 = closed form only)")
      ("seed,s", po::value<long long>(&seed), "random seed (default: the scenario's run.seed)")
      ("jobs,j", po::value<int>(&jobs)->default_value(1), kJobsHelp)
      ("defaults", "under the header, list every parameter the scenario file does not write (value and origin) "
                   "instead of the key assumptions")
      ("force", "run even when the combinations or a combination's estimated work exceed the limits of docs/limits.md");
  OptimizeArgs args;
  const auto parsed = parse_command_options(ctx, visible, "scenario", &args.scenario_path);
  if (!parsed) return std::nullopt;
  const auto& vm = *parsed;
  if (args.scenario_path.empty()) throw UsageError("missing SCENARIO (a scenario JSON file)");
  if (varies.empty()) throw UsageError("give at least one --vary POINTER=V1,V2,...");
  if (replicas < 0) throw UsageError(fmt::format("--replicas expects 0 or more, found {}", replicas));
  if (vm.count("seed") && seed < 0) throw UsageError(fmt::format("--seed expects a non-negative integer, found {}", seed));
  jobs = resolve_jobs(jobs);
  args.json = vm.count("json") > 0;
  args.force = vm.count("force") > 0;
  args.every_default = vm.count("defaults") > 0;
  try {
    for (const auto& v : varies) args.axes.push_back(parse_vary_axis(v));
    check_vary_axes(args.axes);
  } catch (const ModelError& e) {
    throw UsageError(e.message());  // a malformed --vary is a usage error on the command line
  }
  enforce_combination_limit(args.axes, args.force);
  if (objective == "goodput") {
    args.options.objective = OptimizeObjective::goodput_per_machine_hour;
  } else if (objective != "ettr") {
    throw UsageError(fmt::format("--objective expects ettr or goodput, found \"{}\"", objective));
  }
  args.options.replicas = replicas;
  args.options.jobs = jobs;
  args.options.force = args.force;
  if (vm.count("seed")) args.options.seed = static_cast<std::uint64_t>(seed);
  return args;
}

/// Candidates in table order: fitting ones by ETTR (best first), then the others as given.
std::vector<std::size_t> table_order(const OptimizeResult& result, OptimizeObjective objective) {
  std::vector<std::size_t> order(result.candidates.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const auto& ca = result.candidates[a];
    const auto& cb = result.candidates[b];
    if ((ca.status == CandidateStatus::ok) != (cb.status == CandidateStatus::ok)) return ca.status == CandidateStatus::ok;
    return ca.status == CandidateStatus::ok && objective_value(ca, objective) > objective_value(cb, objective);
  });
  return order;
}

/// The ranking table: every column as wide as its widest cell, so no value shifts a row; `closed`
/// only when a Monte Carlo ranked (otherwise it is the ETTR column again); stall% and lost% "-"
/// where the ranking model gives no time breakdown (the closed form of multi-level); combinations
/// with the same objective value share a rank.
void print_candidates(std::ostream& out, const std::vector<VaryAxis>& axes, const OptimizeResult& result,
                      OptimizeObjective objective) {
  const bool simulated = std::any_of(result.candidates.begin(), result.candidates.end(),
                                     [](const Candidate& c) { return c.simulated.has_value(); });
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> head{"rank"};
  for (const auto& axis : axes) head.push_back(axis.pointer);
  head.insert(head.end(), {"ETTR"});
  if (simulated) head.push_back("closed");
  head.insert(head.end(), {"goodput/mh", "stall%", "lost%"});
  rows.push_back(head);
  const auto share = [](const Candidate& c, const char* part) {
    return c.shares.count(part) ? fmt::format("{:.3f}", c.shares.at(part) * 100.0) : std::string("-");
  };
  std::vector<std::string> status;
  status.push_back("status");
  int rank = 0, position = 0;
  double previous = 0;
  for (std::size_t i : table_order(result, objective)) {
    const auto& c = result.candidates[i];
    std::vector<std::string> row;
    if (c.status == CandidateStatus::ok) {
      const double v = objective_value(c, objective);
      ++position;
      if (position == 1 || std::abs(v - previous) > 1e-12 * std::max(1.0, std::abs(v))) rank = position;
      previous = v;
      row.push_back(std::to_string(rank));
    } else {
      row.push_back("-");
    }
    for (const auto& setting : c.settings) row.push_back(value_text(setting.second));
    const bool ok = c.status == CandidateStatus::ok;
    row.push_back(ok ? fmt::format("{:.4f}", c.ettr) : "-");
    if (simulated) row.push_back(ok && c.closed.available ? fmt::format("{:.4f}", c.closed.ettr) : "-");
    row.push_back(ok ? fmt::format("{:.4f}", c.goodput_per_machine_hour) : "-");
    row.push_back(ok ? share(c, "checkpoint_stall") : "-");
    row.push_back(ok ? share(c, "lost_progress") : "-");
    rows.push_back(row);
    status.push_back(ok ? "ok" : fmt::format("{}: {}", to_string(c.status), c.reason));
  }
  std::vector<std::size_t> width(head.size(), 9);  // at least as wide as "-0.000000"
  width[0] = 4;
  for (const auto& row : rows)
    for (std::size_t k = 0; k < row.size(); ++k) width[k] = std::max(width[k], row[k].size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line = " ";
    for (std::size_t k = 0; k < rows[r].size(); ++k) line += fmt::format(" {:>{}}", rows[r][k], width[k]);
    out << line << "  " << status[r] << '\n';
  }
  out << '\n';
}

void print_optimize_table(std::ostream& out, const Scenario& base, const std::vector<VaryAxis>& axes,
                          const OptimizeResult& result, const std::string& gpu_note, OptimizeObjective objective,
                          bool every_default) {
  out << fmt::format("scenario   {} — {} combination(s), ranked by {}\n", printable(base.name), result.candidates.size(), result.ranking);
  print_assumptions(out, base, every_default);
  if (!gpu_note.empty()) out << "note       " << gpu_note << '\n';
  out << '\n';
  print_candidates(out, axes, result, objective);
  if (!result.best) {
    out << "no combination fits\n";
    return;
  }
  const auto& best = result.candidates[*result.best];
  out << fmt::format("best       {}  ETTR {:.4f}, goodput per machine-hour {:.4f}\n", best.label(), best.ettr,
                     best.goodput_per_machine_hour);
  if (!result.runner_up) return;
  const auto& second = result.candidates[*result.runner_up];
  out << fmt::format("runner-up  {}  ETTR {:.4f} ({:+.4f}), goodput per machine-hour {:.4f}\n", second.label(),
                     second.ettr, second.ettr - best.ettr, second.goodput_per_machine_hour);
  out << fmt::format("why        {}\n", result.why_runner_up_lost);
  if (best.simulated && second.simulated) {
    const double ci = std::hypot(best.simulated->at("ettr").ci95, second.simulated->at("ettr").ci95);
    if (best.ettr - second.ettr <= ci)
      out << fmt::format("caution    the gap is within the Monte Carlo noise (about ±{:.4f})\n", ci);
  }
}

}  // namespace

int command_optimize(const CommandContext& ctx) {
  auto args = parse_optimize_args(ctx);
  if (!args) return 0;
  const std::string& path = args->scenario_path;
  const nlohmann::json doc = read_document(path);
  const std::string base_dir = std::filesystem::path(path).parent_path().string();
  const OptimizeStudy study = optimize_scenario(doc, path, base_dir, args->axes, args->options);
  if (args->json) {
    ctx.out << optimize_document(study, ctx.command_line).dump(2) << '\n';
  } else {
    print_optimize_table(ctx.out, study.base, args->axes, study.result, study.gpu_note, args->options.objective,
                         args->every_default);
  }
  return 0;
}

}  // namespace ckptsim::cli
