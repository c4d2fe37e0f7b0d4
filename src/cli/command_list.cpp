// ckptsim list: every name a scenario can use (presets, strategies, placements, failure
// processes, traffic schedulers) and every scenario parameter with its unit and default.
#include <array>
#include <ostream>
#include <string>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/workload/engine.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {
namespace {

template <typename Factory>
void print_registry(std::ostream& out, const std::string& title, const Registry<Factory>& registry) {
  out << title << '\n';
  for (const auto& e : registry.entries()) out << fmt::format("  {:<20} {}\n", e.name, e.description);
  out << '\n';
}

std::string kernel_figure(const char* what, const KernelFigure& f) {
  return fmt::format("{} {:.3f} ({}: {})", what, f.value, to_string(f.origin), f.source);
}

void print_gpus(std::ostream& out) {
  out << "GPU types (cluster.gpu; figures: data sheet; kernel efficiencies: measured, assumed from a sibling GPU, or "
         "the data sheet's)\n";
  for (const auto& g : gpu_types()) {
    out << fmt::format("  {:<20} {}: {} SMs at {:.0f} MHz, {:.1f} TFLOPS dense FP16/BF16, {} HBM at {:.0f} GB/s, NVLink "
                       "{:.0f} GB/s each way\n",
                       g.name, g.description, g.sms, g.clock_hz / 1e6, g.peak_flops / 1e12, format_bytes(g.memory_bytes),
                       g.memory_bandwidth / 1e9, g.nvlink_bandwidth / 1e9);
    out << fmt::format("  {:<20}   {}\n", "", kernel_figure("GEMM", g.gemm_efficiency));
    out << fmt::format("  {:<20}   {}\n", "", kernel_figure("HBM", g.memory_efficiency));
    out << fmt::format("  {:<20}   {}\n", "",
                       g.flash_efficiency ? kernel_figure("FlashAttention-2", *g.flash_efficiency)
                                          : std::string("FlashAttention-2 none (no published figure or no kernel)"));
    out << fmt::format("  {:<20}   launch {} per kernel ({}); GEMM tiles {} x {}\n", "", format_duration(g.launch_overhead),
                       g.launch_source, g.tile_m, g.tile_n);
    out << fmt::format("  {:<20}   data sheet: {}\n", "", g.data_sheet);
  }
  out << '\n';
}

void print_instances(std::ostream& out) {
  out << "instances (cluster.instance)\n";
  for (const auto& p : instance_presets()) {
    const std::string link = p.pcie_generation > 0 ? fmt::format("PCIe gen{}", p.pcie_generation) : "NVLink-C2C";
    out << fmt::format("  {:<20} {}: {} x {}, {} CPU memory, {} network ({}), {} {} per GPU, {}\n", p.name, p.description,
                       p.gpus_per_machine, p.gpu, format_bytes(p.cpu_memory_bytes), format_bandwidth(p.network_bandwidth),
                       p.network, link, fmt::format("{:.2f} GB/s", p.gpu_cpu_bandwidth / 1e9),
                       p.gpudirect_rdma ? "GPUDirect RDMA" : "no GPUDirect RDMA (host staging)");
    out << fmt::format("  {:<20}   network bandwidth factors: {}\n", "", p.bandwidth_factors);
    out << fmt::format("  {:<20}   host link: {}\n", "", p.gpu_cpu_source);
    out << fmt::format("  {:<20}   source: {}\n", "", p.source);
  }
  out << '\n';
}

void print_models(std::ostream& out) {
  out << "models (model.preset)\n";
  for (const auto& p : model_presets())
    out << fmt::format("  {:<20} {:.1f}B parameters, {} layers, hidden {}, FFN {}, {} heads{} — {}\n", p.name,
                       preset_parameters(p) / 1e9, p.layers, p.hidden, p.ffn, p.heads, p.causal ? "" : ", bidirectional",
                       p.description);
  out << '\n';
}

void print_lemon_models(std::ostream& out) {
  out << "lemon models (failures.lemons.model)\n";
  const auto names = lemon_model_names();
  const std::array<const char*, 3> what{"every machine fails at the base rate",
                                        "a fraction of machines fails at a multiple of the base rate",
                                        "each machine's rate multiplier is drawn from Gamma(k, 1/k), mean 1"};
  for (std::size_t i = 0; i < names.size() && i < what.size(); ++i)
    out << fmt::format("  {:<20} {}\n", names[i], what[i]);
  out << '\n';
}

void print_cause_presets(std::ostream& out) {
  out << "failure cause tables (failures.causes)\n";
  for (const auto& p : cause_presets()) {
    double total = 0;
    for (const auto& c : p.causes) total += c.share;
    out << fmt::format("  {:<20} {} causes — {}\n", p.name, p.causes.size(), p.source);
    for (const auto& c : p.causes)
      out << fmt::format("    {:<26} {:>5.1f}%  {}\n", c.name, 100.0 * c.share / total, c.hardware ? "hardware" : "software");
  }
  out << '\n';
}

void print_parameters(std::ostream& out) {
  out << "scenario parameters (JSON pointer, unit, default)\n";
  for (const auto& p : scenario_parameters())
    out << fmt::format("  {:<38} {:<12} {:<22} {}\n", p.pointer, p.unit, p.default_text, p.description);
  out << '\n';
}

}  // namespace

int command_list(const CommandContext& ctx) {
  namespace po = boost::program_options;
  po::options_description options(
      "usage: ckptsim list [WHAT]\n\nLists what a scenario can name. WHAT is one of: presets (instances, GPU types "
      "and\nmodels), instances, gpus, models, strategies, placements, failures, schedulers,\nengines, parameters "
      "(default: all)\n\noptions");
  options.add_options()("help,h", "print this help");
  std::string what = "all";
  if (!parse_command_options(ctx, options, "what", &what)) return 0;
  const bool every = what == "all";
  bool printed = false;
  auto want = [&](const char* name) {
    const bool yes = every || what == name;
    printed = printed || yes;
    return yes;
  };
  const bool presets = want("presets");
  if (presets || want("instances")) print_instances(ctx.out);
  if (presets || want("gpus")) print_gpus(ctx.out);
  if (presets || want("models")) print_models(ctx.out);
  if (want("strategies")) print_registry(ctx.out, "strategies (strategy.kind)", strategy_registry());
  if (want("placements")) print_registry(ctx.out, "placements (strategy.placement)", placement_registry());
  if (want("failures")) {
    print_registry(ctx.out, "failure processes (failures.process)", failure_process_registry());
    print_registry(ctx.out, "failure domains (failures.domains)", failure_domain_registry());
    print_lemon_models(ctx.out);
    print_cause_presets(ctx.out);
  }
  if (want("schedulers")) print_registry(ctx.out, "traffic schedulers (strategy.scheduler)", scheduler_registry());
  if (want("engines")) print_registry(ctx.out, "training engines (training.engine)", engine_registry());
  if (want("parameters")) print_parameters(ctx.out);
  if (!printed)
    throw UsageError(fmt::format(
        "unknown list \"{}\": expected one of presets, instances, gpus, models, strategies, placements, failures, "
        "schedulers, engines, parameters, all",
        what));
  return 0;
}

}  // namespace ckptsim::cli
