#pragma once
// The JSON document of `ckptsim optimize --json`, also what the Python module's
// ckptsim.optimize returns: manifest, ranking, closed_form_omits, gpu_memory_checked, note (only
// when GPU memory was not checked), every candidate in combination order (settings, status and,
// when it fits, ETTR, standby machines, goodput per machine-hour, closed form, Monte Carlo mean
// and ci95, wall-time shares, checkpoint interval and stall; otherwise its reason), best,
// runner_up and why_runner_up_lost. Numbers tidied as every report's (output/numbers.hpp).
#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/analysis/optimize_study.hpp"

namespace ckptsim {

nlohmann::json optimize_document(const OptimizeStudy& study, const std::string& command_line);

}  // namespace ckptsim
