// ckptsim validate: a plan's predictions (ckptsim schedule) against what a replay of that plan
// measured (ckptsim-replay). The comparison and its statistics live in the calibration layer
// (calibration/validation.hpp), the report in the output layer; this file parses the options,
// reads the two files and maps the verdict to the exit code (0 pass, 1 beyond the tolerance,
// 2 bad input).
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/plan_file.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"
#include "ckptsim/calibration/validation.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/cli/json_input.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/validation_report.hpp"
#include "input_guards.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

int command_validate(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim validate PLAN MEASURED [--json] [--tolerance X]\n\n"
      "Compares a plan's predictions (ckptsim schedule) with a replay of that plan (ckptsim-replay), or\n"
      "with the kernel classes of a profiled job (ckptsim import torch-profiler --kernels):\n"
      "the relative error's median and 90th percentile per operation kind and per phase, and the\n"
      "iteration-time, idle-time and checkpoint-completion errors. The timeline must be a replay of\n"
      "PLAN (its manifest names the plan's hash). Exits 1 when a median |error| exceeds the tolerance.\n\noptions");
  double tolerance = 0.1;
  visible.add_options()("help,h", "print this help")("json", "print JSON")
      ("tolerance", po::value<double>(&tolerance)->default_value(0.1, "0.1"), "largest median |relative error| that passes (0 < X <= 100)");
  const auto parsed = parse_files_options(ctx, ctx.args, visible, 2);
  if (!parsed) return 0;
  const po::variables_map& vm = parsed->vm;
  const std::vector<std::string>& files = parsed->files;
  if (files.size() != 2) throw UsageError("expects PLAN and MEASURED (a plan from ckptsim schedule, a timeline from ckptsim-replay)");
  if (!(tolerance > 0) || !(tolerance <= 100)) throw UsageError(fmt::format("--tolerance expects a number in (0, 100], found {}", tolerance));
  refuse_repeated_inputs("PLAN and MEASURED", files);
  const PlanFile plan = read_plan_file(files[0], 1e18);
  const nlohmann::json doc = read_json_file(files[1], "a measured timeline");
  const bool profiled = doc.is_object() && doc.contains("format") && doc["format"] == "ckptsim-kernels/1";
  const Validation v = with_json_file_context(files[1], "a measured timeline", [&] {
    return profiled ? validate_profile(plan, parse_kernel_classes_document(doc, files[1]), tolerance)
                    : validate(plan, parse_measured_timeline(doc, files[1]), tolerance);
  });
  if (vm.count("json")) {
    ctx.out << validation_json(v).dump(2) << '\n';
  } else {
    ctx.out << validation_table(v);
  }
  return v.pass ? 0 : 1;
}

}  // namespace ckptsim::cli
