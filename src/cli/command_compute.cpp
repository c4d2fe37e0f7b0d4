// ckptsim compute: where one GPU's compute time goes under the kernel compute model — per kernel
// class of one layer, per submodule use, and DeepSpeed's step phases (output/compute_report.hpp).
#include <ostream>
#include <string>

#include <boost/program_options.hpp>
#include <nlohmann/json.hpp>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/numbers.hpp"
#include "ckptsim/output/compute_report.hpp"
#include "ckptsim/output/manifest.hpp"
#include "ckptsim/scenario/loader.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

int command_compute(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim compute SCENARIO [options]\n\n"
      "Times one GPU's compute under the kernel model (docs/models.md, \"Compute from kernels\"): GEMMs from\n"
      "their shape in waves of tiles over the GPU's SMs at its measured GEMM efficiency, memory-bound kernels\n"
      "from their bytes over the achieved HBM bandwidth, attention unfused or fused (training.attention), a\n"
      "launch per kernel. Prints one layer's time per kernel class and pass, each submodule use's time, the\n"
      "iteration's compute, and DeepSpeed 0.7.3's boundary and optimizer-step phases.\n\noptions");
  visible.add_options()("help,h", "print this help")
      ("kernels", "also list every kernel of one layer and of the embedding and output stages, each GEMM with its shape, waves and the fraction of the peak it achieves")
      ("json", "print JSON instead of the table");
  std::string scenario_path;
  const auto parsed = parse_command_options(ctx, visible, "scenario", &scenario_path);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (scenario_path.empty()) throw UsageError("missing SCENARIO (a scenario JSON file)");
  const Scenario scenario = load_scenario_file(scenario_path);
  const ComputeReport report = make_compute_report(scenario);
  const bool kernels = vm.count("kernels") > 0;
  if (vm.count("json")) {
    nlohmann::json doc = compute_report_json(report, kernels);
    doc["manifest"] = make_manifest(scenario, ctx.command_line);
    doc["scenario"] = scenario.name;
    ctx.out << tidy_numbers(std::move(doc)).dump(2) << '\n';
  } else {
    print_compute_report(ctx.out, report, kernels);
  }
  return 0;
}

}  // namespace ckptsim::cli
