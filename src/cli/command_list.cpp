// ckptsim list (not implemented yet).
#include <ostream>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int command_list(const CommandContext& ctx) {
  ctx.err << "ckptsim list: not implemented yet\n";
  return 1;
}

}  // namespace ckptsim::cli
