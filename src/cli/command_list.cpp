// ckptsim list: every name a scenario can use (presets, strategies, placements, failure
// processes, traffic schedulers) and every scenario parameter with its unit and default.
#include <algorithm>
#include <array>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/workload/engine.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/run/strategy.hpp"
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
    out << fmt::format("  {:<20}   {}\n", "",
                       g.gemm_depth_overhead
                           ? fmt::format("GEMM depth overhead K0 {:g} elements at reference depth {:g} ({}: {})",
                                         g.gemm_depth_overhead->value, g.gemm_reference_depth,
                                         to_string(g.gemm_depth_overhead->origin), g.gemm_depth_overhead->source)
                           : std::string("GEMM depth overhead none (no per-shape sweep found; every depth at the GEMM figure)"));
    if (g.nvlink_ring_curve)
      out << fmt::format("  {:<20}   collectives inside a machine of {} GPUs: nccl-tests curves, reduce-scatter/all-gather {}{}; "
                         "all-reduce {}{}\n",
                         "", g.nvlink_curve_gpus, g.nvlink_ring_curve->source, g.nvlink_ring_curve->assumed ? " (assumed)" : "",
                         g.nvlink_all_reduce_curve ? g.nvlink_all_reduce_curve->source : std::string("the ring curve"),
                         g.nvlink_all_reduce_curve && g.nvlink_all_reduce_curve->assumed ? " (assumed)" : "");
    else
      out << fmt::format("  {:<20}   collectives inside a machine: no published curve; a ring at the NVLink rate\n", "");
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
  out << "scenario parameters, by the unit that declares them (JSON pointer, unit, default; [the models that read it])\n";
  // The pointer column is as wide as the longest pointer; units and defaults get fixed columns,
  // and a row whose unit or default is wider (a long list of names) puts its description on the
  // next line, at the description column, so that no row shifts the columns of the others.
  const std::vector<ParameterDoc> rows = scenario_parameters();
  std::size_t pointer = 0;
  for (const auto& p : rows) pointer = std::max(pointer, p.pointer.size());
  constexpr std::size_t unit = 14, fallback = 22;
  const std::string indent(2 + pointer + 1 + unit + 1 + fallback + 1, ' ');
  std::string owner;
  for (const auto& p : rows) {
    if (p.owner != owner) out << fmt::format(" {}\n", owner = p.owner);
    const std::string description = fmt::format("{} [{}]", p.description, p.read_by);
    if (p.unit.size() <= unit && p.default_text.size() <= fallback) {
      out << fmt::format("  {:<{}} {:<{}} {:<{}} {}\n", p.pointer, pointer, p.unit, unit, p.default_text, fallback,
                         description);
    } else {
      out << fmt::format("  {:<{}} {} (default {})\n{}{}\n", p.pointer, pointer, p.unit, p.default_text, indent,
                         description);
    }
  }
  out << '\n';
}

}  // namespace

namespace {

/// Every list, in the order `ckptsim list` prints them; `group` is the wider list that also
/// prints it (presets, failures), so that each name the full listing shows is a WHAT of its own.
struct ListSection {
  const char* name;
  const char* group;
  void (*print)(std::ostream&);
};

const std::vector<ListSection>& list_sections() {
  static const std::vector<ListSection> sections = {
      {"instances", "presets", &print_instances},
      {"gpus", "presets", &print_gpus},
      {"models", "presets", &print_models},
      {"strategies", "", [](std::ostream& o) { print_registry(o, "strategies (strategy.kind)", strategy_registry()); }},
      {"placements", "",
       [](std::ostream& o) { print_registry(o, "placements (strategy.placement)", placement_registry()); }},
      {"processes", "failures",
       [](std::ostream& o) { print_registry(o, "failure processes (failures.process)", failure_process_registry()); }},
      {"domains", "failures",
       [](std::ostream& o) { print_registry(o, "failure domains (failures.domains)", failure_domain_registry()); }},
      {"lemons", "failures", &print_lemon_models},
      {"causes", "failures", &print_cause_presets},
      {"schedulers", "",
       [](std::ostream& o) { print_registry(o, "traffic schedulers (strategy.scheduler)", scheduler_registry()); }},
      {"engines", "",
       [](std::ostream& o) { print_registry(o, "training engines (training.engine)", engine_registry()); }},
      {"parameters", "", &print_parameters},
  };
  return sections;
}

/// "presets, instances, gpus, ..., all": every WHAT `list` accepts, groups before their members.
std::string list_names() {
  std::vector<std::string> names;
  for (const auto& s : list_sections()) {
    if (*s.group != '\0' && std::find(names.begin(), names.end(), s.group) == names.end()) names.push_back(s.group);
    names.push_back(s.name);
  }
  names.push_back("all");
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n;
  return text;
}

}  // namespace

int command_list(const CommandContext& ctx) {
  namespace po = boost::program_options;
  po::options_description options(
      "usage: ckptsim list [WHAT]\n\nLists what a scenario can name. WHAT is one of: presets (instances, GPU types "
      "and\nmodels), instances, gpus, models, strategies, placements, failures (processes,\ndomains, lemons, "
      "causes), processes, domains, lemons, causes, schedulers, engines,\nparameters (default: all)\n\noptions");
  options.add_options()("help,h", "print this help");
  std::string what = "all";
  if (!parse_command_options(ctx, options, "what", &what)) return 0;
  bool printed = false;
  for (const auto& s : list_sections()) {
    if (what != "all" && what != s.name && what != s.group) continue;
    s.print(ctx.out);
    printed = true;
  }
  if (!printed) throw UsageError(fmt::format("unknown list \"{}\": expected one of {}", what, list_names()));
  return 0;
}

}  // namespace ckptsim::cli
