// ckptsim schedule (not implemented yet).
#include <ostream>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int command_schedule(const CommandContext& ctx) {
  ctx.err << "ckptsim schedule: not implemented yet\n";
  return 1;
}

}  // namespace ckptsim::cli
