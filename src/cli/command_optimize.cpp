// ckptsim optimize (not implemented yet).
#include <ostream>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int command_optimize(const CommandContext& ctx) {
  ctx.err << "ckptsim optimize: not implemented yet\n";
  return 1;
}

}  // namespace ckptsim::cli
