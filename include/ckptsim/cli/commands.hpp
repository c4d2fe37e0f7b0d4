#pragma once
// The ckptsim subcommands. Each takes its arguments (without the program and command names)
// and the streams to print to, and returns the process exit code:
// 0 success, 1 I/O failure (IoError) or internal error, 2 bad input (UsageError, InputError,
// LimitError, ModelError).
// Commands throw typed errors (core/error.hpp) and UsageError; dispatch() maps them to exit codes.
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
int command_init(const CommandContext& ctx);
int command_iteration(const CommandContext& ctx);
int command_compute(const CommandContext& ctx);
int command_schedule(const CommandContext& ctx);
int command_placement(const CommandContext& ctx);
int command_analyze(const CommandContext& ctx);
int command_optimize(const CommandContext& ctx);
int command_validate(const CommandContext& ctx);
int command_calibrate(const CommandContext& ctx);
int command_import(const CommandContext& ctx);
int command_schema(const CommandContext& ctx);
int command_sweep(const CommandContext& ctx);
int command_merge(const CommandContext& ctx);
int command_trace(const CommandContext& ctx);

/// Runs `ckptsim ARGS...` in-process (argv[0] excluded) and maps exceptions to exit codes,
/// printing errors to ctx.err. Used by main() and by the integration tests.
int dispatch(const std::vector<std::string>& argv, std::ostream& out, std::ostream& err);

}  // namespace ckptsim::cli
