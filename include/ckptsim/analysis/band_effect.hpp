#pragma once
// What the prediction band of a blind iteration time (workload/prediction_band.hpp) means for a
// run: the iteration time T's range [low·T, high·T] and, at T and at each end, the closed-form
// ETTR (analytic_models.hpp) and whether a checkpoint completes within its period.
//
// At an end the costs are the run's with T replaced (StrategyCosts::iteration_time = r·T) and
// every other cost kept: the band's extra time is read as slower compute, so the checkpoint's
// stall S, its completion time C, the period k and the persistent period kp (in iterations) and
// the retrieval times stay as the run's costs give them. What moves is the work a failure loses
// in time (about half a period, k·T/2, per recovery), the share of each period the stall takes,
// S / (k·T + S), and whether the checkpoint completes within its period: C <= k·T (a checkpoint
// that needs longer is still in flight when the next one is due; GEMINI §4's condition).
#include <cstdint>
#include <optional>
#include <string>

#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/prediction_band.hpp"

namespace ckptsim {

/// The closed form at one iteration time.
struct BandPoint {
  double iteration_s = 0;
  double ettr = 0;                 ///< closed-form ETTR (analytic_models.hpp), when available
  bool completes_within_period = true;  ///< C <= k·T (true without periodic checkpoints)
};

struct BandEffect {
  BandView view;
  /// The closed form is available (not for trace-driven failures); the reason otherwise.
  bool closed_form = false;
  std::string closed_form_reason;
  BandPoint predicted;  ///< at T
  BandPoint low;        ///< at low·T
  BandPoint high;       ///< at high·T
};

/// The band of the run's iteration time and its effect (header). `costs` are the run's; the
/// ends are computed only when the band applies and exists (view.has_range()).
BandEffect band_effect(const Scenario& scenario, const StrategyCosts& costs);

}  // namespace ckptsim
