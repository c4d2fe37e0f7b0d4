#pragma once
// The failure model as the closed forms see it (analytic_models.hpp, multi_level_model.hpp):
// every failure process of failures/ (failure/failure_process.hpp) reduced to independent Poisson
// classes of cluster-wide events, each with its rate, outcome and times. Units: seconds, 1/s.
//
// Machine failures. Exponential: machine i fails at rate x_i lambda, so the cluster's machine
// failures are Poisson of rate Lambda_m = lambda sum_i x_i, exactly: without lemons sum x = N;
// with the lemon fraction model exactly L = round(f N) machines have x = multiple (the failure
// layer draws that many), sum x = N + L (multiple - 1); with the gamma model x_i ~ Gamma(k, 1/k)
// has mean 1, E[sum x] = N (the count is exact in expectation; the spread of sum x over replicas,
// relative sd 1/sqrt(kN), moves the ETTR only at second order: a note says so).
// Weibull: machine i is a renewal process of Weibull(shape, scale / x_i) lifetimes started new at
// 0; over a run of W its expected count is the renewal function M(W) of
//   M(t) = F(t) + int_0^t M(t - u) dF(u),
// solved on a grid of n = 2000 steps by the Riemann-Stieltjes trapezoid rule with the j = 1 term
// taken implicitly (Xie, "On the solution of renewal-type integral equations", Communications in
// Statistics - Simulation and Computation 18(1), 1989):
//   M_i (1 - dF_1 / 2) = F_i + M_{i-1} dF_1 / 2 + sum_{j=2..i} (M_{i-j} + M_{i-j+1}) dF_j / 2,
//   dF_j = F(j h) - F((j - 1) h).
// The classes get the Poisson rate with the same expected count, Lambda_m = sum_i M_i(W) / W (a
// note says that for shape < 1 the real rate falls over the run). Without a run.duration (a
// run.iterations target) the stationary rate N / (scale Gamma(1 + 1/shape)) is used.
// Outcome of a machine failure: with a cause table, cause c (share w_c / sum w) is its own class
// with its hardware flag, detection and restart; without one, two classes, software (1 - h)
// and hardware (h), with failures.detection / restart.
// Failure domains: kind k with s_k machines per domain and rate r_k per domain is a Poisson class
// of rate ceil(N / s_k) r_k taking s_k machines down at once (the last domain may be smaller: the
// closed forms use s_k), hardware with probability h_k (two classes), with failures.detection /
// restart (failure_causes(): domain causes carry the scenario's times).
// Per-machine replacement: machine i is replaced at rate x_i h_m lambda_m + sum_k h_k r_k
// (h_m lambda_m = the hardware part of a machine's base rate); the probability that a given
// machine is replaced within a window w averages over the lemon multipliers x:
//   none      1 - e^{-(a + b) w}
//   fraction  (L/N)(1 - e^{-(multiple a + b) w}) + (1 - L/N)(1 - e^{-(a + b) w})
//   gamma     1 - e^{-b w} (1 + a w / k)^{-k}     (E[e^{-x a w}], x ~ Gamma(k, 1/k))
// with a = h_m lambda_m, b = sum_k h_k r_k.
// Left out (listed in `omitted`, so that callers say so and `optimize` ranks by Monte Carlo):
// the lemon quarantine (a machine's k-th failure within the window becomes hardware and its
// replacement has the base rate), and the gamma model's rate spread under Weibull failures (the
// mean multiplier is used there).
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// One Poisson class of cluster-wide failure events.
struct FailureClass {
  std::string name;          ///< cause name ("software", "hardware", a table row, "rack", ...)
  double rate = 0;           ///< events per second over the cluster
  bool hardware = false;     ///< machines lose CPU memory and are replaced
  double detection_s = 0;
  double restart_s = 0;
  int machines = 1;          ///< machines down per event (s_k for a domain kind)
  bool domain = false;       ///< a failure-domain event (else one machine)
  /// Hardware classes under restart tiers: the restart when no standby is free (a new job);
  /// nullopt = restart_s.
  std::optional<double> restart_without_standby_s;
  [[nodiscard]] double restart_no_standby_s() const { return restart_without_standby_s.value_or(restart_s); }
};

