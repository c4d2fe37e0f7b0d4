#include <exception>
#include <new>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options/errors.hpp>
#include <fmt/format.h>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/manifest.hpp"

namespace ckptsim::cli {
namespace {

struct CommandEntry {
  const char* name;
  const char* summary;
  int (*function)(const CommandContext&);
};

constexpr CommandEntry kCommands[] = {
    {"run", "simulate whole training runs under failures (Monte Carlo)", command_run},
    {"iteration", "one training iteration: ZeRO-3 traffic, idle spans, checkpoint schedulers", command_iteration},
    {"compute", "one GPU's compute time from its kernels: per kernel class, submodule use and step phase",
     command_compute},
    {"schedule", "write the checkpoint chunk plan of one iteration (input of the replay tool)", command_schedule},
    {"placement", "exact probability of recovering from CPU memory, per replica placement", command_placement},
    {"analyze", "closed-form predictions next to the simulation, with disagreements flagged", command_analyze},
    {"optimize", "search strategy parameters for the best ETTR within memory budgets", command_optimize},
    {"validate", "compare a plan's predictions with what ckptsim-replay measured", command_validate},
    {"calibrate", "fit latency, bandwidth, FLOP/s and copy rate to replay measurements", command_calibrate},
    {"import", "read nccl-tests output and PyTorch profiler traces (calibration, measured profiles)", command_import},
    {"sweep", "run a parameter study (threads, MPI ranks, Slurm shards; resumable)", command_sweep},
    {"merge", "join the output folders of a sharded sweep", command_merge},
    {"trace", "synthesize a failure trace from published data (synth), or describe one (stats)", command_trace},
    {"init", "write a first scenario from your hardware, model and layout, with the deciding fields' sources",
     command_init},
    {"list", "list presets, strategies, schedulers, placements and failure processes", command_list},
    {"schema", "print the JSON Schema of scenario files", command_schema},
};

void print_usage(std::ostream& out) {
  out << fmt::format("ckptsim {} — failure-recovery strategies for large-model training\n\n", ckptsim_version());
  out << "usage: ckptsim COMMAND [ARGS...]   (ckptsim COMMAND --help for a command's options)\n\ncommands:\n";
  for (const auto& c : kCommands) out << fmt::format("  {:<10} {}\n", c.name, c.summary);
}

}  // namespace

int dispatch(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err) {
  if (argv.empty() || argv[0] == "--help" || argv[0] == "-h" || argv[0] == "help") {
    print_usage(argv.empty() ? err : out);
    return argv.empty() ? 2 : 0;
  }
  if (argv[0] == "--version") {
    out << fmt::format("ckptsim {} ({})\n", ckptsim_version(), ckptsim_git_revision());
    return 0;
  }
  std::string command_line = "ckptsim";
  for (const auto& a : argv) command_line += " " + a;
  for (const auto& c : kCommands) {
    if (argv[0] != c.name) continue;
    CommandContext ctx{std::vector<std::string>(argv.begin() + 1, argv.end()), command_line, out, err};
    try {
      return c.function(ctx);
    } catch (const InputError& e) {
      for (const auto& p : e.problems()) err << "error: " << format_problem(p) << '\n';
      return 2;
    } catch (const UsageError& e) {
      err << "error: " << e.what() << "\n(see ckptsim " << c.name << " --help)\n";
      return 2;
    } catch (const boost::program_options::error& e) {
      err << "error: " << e.what() << "\n(see ckptsim " << c.name << " --help)\n";
      return 2;
    } catch (const LimitError& e) {
      err << "error: " << e.what() << '\n';
      return 2;
    } catch (const ModelError& e) {
      err << "error: " << e.what() << '\n';
      return 2;
    } catch (const IoError& e) {
      err << "error: " << e.what() << '\n';
      return 1;
    } catch (const std::bad_alloc&) {
      err << "error: out of memory: the input asks for more than this machine has (see docs/limits.md)\n";
      return 2;
    } catch (const std::exception& e) {
      err << "internal error (please report): " << e.what() << '\n';
      return 1;
    }
  }
  err << fmt::format("error: unknown command \"{}\"\n\n", argv[0]);
  print_usage(err);
  return 2;
}

}  // namespace ckptsim::cli
