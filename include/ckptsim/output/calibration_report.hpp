#pragma once
// The result of `ckptsim calibrate` and `ckptsim import nccl-tests` (calibration/calibrate.hpp)
// as a table and as JSON: one writer both commands share.
//
// Table: one row per fit (samples, rate +- standard error, latency per step +- standard error,
// rms relative residual, the fields it wrote), then each fit's residual table: per distinct
// size, the number of samples, the median measured time, the fitted time and the median
// relative residual (fitted - measured) / measured; then the notes (what was measured but not
// written). JSON: the same, with every sample's residual.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/calibration/calibrate.hpp"

namespace ckptsim {

std::string calibration_table(const Calibration& c);
nlohmann::json calibration_json(const Calibration& c);

}  // namespace ckptsim