struct FailureMix {
  bool available = false;
  std::string reason;                 ///< why not (trace-driven failures)
  std::vector<FailureClass> classes;
  double total_rate = 0;              ///< Lambda = sum of the class rates
  double machine_rate = 0;            ///< Lambda_m, machine failures of the whole cluster
  double machine_hardware_rate = 0;   ///< the hardware part of Lambda_m
  double hardware_share = 0;          ///< rate-weighted share of hardware events in Lambda
  double mean_detection_s = 0;        ///< rate-weighted over the classes
  double mean_restart_s = 0;
  std::vector<std::string> notes;     ///< approximations in force
  std::vector<std::string> omitted;   ///< failure-model terms the closed forms leave out
  // For replaced_within (the per-machine replacement law of the header):
  double base_hardware_rate_per_machine = 0;  ///< a = h_m lambda_m (multiplier 1)
  double domain_hardware_rate_per_machine = 0;  ///< b = sum_k h_k r_k
  LemonSpec lemons;
  double lemon_share = 0;             ///< L / N (fraction model)

  /// Probability that one given machine is replaced within `window_s` (header).
  [[nodiscard]] double replaced_within(double window_s) const;
};

/// The classes of `scenario`'s failure model; `available` false for trace-driven failures.
[[nodiscard]] FailureMix failure_mix(const Scenario& scenario);

/// Restart tiers (failure/restart_tiers.hpp) in the classes: each class's restart becomes its
/// tier's latency at iteration time T = `iteration_s` (hardware classes: the `hardware` tier with
/// a free standby, a new job without one), and the rate-weighted mean restart follows. Hangs are
/// not a class of their own here: the closed forms that model them ask restart_tiers.hpp for
/// their detection. No change when the tiers are off.
void apply_restart_tiers(FailureMix& mix, const Scenario& scenario, double iteration_s);

/// The fault-model features of `f` (failure/fault_model.hpp) that the first-order closed forms
/// leave out: hangs (their timeout detection), fail-slow stragglers, misdiagnosis, silent data
/// corruption; one entry per feature the scenario turns on, none otherwise. The memory, remote,
/// multi-level and just-in-time closed forms list them in omitted_terms, so `analyze` says what
/// its closed form does not see (the Monte Carlo run models all four).
[[nodiscard]] std::vector<std::string> fault_model_terms_left_out(const FailureSpec& f);

/// E[(W - x)^+], s, for the replacement delay W of `r`: the part of the wait left after x
/// seconds (fixed: (w - x)^+; uniform on [a, b]: the integral of (w - x) over [max(x, a), b] over
/// (b - a); lognormal: the Black-Scholes form m' Phi(d1) - x Phi(d1 - sigma)).
[[nodiscard]] double replacement_excess_s(const ReplacementSpec& r, double x);

/// Mean replacement delay, s, E[W] = replacement_excess_s(r, 0): fixed w; uniform (a + b) / 2;
/// lognormal m exp(sigma^2 / 2).
[[nodiscard]] double mean_replacement_s(const ReplacementSpec& r);

/// Expected failures by `horizon` (s) of one machine that is a renewal process of
/// Weibull(shape, scale) lifetimes started new at 0: M(horizon) by the scheme of the header.
[[nodiscard]] double weibull_renewal_count(double shape, double scale_s, double horizon_s);

/// Share of the domains of `domain_size` consecutive machines whose failure loses some machine's
/// checkpoint: more than `tolerated` of that machine's holders inside the domain (replicas:
/// tolerated = |holders| - 1, every holder; erasure-coded groups: tolerated = p).
[[nodiscard]] double domains_losing_memory(const Placement& placement, int domain_size, int erasure_parity);

/// Probability that a hardware event taking `batch` machines finds fewer than `batch` standby
/// machines free: the busy count of an s-server loss system with offered load `load`
/// (machines x holding time per second) is truncated Poisson, pi_n ~ load^n / n!, and the event is
/// blocked when n > s - batch (batch = 1: the Erlang loss formula B(s, load)). 1 when batch > s.
[[nodiscard]] double standby_blocking(int servers, double load, int batch);

}  // namespace ckptsim
