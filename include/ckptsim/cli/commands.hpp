#pragma once
// The ckptsim subcommands. Each takes its arguments (without the program and command names)
// and the streams to print to, and returns the process exit code:
// 0 success, 1 runtime failure, 2 bad input (usage errors and InputError).
// Commands throw InputError / UsageError for bad input; main() maps exceptions to exit codes.
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace ckptsim::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct CommandContext {
  std::vector<std::string> args;   ///< arguments after the command name
  std::string command_line;        ///< the whole command line, for manifests
  std::ostream& out;
  std::ostream& err;
};

int command_run(const CommandContext& ctx);
int command_list(const CommandContext& ctx);
int command_iteration(const CommandContext& ctx);
int command_schedule(const CommandContext& ctx);
int command_placement(const CommandContext& ctx);
int command_analyze(const CommandContext& ctx);
int command_optimize(const CommandContext& ctx);
int command_trace(const CommandContext& ctx);

/// Runs `ckptsim ARGS...` in-process (argv[0] excluded) and maps exceptions to exit codes,
/// printing errors to ctx.err. Used by main() and by the integration tests.
int dispatch(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace ckptsim::cli
