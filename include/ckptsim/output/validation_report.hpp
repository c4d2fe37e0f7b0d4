#pragma once
// The result of `ckptsim validate` (calibration/validation.hpp) as a table and as JSON.
//
// Table: per operation kind, then per phase, then the iteration, idle-time and
// checkpoint-completion rows: samples, median error, median |error|, p90 |error|; then
// PASS/FAIL against the tolerance. JSON: {tolerance, operations: {kind: stats}, phases:
// {phase: stats}, not_compared, iteration_time, idle_time, checkpoint_completion, iterations:
// [{iteration, measured_s, predicted_s, error}], pass}; stats = {samples, median, median_abs, p90_abs}.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/calibration/validation.hpp"

namespace ckptsim {

std::string validation_table(const Validation& v);
nlohmann::json validation_json(const Validation& v);

}  // namespace ckptsim
