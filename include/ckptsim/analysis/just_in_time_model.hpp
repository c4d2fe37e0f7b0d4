#pragma once
// First-order closed form of just-in-time checkpointing (strategy just-in-time, tier
// just_in_time; run/strategies/just_in_time.cpp; docs/models.md "Just-in-time checkpoints").
// Units: seconds and 1/s.
//
// Segments train with the periodic fallback checkpoints (every k iterations counted from each
// restart, stall S), so a segment of length X ~ Exp(Lambda) stalls E[stall(X)] = (1 - e^{-Lambda S})
// e^{-Lambda kT} / (Lambda (1 - e^{-Lambda (kT + S)})) (analytic_models.hpp 3c): a compute share
// of the segment time u = 1 - Lambda E[stall(X)] (-> kT / (kT + S) as Lambda -> 0). A failure of
// class c (analysis/failure_mix.hpp: rate lambda_c, hardware h_c, detection D_c, restart R_c) is
// recovered just in time: it redoes the interrupted minibatch, T / 2 of compute on average, and
// the job is down for
//   L_c = D_c + J + h_c B E[(W - J)^+] + rho_s + R_c
// (J the save after detection, W the replacement delay that runs meanwhile, B the probability
// that no standby is free, rho_s the retrieval from storage). Episodes are M/G/inf busy periods
// (analytic_models.hpp 3a): a share e^{-sum_c lambda_c L_c} of the wall time is training
// segments, which end at rate Lambda. So
//   ETTR = e^{-sum_c lambda_c L_c} u (1 - Lambda T / 2).
// E[(W - J)^+]: fixed W: (W - J)^+; uniform on [a, b]: the integral of (w - J)^+ over [a, b] /
// (b - a); lognormal(mu = ln median, sigma): e^{mu + sigma^2/2} Phi(d1) - J Phi(d1 - sigma),
// d1 = (mu + sigma^2 - ln J) / sigma.
// Left out: the fallback to the periodic checkpoint (all G holders of some shard position, G
// distinct machines, failing within one episode: about (lambda L)^(G-1) per failure, lambda the
// per-machine rate and L the episode, more once episodes overlap), failures during an episode
// (order Lambda L), and the fault model beyond fail-stop. The fallback is listed in omitted_terms
// whenever failures occur (kJitFallbackOmitted), as is each fault-model feature in force, so
// `optimize` ranks just-in-time candidates by Monte Carlo. Listed rather than modelled: where
// fallbacks are rare they hardly matter, and where they are frequent (long replacement waits,
// Lambda L of order one, where a first-order form is off anyway) they decide the fallback
// interval, each costing the rollback to the latest periodic checkpoint, which this form does not
// see: it always prefers the longest interval (tests/unit/analysis/optimize_test.cpp: at
// 100 %/machine/day with 2 h replacements it picks 8 h, the run model 1 h).
#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// The omitted term naming the fallback to the periodic checkpoint.
inline constexpr const char* kJitFallbackOmitted =
    "just-in-time fallback to the periodic checkpoint (every holder of a shard failing in one episode)";

/// The closed form above for `costs.tier == CheckpointTier::just_in_time`.
AnalyticPrediction just_in_time_analytic(const Scenario& scenario, const StrategyCosts& costs);

}  // namespace ckptsim
