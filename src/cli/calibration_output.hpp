#pragma once
// What `ckptsim calibrate` and `ckptsim import nccl-tests` share after their fits: the base
// scenario (read and checked by the scenario loader) and writing the result, which must load.
#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/calibration/calibrate.hpp"
#include "ckptsim/cli/commands.hpp"

namespace ckptsim::cli {

struct CalibrationTarget {
  std::string base_path;  ///< "" when only the fields are written
  nlohmann::json base_doc;
};

/// Loads --scenario BASE (every problem of the file is an InputError, exit 2) and fills the
/// base quantities of `base` from it; an empty path leaves both alone.
CalibrationTarget load_calibration_target(const std::string& base_path, CalibrationBase& base);

/// Writes the fields (or BASE with them replaced, its name suffixed "-calibrated") to `output`
/// after checking that ckptsim loads the result, then prints the report (table or JSON).
void write_calibration(const CommandContext& ctx, const Calibration& cal, const CalibrationTarget& target,
                       const std::string& output, const std::string& command, bool json);

}  // namespace ckptsim::cli
