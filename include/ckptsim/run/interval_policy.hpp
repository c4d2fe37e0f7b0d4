#pragma once
// Checkpoint intervals from the failure rate: Daly's optimum and the adaptive policy that
// re-estimates the rate from the failures a run has seen (strategy.adaptive_interval).
//
// Daly (FGCS 22(3), 2006, https://doi.org/10.1016/j.future.2004.11.016, Eq. 37; the
// perturbation solution of his higher-order model), compute time between checkpoints:
//   tau(delta, M) = sqrt(2 delta M) [1 + (1/3) sqrt(delta/(2M)) + (1/9) delta/(2M)] - delta   (delta < 2M)
//                 = M                                                                       (delta >= 2M)
// with delta the checkpoint cost (the training stall of one checkpoint) and M the cluster MTBF.
//
// Adaptive policy. Failures of the cluster are taken as a Poisson process of unknown rate
// Lambda with a Gamma(1, M0) prior (mean 1/M0, the weight of one failure observed over the prior
// MTBF M0 = strategy.adaptive_prior_mtbf). After n failures in t seconds of wall time the
// posterior mean is
//   Lambda_hat = (n + 1) / (t + M0)
// (the maximum-likelihood n / t pulled towards the prior; it converges to Lambda as t grows,
// with relative standard deviation 1/sqrt(n + 1)). At the start of the run and at every restart
// the persistent period becomes tau(delta, 1/Lambda_hat), rounded to the nearest whole number of
// `unit` iterations (the next lower level's period), at least one unit.
#include <cstdint>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

/// Daly's optimal compute time between checkpoints (s); M when delta >= 2M. Throws ModelError
/// unless delta >= 0 and M > 0.
double daly_optimal_interval(double checkpoint_cost_s, double mtbf_s);

/// Posterior mean of the cluster failure rate (1/s) after `failures` in `elapsed_s` seconds,
/// from the prior MTBF `prior_mtbf_s` (> 0).
double estimated_failure_rate(std::int64_t failures, double elapsed_s, double prior_mtbf_s);

/// The adaptive persistent period in iterations: Daly's interval for the estimated rate,
/// a multiple of `unit` iterations of `iteration` each: at least `unit`, and at most as many
/// units as fit in `longest` (at least one): the run model passes the run's end, so a period
/// never spans more simulated time than the run can reach (run/run_horizon.hpp).
std::int64_t adaptive_period_iterations(SimTime checkpoint_cost, SimTime iteration, std::int64_t unit,
                                        std::int64_t failures, SimTime elapsed, SimTime prior_mtbf,
                                        SimTime longest);

}  // namespace ckptsim
