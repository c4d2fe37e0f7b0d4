#pragma once
// What every first-order closed form built on the failure mix (analysis/failure_mix.hpp) does
// before and after its own terms: the per-step (per_step_model.hpp) and just-in-time
// (just_in_time_model.hpp) models.
//
// Start: a failure model without a mix (trace-driven failures) has no closed form, with the mix's
// reason; otherwise the prediction is available and carries the mix's notes and the failure-model
// terms it leaves out, then a note naming the model and what it leaves out itself.
// Wall time: W = run.duration, or for a run.iterations target of n iterations of T seconds
// W = n T / ETTR; with ETTR = 0 the target is never reached, and the closed form is not available.
// Finish (models whose failures are one-failure episodes, as a group or island outage is): the
// failure rate Lambda, MTBF 1/Lambda, ETTR (also its asymptote), the mean service D/Lambda for a
// downtime share D, then W and the metrics ettr and failures.total = Lambda W.
// Hang detection: a hang is found by the in-job watchdog (failure/fault_model.hpp), or by the
// restart tiers' own detection when they are on (failure/restart_tiers.hpp).
#include <string>
#include <string_view>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// The start of a closed form on `mix` (header); `model_note` is pushed after the mix's notes.
[[nodiscard]] AnalyticPrediction first_order_start(const FailureMix& mix, std::string model_note);

/// Sets p.wall_time_s (header) for an iteration time of `iteration_s` and the given ETTR; false,
/// with p unavailable and the reason naming `model` ("per-step", "just-in-time"), when ETTR <= 0
/// and the run has an iteration target instead of a duration.
bool first_order_wall_time(AnalyticPrediction& p, const Scenario& s, double iteration_s, double ettr,
                           std::string_view model);

/// Fills p's rates and episode for one-failure episodes and its wall time (header); false as
/// first_order_wall_time is.
bool first_order_finish(AnalyticPrediction& p, const Scenario& s, double iteration_s, double rate, double ettr,
                        double downtime_share, std::string_view model);

/// Seconds from a hang to its detection (header) for an iteration of `iteration`.
[[nodiscard]] double first_order_hang_detection_s(const FailureSpec& f, SimTime iteration);

}  // namespace ckptsim
