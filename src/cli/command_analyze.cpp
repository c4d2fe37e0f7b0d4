// ckptsim analyze (not implemented yet).
#include <ostream>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int command_analyze(const CommandContext& ctx) {
  ctx.err << "ckptsim analyze: not implemented yet\n";
  return 1;
}

}  // namespace ckptsim::cli
