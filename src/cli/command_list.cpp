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

void print_presets(std::ostream& out) {
  out << "instances (cluster.instance)\n";
  for (const auto& p : instance_presets())
    out << fmt::format("  {:<20} {} x {} GPU, {} CPU memory, {} network — {}\n", p.name, p.gpus_per_machine,
                       format_bytes(p.gpu_memory_bytes), format_bytes(p.cpu_memory_bytes),
                       format_bandwidth(p.network_bandwidth), p.description);
  out << "\nmodels (model.preset)\n";
  for (const auto& p : model_presets())
    out << fmt::format("  {:<20} {:.1f}B parameters, {} layers, hidden {}, FFN {}, {} heads — {}\n", p.name,
                       preset_parameters(p) / 1e9, p.layers, p.hidden, p.ffn, p.heads, p.description);
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
      "usage: ckptsim list [WHAT]\n\nLists what a scenario can name. WHAT is one of: presets, strategies, "
      "placements,\nfailures, schedulers, engines, parameters (default: all)\n\noptions");
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
  if (want("presets")) print_presets(ctx.out);
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
        "unknown list \"{}\": expected one of presets, strategies, placements, failures, schedulers, engines, parameters, all",
        what));
  return 0;
}

}  // namespace ckptsim::cli
