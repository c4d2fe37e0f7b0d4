// ckptsim run (not implemented yet).
#include <ostream>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int command_run(const CommandContext& ctx) {
  ctx.err << "ckptsim run: not implemented yet\n";
  return 1;
}

}  // namespace ckptsim::cli
