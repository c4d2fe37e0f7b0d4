// ckptsim iteration (not implemented yet).
#include <ostream>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int command_iteration(const CommandContext& ctx) {
  ctx.err << "ckptsim iteration: not implemented yet\n";
  return 1;
}

}  // namespace ckptsim::cli
