#pragma once
// Closed-form models of checkpointing under failures: GEMINI's wasted time per failure
// (Eq. 1), Young's and Daly's optimal checkpoint intervals, and the expected effective training
// time ratio (ETTR) of the run model (run/run_model.hpp) for every strategy, with the time
// breakdown, failure and recovery counts it predicts. Units: seconds and 1/s throughout.
//
// ---- 1. GEMINI Eq. 1 (Wang et al., SOSP '23, §2; docs/references.md) ----
//   T_wasted = t_ckpt + 1/(2f) + t_rtvl,   valid when 1/f >= max(t_ckpt, T_iter) (Eq. 2):
//   failures uniform between checkpoints taken every 1/f lose on average half an interval,
//   plus the checkpoint that was in flight and the retrieval.
//
// ---- 2. Optimal checkpoint intervals (compute time tau between checkpoints) ----
//   Young (CACM 1974):  tau = sqrt(2 delta M)            delta = checkpoint cost, M = MTBF.
//   Daly (FGCS 2006, perturbation solution of the higher-order model):
//     tau = sqrt(2 delta M) [1 + (1/3) sqrt(delta/(2M)) + (1/9) delta/(2M)] - delta   (delta < 2M)
//     tau = M                                                                       (delta >= 2M)
//   e.g. M = 24 h, delta = 5 min: 116.7 min (docs/references.md). The restart time does
//   not move Daly's optimum. For a scenario, delta = the stall S per checkpoint and M = 1/Lambda
//   (cluster MTBF); in iterations k* = tau / T, at least 1 (Eq. 2).
//
// ---- 3. ETTR of the run model (exponential failures) ----
// Notation (names chosen not to clash with the scheduler's R = GPU buffer, mu = span safety
// and c = shard size elsewhere): T iteration, k checkpoint every k iterations, S stall per checkpoint, t_done completion
// (carrying-iteration start -> usable), D_k = kT + S, a_1 = kT + t_done (segment time until the first
// checkpoint of a segment is usable), Lambda = N lambda (cluster failure rate), h hardware
// fraction, D detection, t_restart restart, rho_s / rho_h retrieval after a software / hardware failure
// (memory tier: local / peer; storage tier: storage both; none: 0), P replacement delay.
//
// (a) Episodes are M/G/infinity busy periods. In the run model every failure at time s moves
//   the episode's end to max(current end, s + L), where L = D + rho_s + t_restart for a software
//   failure and L = D + P_eff + rho_h + t_restart for a hardware failure (P_eff = 0 when a standby machine is
//   free): the replacement already requested keeps its ready time, detection restarts. That is
//   exactly a queue with infinitely many servers fed by the Poisson failure process (rate
//   Lambda), each failure a customer of service time L; an episode is a busy period and a
//   training segment an idle period, so segments are Exp(Lambda) (memoryless) and
//     E[episode] = (e^{Lambda Lbar} - 1)/Lambda,  failures per episode e^{Lambda Lbar},
//     fraction of wall time in episodes 1 - e^{-Lambda Lbar},  Lbar = E[L]     (Takacs)
//   for ANY distribution of L (a fixed L gives the restart formula (e^{Lambda L} - 1)/Lambda).
//   Approximation (order h Lambda Lbar x (rho_peer - rho_local) per failure): a software failure
//   after a hardware one in the same episode retrieves from a peer in the model, here local.
// (b) Phases. Let V = (episode end - s) just after a failure at s. PASTA and the M/G/inf
//   structure give its stationary law P(V <= v) = F_L(v) exp(-Lambda E[(L - v)^+]); the failure's
//   phases are detection [0, D), replacement [D, V - rho* - r*), retrieval, restart [V - r*, V),
//   r* = t_restart + delta*, cut by the next failure, an independent Exp(Lambda) gap. Expected
//   time per failure:
//     detection   (1 - e^{-Lambda D}) / Lambda
//     replacement (e^{-Lambda D} - e^{Lambda t_restart} E[e^{-Lambda V} e^{Lambda (delta* + rho*)}]) / Lambda
//     retrieval   e^{Lambda t_restart} E[e^{-Lambda V} e^{Lambda delta*} (e^{Lambda rho*} - 1)] / Lambda
//     restart     ((e^{Lambda t_restart} - 1) E[e^{-Lambda V}] + e^{Lambda t_restart} E[e^{-Lambda V} (e^{Lambda delta*} - 1)]) / Lambda
//   (sum (1 - E[e^{-Lambda V}]) / Lambda; E[e^{-Lambda V}] = e^{-Lambda Lbar} exactly). rho* and
//   delta* are the retrieval and the extra restart of the failure that set the end: delta* = 0
//   but for a hardware failure that found no free standby under restart tiers, which restarts in
//   a new job, delta* = its new-job restart - its class's restart (new_job_overhead; the run
//   model counts that overhead in the restart too, failure/restart_tiers.hpp). The expectations
//   are sums of exponentials over the atoms of L and the pieces between them (exact; uniform and
//   lognormal replacement delays are replaced by 64 equal-probability atoms). Failures over a run of W: Lambda W exactly.
//   Standby pool: a hardware failure holds a standby for D + P; with s standby machines a failure
//   finds none free with the Erlang loss probability B(s, h Lambda (D + E[P])) (insensitive to
//   the law of P), so L mixes P_eff = P (prob. B) and 0. Approximate only in that the pool's
//   state is correlated with recent failures (order Lambda (D + P)).
// (c) Progress. A segment starts from a recovered state with no checkpoint pending; checkpoint
//   b >= 1 is usable at a_b = a_1 + (b - 1) D_k of segment time and saves k iterations; on a
//   failure the segment keeps B(X) = #{b : a_b <= X} checkpoints. With q = e^{-Lambda D_k}:
//     E[B(X)]     = e^{-Lambda a_1} / (1 - q)
//     E[stall(X)] = (1 - e^{-Lambda S}) e^{-Lambda kT} / (Lambda (1 - q))
//     E[cap(X)]   = e^{-Lambda a_1} (kT + D_k q / (1 - q))  (segment time of the recovered capture)
//   Renewal-reward over cycles (segment + episode, mean cycle_mean = e^{Lambda Lbar}/Lambda):
//     ETTR_inf = T k E[B(X)] / cycle_mean = Lambda T k e^{-Lambda (Lbar + a_1)} / (1 - q),
//   -> kT / D_k as Lambda -> 0. Work lost per episode (GEMINI's lost progress + in-flight
//   checkpoint) E[X - cap(X)]; wasted time per failure = (E[X - cap] + retrieval per episode)
//   / e^{Lambda Lbar}; for Lambda -> 0 this is t_done + D_k/2 + rho, Eq. 1 with t_ckpt = t_done, 1/f = D_k.
// (d) Finite run of W. Training credited by time t is R(t) (compute of the current segment,
//   reset to the checkpointed progress at a failure), the run model's exact accounting. The
//   renewal theorem for cumulative rewards gives E[R(W)] = W g/cycle_mean + K + o(1) with
//     K = g E[C^2]/(2 cycle_mean^2) - E[C G]/cycle_mean + E[int_0^C r]/cycle_mean,   g = E[G] = T k E[B(X)],
//   E[X B(X)] = e^{-Lambda a_1}((a_1 + 1/Lambda)/(1 - q) + D_k q/(1 - q)^2), E[int_0^X (u - stall)] =
//   1/Lambda^2 - E[stall(X)]/Lambda, E[Y^2] from a fixed-length restart with L = Lbar plus Var(L)
//   (that term of K is of order Lambda L^2, seconds). K is about the work not yet lost at the
//   end of the run (for `none` the whole final segment, e^{-Lambda Lbar}/Lambda). Mean ETTR =
//   E[R(W)] / W. For run.iterations the wall time W solves E[R(W)] = n T (all terms below
//   included, by Newton steps) and the mean of the replicas' ratios n T / W_i is taken to second
//   order, n T / W (1 + Var(W)/W^2), with Var(W) = n T Var(C - G/r) / g (renewal CLT),
//   E[G^2] = T^2 k^2 e^{-Lambda a_1} (2/(1-q)^2 - 1/(1-q)).
//   The stall gets the same constant with reward stall(u) (kept at the failure), using
//   E[X stall(X)] = E[stall(X)]/Lambda + sum_b int_{st_b}^{st_b + S} u e^{-Lambda u} du.
//   Detection, replacement, retrieval and restart are Lambda W x the per-failure values of 3b
//   (end effects of order one episode, L/W); lost progress = segment time - stall - training.
// (e) Tier corrections (first order; the closed form is approximate here):
//   - Before the first usable checkpoint of the run, recoveries are `scratch` (no retrieval):
//     expected such episodes (1 - q_1)/q_1, q_1 = e^{-Lambda a_1}; they save their retrieval.
//     When even the expected time to the first checkpoint, a_1 + (1 - q_1)/q_1 (E[X | X < a_1]
//     + E[Y]), exceeds W, the run is all scratch recoveries and the `none` closed form is used.
//   - Memory strategies fall back to storage when every holder of some holder set was replaced
//     since the latest completed in-memory checkpoint. Per hardware failure of machine j, the
//     other m - 1 holders of one of the s_j holder sets containing j must be replaced within the
//     window W_r until the next completion (rest of the busy period plus a_1, plus failed
//     segments): p_loss = s_bar (1 - e^{-h lambda W_r})^{m - 1}, s_bar = m x (distinct holder
//     sets) / N (group 1, ring m). Neglected: O(p_loss x s_bar (h lambda W_r)) (two sets at
//     once, failures before j in the same window) and the union bound's overlap.
//     Erasure-coded groups (g, p): at least p of the other g - 1 members of j's group replaced in
//     W_r, p_loss = P(Binomial(g - 1, 1 - e^{-h lambda W_r}) >= p) (one group per machine). m = 1: every
//     episode with a hardware failure, 1 - (1 - h) psi, psi = e^{-Lambda L_s}/(h + (1-h) e^{-Lambda L_s})
//     (probability that a software-started busy period sees no hardware failure).
//     Each fallback costs rho_storage - rho_peer more retrieval and loses the work since the
//     latest persistent checkpoint instead of the latest in-memory one (E[X - cap]): the age of
//     that checkpoint is t_done + U + I_p (2 - pi_u)/(2 pi_u) (I_p = (kp/k) D_k, upload U; an upload
//     in flight when a failure strikes after its state's in-memory checkpoint completed is lost,
//     1 - pi_u = e^{-Lambda t_done}(1 - e^{-Lambda U}), so successful uploads are I_p x Geometric(pi_u)
//     apart, length-biased); in a segment that starts from a storage recovery (or the run's
//     start) the age is X until the first upload lands at P0 = t_done + U + I_p:
//     E[X; X < P0] + e^{-Lambda P0}(t_done + U + E[X mod I_p]); the two mix by the share of such
//     segments. Without a persistent track all progress is lost (about W ETTR/2). Each fallback
//     is followed by (1 - q_1)/q_1 further storage recoveries (memory empty until the next
//     completion); fallbacks before the first upload lands go to `scratch` (no retrieval),
//     1 - exp(-(fallbacks / W) P0) of them.
// The failure model (analysis/failure_mix.hpp): Lambda is the sum of Poisson classes (machine
// failures with lemon multipliers, one class per cause-table row with its own hardware flag,
// detection and restart, and each failure-domain kind taking s machines down at once); h is
// their rate-weighted hardware share; each class's atoms of L use its own D_c and restart_c
// (the phase split of 3b uses E[e^{-Lambda D_c}] and the mean restart); the standby blocking
// of a domain failure needs s free machines; the memory loss of 3e adds, per hardware domain
// failure, the share of domains holding every holder of some machine, and a holder's
// replacement probability in W_r averages over the lemon multipliers. Terms it cannot include
// are listed in omitted_terms.
// Where the model does not hold: Weibull failures (each machine a renewal process started new
// at 0) are replaced by the Poisson rate with the same expected count over the run, N M(W)/W,
// with the renewal function M solved numerically (failure_mix.hpp); for shape < 1 the real rate falls over the
// run and failures cluster, so this is an approximation (a note says so). Trace-driven
// failures have no closed form; nor has `none` with a run.iterations target. predict_run adds a
// note when Lambda Lbar > 0.3, memory is lost in more than 1% of episodes, or the first
// checkpoint comes late (scratch-dominated start): the first-order terms are then unreliable.
// Which model: one table in analytic_models.cpp (a closed-form family per CheckpointTier) is the
// only place that chooses. none, memory and storage use the renewal model above; multi-level,
// per-step and just-in-time their own (multi_level_model.hpp, per_step_model.hpp,
// just_in_time_model.hpp), each with its rule for the best checkpoint period. shadow uses the
// storage-tier renewal model with every recovery a retrieval from the shadow (a checkpoint every
// iteration) and lists the shadow cluster's own failures in omitted_terms (kShadowFailuresOmitted).
// Checked against the run model (tests/unit/analysis/analytic_models_test.cpp, 1000-5000
// replicas): the ETTR agrees within the 95% interval for every strategy from 0.24 to 48
// failures per cluster-day. The memory-fallback terms are first order: at 48 failures per
// cluster-day (16 machines, MTBF 30 min) the storage-recovery count is 9% high for ring m = 2
// (ETTR 0.12% low, 4 sigma at 2000 replicas) and 40% low for mixed m = 3 (ETTR unaffected);
// for m = 1 it is within ~1-2%.
#include <map>
#include <string>
#include <vector>

