#pragma once
// First-order model of multi-level checkpointing (strategy multi-level; run/strategy_costs.hpp
// and run/level_clock.hpp give the levels, their stalls and nested periods), and the best
// level intervals in closed form. Units: seconds and 1/s.
//
// Setting (Moody et al., SC '10, https://doi.org/10.1109/SC.2010.18; Di et al., IPDPS '14,
// https://doi.org/10.1109/IPDPS.2014.122): level i = 1, 2, 3 (own CPU memory, partners' CPU
// memory, storage) checkpoints block training for S_i (S_1 <= S_2 <= S_3, a level-i checkpoint
// is one of every level below too); a failure of class i is one that the levels below i
// cannot recover from, and recovers from the latest level->=i checkpoint, retrieving rho_i.
// Failure classes, Poisson with rates lambda_i:
//   class 1  software failures (machine or domain): CPU memory survives;
//   class 2  hardware failures whose machines' partner copies survive: single machines (a
//            second holder replaced before the next level-2 checkpoint is neglected, order
//            lambda P_2) and domain failures that leave some holder of every machine alive;
//   class 3  hardware domain failures that contain every holder of some machine (for each
//            domain kind, the share of its domains that do, from the placement); with m = 1
//            (no partner copies) every hardware failure.
// Periods. Over a super-period of K = k_3 iterations (k_2 without level 3) there are
// n_i = K / k_i level->=i checkpoints; with the stall total S_tot = sum_i S_i (n_i - n_{i+1}),
// the mean wall time between level->=i captures is P_i = (K T + S_tot) / n_i.
// Rollback. A class-i failure at a uniform time of the checkpoint pattern loses the wall time
// since the capture of the latest complete level->=i checkpoint. With the level->=i captures
// j = 1..n_i of a super-period, L_j the time from capture j to capture j+1 and s_j its stall
// (a failure during the stall falls back one more checkpoint):
//   E[rollback_i] = sum_j (L_j^2 / 2 + s_j L_{j-1}) / sum_j L_j   (= P_i/2 + S_i for equal periods)
// computed by walking the super-period (at most 10^6 blocks; beyond that P_i/2 + mean stall).
// Per unit of wall time, to first order in lambda_i P_i (failures rare against the periods,
// restarts resetting the phase neglected):
//   wasted time per failure  w = sum_i (lambda_i / Lambda) (E[rollback_i] + rho_i) / e^{Lambda Lbar}
//     (a failure during another's recovery restarts that episode and rolls nothing back: with
//     episodes as M/G/inf busy periods, analytic_models.hpp 3a, an episode holds e^{Lambda Lbar}
//     failures, Lbar = sum_i (lambda_i / Lambda)(D + R + P_wait,i + rho_i))
//   ETTR ~ 1 - S_tot / (K T + S_tot) - sum_i lambda_i (E[rollback_i] + rho_i + D + R + P_wait,i)
// (D detection, R restart, P_wait the replacement delay of hardware classes; first order).
// Best intervals. Dropping the terms that do not depend on the periods and taking P_i as free,
//   F(P_1, P_2, P_3) = sum_i (S_i - S_{i-1}) / P_i + sum_i lambda_i P_i / 2      (S_0 = 0)
// (a level-i checkpoint costs S_i - S_{i-1} more than one of the level below, and happens every
// P_i; a class-i failure loses P_i/2 on average), and dF/dP_i = 0 gives Young's rule per level:
//   P_i* = sqrt(2 (S_i - S_{i-1}) / lambda_i)
// (infinite when lambda_i = 0: capped at the run's length). Periods must nest, P_1 <= P_2 <= P_3:
// where the P_i* violate that order, adjacent levels are pooled into one period
// sqrt(2 sum dS / sum lambda) over the pool until it holds (pool adjacent violators, exact for
// this separable convex F); then k_1 = round(P_1*/T) and k_i = k_{i-1} round(P_i* / (k_{i-1} T)),
// each at least one step of the level below. The
// derivation is ours, first order, in the model of Di et al. (who optimise the number of level-i
// checkpoints between two level-(i+1) ones) and reduces to Young's interval for one level.
// Checked against the run model in tests/unit/analysis/multi_level_model_test.cpp.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct MultiLevelPrediction {
  bool available = false;
  std::string reason;                          ///< why not, when !available
  std::vector<std::string> notes;
  std::vector<std::string> omitted_terms;      ///< failure-model terms left out (analytic_models.hpp)
  std::array<double, 3> rate{};                ///< lambda_i (1/s)
  std::array<std::int64_t, 3> every{};         ///< k_i in iterations (0 = level not used)
  std::array<double, 3> stall_s{};             ///< S_i
  std::array<double, 3> period_s{};            ///< P_i (0 for a level not used)
  std::array<double, 3> rollback_s{};          ///< E[rollback_i]
  std::array<double, 3> retrieval_s{};         ///< rho_i
  double checkpoint_overhead = 0;              ///< S_tot / (K T + S_tot)
  double failures_per_episode = 0;             ///< e^{Lambda Lbar}
  double mean_service_s = 0;                   ///< Lbar
  double wasted_time_per_failure_s = 0;
  double ettr = 0;
  std::array<double, 3> best_period_s{};       ///< P_i*
  std::array<std::int64_t, 3> best_every{};    ///< nested k_i from P_i*
  double best_ettr = 0;                        ///< first-order ETTR at best_every
};

/// The model above for a multi-level scenario (costs.tier must be multi_level). Not available
/// for trace-driven failures.
MultiLevelPrediction predict_multi_level(const Scenario& scenario, const StrategyCosts& costs);

/// The same numbers as an AnalyticPrediction (metrics "ettr", "wasted_time_per_failure_s",
/// "failures.total"), for `analyze` and `optimize`.
AnalyticPrediction multi_level_analytic(const Scenario& scenario, const StrategyCosts& costs);

}  // namespace ckptsim
