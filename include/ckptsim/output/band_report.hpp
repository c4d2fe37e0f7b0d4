#pragma once
// The prediction band (workload/prediction_band.hpp) as `iteration` and `run` print it: one
// "band" line (and its JSON object) beside a blind iteration time, or why it does not apply; in
// `run`, the iteration time's range and the closed-form ETTR at each end (analysis/band_effect.hpp).
#include <iosfwd>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/analysis/band_effect.hpp"
#include "ckptsim/workload/prediction_band.hpp"

namespace ckptsim {

/// `iteration`'s band line (ends with a newline).
void print_band_line(std::ostream& out, const BandView& view);

/// {"engine", "gpu_family", "applies", "reason"?, "points", "low", "median", "high",
///  "predicted_s", "low_s", "high_s"} (the band's members only where it exists).
nlohmann::json band_json(const BandView& view);

/// `run`'s band lines under its assumptions: nothing when the scenario writes its iteration time,
/// one line saying why when the band does not apply otherwise (a calibrated compute efficiency).
void print_band_effect(std::ostream& out, const BandEffect& effect);

/// band_json plus, where the ends were computed, "closed_form_ettr" and
/// "completes_within_period" at {"predicted", "low", "high"}; null when the scenario writes its
/// iteration time.
nlohmann::json band_effect_json(const BandEffect& effect);

}  // namespace ckptsim
