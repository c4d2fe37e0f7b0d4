#pragma once
// First-order closed form of per-step fault tolerance (strategy torchft, tier per_step;
// run/strategies/torchft.cpp, run/group_outages.hpp, docs/models.md "Per-step fault tolerance").
// Units: seconds and 1/s.
//
// The job trains as G replica groups and never stops for a failure. A failure of class c
// (analysis/failure_mix.hpp: Poisson rate lambda_c, hardware or not, detection D_c, restart R_c,
// s_c machines) costs, to first order in lambda x (outage length):
//   wait_c  = max(HB, min(D_c, TO)) + 2 Q       every group idle (HB heartbeat timeout, TO step
//                                               timeout, Q the cross-group communicator's
//                                               reconfiguration, 0 without restart phases); a hang
//                                               (failures.hangs, share f_hang) has D = the hang
//                                               detection of failure/fault_model.hpp
//   lost    = P / 2                             the step in flight, discarded by every group
//                                               (P = T + F, F torchft's cost per step)
//   out_c   = h_c W_eff + R_c + H               the hit groups then wait for the replacement
//                                               (W_eff = E[W] x the standby blocking probability),
//                                               restart and heal
//   share_c = g_c / G if G - g_c >= min_groups, else 1   (g_c groups hit: the mean over the
//                                               aligned domains of s_c machines; 1 for a machine)
// so that, with the straggler slow share phi and speed v (fault_model.hpp's M/G/inf closed form:
// phi = 1 - exp(-N r mu (1 - e^{-E/mu})), evictions at N r e^{-E/mu}, hardware, D = 0):
//   training / wall = [(1 - (1 - v) phi) (1 - sum_c lambda_c (wait_c + share_c out_c)) - sum_c lambda_c P / 2] T / P
// (R_c is the group's restart, c.group_restart, where the class takes the scenario's restart and
// the restart phases are in effect: run/strategies/torchft.cpp)
// Misdiagnosis (share f_m of hardware failures) multiplies the hardware classes' rates by
// 1 / (1 - f_m) (each fault recurs until diagnosed right). Left out: silent data corruption (the
// run model treats its detection as a group failure), overlapping outages of one group and a
// failure during another's wait (order lambda x outage of the loss itself), every group out at once.
// Source of the mechanism and defaults: TorchFT (https://github.com/pytorch/torchft):
// torchft/manager.py (min_replica_size, timeout 60 s), src/lighthouse.rs (heartbeat_timeout_ms 5000).
#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Mean number of groups of `per_group` consecutive machines that an aligned domain of `s`
/// consecutive machines (the last one possibly shorter) overlaps, over the domains of N machines
/// (also the islands' closed form, islands_model.hpp).
double mean_groups_hit(int machines, int per_group, int s);

/// The Poisson failure classes of a replica-group job (failure_mix.hpp): a class that takes the
/// scenario's restart restarts one group (costs.group_restart, with the restart phases), and the
/// restart tiers applied (also the islands' closed form).
FailureMix replica_group_failure_mix(const Scenario& scenario, const StrategyCosts& costs);

/// The closed form above for `costs.tier == CheckpointTier::per_step`.
AnalyticPrediction per_step_analytic(const Scenario& scenario, const StrategyCosts& costs);

}  // namespace ckptsim
