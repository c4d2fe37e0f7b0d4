#pragma once
// `ckptsim import torch-profiler`: options and printing around calibration/torch_profiler.hpp.
#include <string>
#include <vector>

#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

int import_torch_profiler(const CommandContext& ctx, const std::vector<std::string>& args);

}  // namespace ckptsim::cli
