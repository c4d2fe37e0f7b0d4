#pragma once
// `ckptsim import chakra`: options and printing around calibration/chakra_trace.hpp.
#include <string>
#include <vector>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int import_chakra(const CommandContext& ctx, const std::vector<std::string>& args);

}  // namespace ckptsim::cli