#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// GEMINI Eq. 1 (s): t_ckpt + 1/(2f) + t_rtvl. Throws ModelError unless f > 0,
/// times >= 0 and 1/f >= t_ckpt (Eq. 2).
double gemini_wasted_time(double checkpoint_time_s, double frequency_hz, double retrieval_time_s);

/// Young's optimal compute time between checkpoints (s): sqrt(2 delta M). delta >= 0, M > 0.
double young_interval(double checkpoint_cost_s, double mtbf_s);

/// Daly's higher-order optimum (s), see the header comment; M when delta >= 2M.
double daly_interval(double checkpoint_cost_s, double mtbf_s);

/// Expected busy period of the restart model: (e^{rate L} - 1) / rate (L when rate = 0).
double restart_expected_duration(double rate, double length_s);

/// Erlang loss probability B(servers, offered load) by the stable recursion.
double erlang_b(int servers, double offered_load);

/// The closed-form predictions for one scenario, with the quantities they were built from.
struct AnalyticPrediction {
  bool available = false;
  std::string reason;               ///< why not, when !available
  std::vector<std::string> notes;   ///< approximations in force for this scenario
  /// Failure-model terms this closed form leaves out (analysis/failure_mix.hpp: the lemon
  /// quarantine, ...); empty when it includes the whole failure model. `optimize` then ranks by
  /// Monte Carlo.
  std::vector<std::string> omitted_terms;

