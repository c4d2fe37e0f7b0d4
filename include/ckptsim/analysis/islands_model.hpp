#pragma once
// First-order closed form of asynchronous islands (strategy diloco, tier islands;
// run/strategies/diloco.cpp, src/run/recovery/policies/islands.cpp, docs/models.md "Asynchronous
// islands"). Units: seconds and 1/s.
//
// G islands train rounds of L = H T inner steps and an outer synchronization A (cycle
// P = L + A). A failure of class c (analysis/failure_mix.hpp: rate lambda_c, detection D_c,
// restart R_c, g_c islands hit) at a phase uniform over the cycle takes its islands out for
//   out_c = D_c + h_c W_eff + R_c       (W_eff = E[W] x the standby blocking probability)
// and they rejoin at the first synchronization after that. The rounds they miss, the failure's
// own included, number n_c = 1 + (out_c + A) / P on average (E[ceil(U + y)] = y + 1 for U
// uniform on [0, 1)), so the job loses (g_c / G) n_c L of its work (the island's share;
// 1 instead of g_c / G when fewer than min_groups islands are left). Every island waits, per
// failure,
//   w_c = 2 Q + H_heal                  the quorum's reconfiguration when the island leaves and
//                                       when it rejoins, and its heal from a live peer
//       + HB^2 / (2 P)                  the synchronization waits for the lighthouse to drop an
//                                       island that failed less than HB before it
//       + (A / P) (A / 2 + W_q)         a failure during the synchronization fails the commit
//                                       (W_q = max(HB, min(D_c, TO))), and the other islands
//                                       lose their round: + (A / P)(1 - g_c / G) L of work.
// So, with Lambda = sum lambda_c,
//   training / wall = (L / P) (1 - sum_c lambda_c w_c)
//                     - sum_c lambda_c L [share_c n_c + (A / P)(1 - share_c)]
// Left out: overlapping outages (second order in lambda x out), several departures sharing one
// reconfiguration (over-counts Q), the staleness's effect on the loss (not modelled anywhere),
// silent data corruption (the run model treats its detection as an island's failure).
// Sources: TorchFT (https://github.com/pytorch/torchft): torchft/local_sgd.py (DiLoCo: the
// round restored when should_commit fails), torchft/manager.py (synchronous quorum, heal,
// reconfiguration), src/lighthouse.rs (heartbeat_timeout_ms, quorum_compute).
#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// The closed form above for `costs.tier == CheckpointTier::islands`.
AnalyticPrediction islands_analytic(const Scenario& scenario, const StrategyCosts& costs);

}  // namespace ckptsim
