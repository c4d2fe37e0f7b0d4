// ckptsim placement (not implemented yet).
#include <ostream>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int command_placement(const CommandContext& ctx) {
  ctx.err << "ckptsim placement: not implemented yet\n";
  return 1;
}

}  // namespace ckptsim::cli