  double failure_rate = 0;          ///< Lambda (1/s)
  double wall_time_s = 0;           ///< W (run.duration, or predicted for run.iterations)
  double ettr = 0;                  ///< expected training / wall over the run
  double ettr_asymptotic = 0;       ///< ETTR_inf (long-run rate)
  double mean_service_s = 0;        ///< Lbar
  double episode_mean_s = 0;        ///< E[episode]
  double failures_per_episode = 0;  ///< e^{Lambda Lbar}
  double memory_loss_per_hardware_failure = 0;  ///< p_loss (memory strategies)
  double memory_loss_per_episode = 0;
  /// Var(wall time to accumulate x seconds of training) / x (s), from the renewal CLT (3d).
  double wall_variance_per_training_s = 0;

  /// Expected values over the run, named like the run model's metrics (run/monte_carlo.hpp:
  /// "ettr", "failures.total", "time_breakdown_s.retrieval", ...). Only metrics with a closed form.
  std::map<std::string, double> metrics;

  // Interval analysis (s): checkpoint cost delta = S, MTBF = 1/Lambda.
  double checkpoint_cost_s = 0;
  double mtbf_s = 0;
  double young_interval_s = 0;
  double daly_interval_s = 0;
  double young_every_iterations = 0;  ///< tau / T (not rounded)
  double daly_every_iterations = 0;
  /// Eq. 1 with t_ckpt = completion, 1/f = D_k, t_rtvl = mean retrieval of a recovery.
  double eq1_wasted_time_s = 0;
};

/// The omitted term of the shadow closed form while shadow machines fail (analytic_models.cpp,
/// shadow_analytic): the fallback to storage during a shadow machine's outage.
inline constexpr const char* kShadowFailuresOmitted =
    "the shadow cluster's own failures (a training failure during a shadow machine's outage falls back to the "
    "persistent checkpoint)";

/// Closed forms for `scenario` run with `costs` (run/strategy_costs.hpp). Never throws for a
/// valid scenario; `available` is false for trace-driven failures.
AnalyticPrediction predict_run(const Scenario& scenario, const StrategyCosts& costs);

/// The asymptotic ETTR (3c, with the tier corrections of 3e per unit time) for every k in
/// [1, max_k], for the best checkpoint period of this strategy under the closed form.
struct EveryIterationsChoice {
  std::int64_t every_iterations = 1;
  double ettr = 0;
};
EveryIterationsChoice best_every_iterations(const Scenario& scenario, const StrategyCosts& costs, std::int64_t max_k);

}  // namespace ckptsim
