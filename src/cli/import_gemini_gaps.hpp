#pragma once
// `ckptsim import gemini-gaps`: options and printing around calibration/gemini_gaps.hpp.
#include <string>
#include <vector>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int import_gemini_gaps(const CommandContext& ctx, const std::vector<std::string>& args);

}  // namespace ckptsim::cli
