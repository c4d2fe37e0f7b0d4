// The first-order multi-level checkpointing model of multi_level_model.hpp.
#include "ckptsim/analysis/multi_level_model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/checkpoint/placement.hpp"

namespace ckptsim {
namespace {

/// Failure classes and the per-failure times of the model.
struct ClassRates {
  std::array<double, 3> rate{};
  std::array<double, 3> downtime{};  ///< detection + restart (+ replacement wait for hardware)
  double total = 0;
};

/// Machine-failure rate of the cluster and its hardware share (analysis/failure_mix.hpp: lemons,
/// cause tables, Weibull renewal counts); false for traces.
bool machine_rate(const Scenario& s, double& rate, double& hardware, std::vector<std::string>& notes,
                  std::vector<std::string>& omitted) {
  const FailureMix mix = failure_mix(s);
  if (!mix.available) return false;
  rate = mix.machine_rate;
  hardware = mix.machine_rate > 0 ? mix.machine_hardware_rate / mix.machine_rate : s.failures.hardware_fraction;
  notes.insert(notes.end(), mix.notes.begin(), mix.notes.end());
  omitted.insert(omitted.end(), mix.omitted.begin(), mix.omitted.end());
  if (!s.failures.causes.causes.empty())
    notes.push_back("cause table: its hardware share is used; detection and restart are failures.detection / restart");
  if (std::any_of(s.failures.causes.causes.begin(), s.failures.causes.causes.end(),
                  [](const FailureCauseSpec& c) { return c.detection.has_value() || c.restart.has_value(); }))
    omitted.push_back("per-cause detection and restart times (the multi-level model uses failures.detection / restart)");
  if (s.failures.restart_tiers.enabled)
    omitted.push_back("restart tiers (the multi-level model restarts in failures.restart)");
  return true;
}

ClassRates class_rates(const Scenario& s, const StrategyCosts& c, std::vector<std::string>& notes,
                       std::vector<std::string>& omitted, bool& ok) {
  ClassRates out;
  double machines = 0;
  double h = 0;
  ok = machine_rate(s, machines, h, notes, omitted);
  if (!ok) return out;
  const double detect_restart = s.failures.detection.seconds() + s.failures.restart.seconds();
  const double wait = s.cluster.standby_machines > 0 ? 0.0 : mean_replacement_s(s.failures.replacement);
  if (s.cluster.standby_machines > 0) notes.push_back("standby machines: replacement waits taken as zero (first order)");
  // With m = 1 there are no partner copies: a replaced machine's shard exists only in storage.
  const bool partners = c.replicas >= 2;
  out.rate[0] = machines * (1.0 - h);
  out.rate[partners ? 1 : 2] = machines * h;
  const Placement placement = make_placement(c.placement, s.cluster.machines, c.replicas, s.run.seed, c.replication_jump);
  for (const auto& d : s.failures.domains) {
    if (d.machines <= 0 || d.rate <= 0) continue;
    const double r = std::ceil(static_cast<double>(s.cluster.machines) / d.machines) * d.rate;
    const double lost = domains_losing_memory(placement, d.machines, 0);
    out.rate[0] += r * (1.0 - d.hardware_fraction);
    out.rate[1] += r * d.hardware_fraction * (1.0 - lost);
    out.rate[2] += r * d.hardware_fraction * lost;
  }
  out.downtime = {detect_restart, detect_restart + wait, detect_restart + wait};
  out.total = out.rate[0] + out.rate[1] + out.rate[2];
  return out;
}

struct Pattern {
  double t = 0;
  std::array<std::int64_t, 3> every{};  ///< k_i, 0 = not used
  std::array<double, 3> stall{};
};

int level_of(const Pattern& p, std::int64_t version) {
  if (p.every[2] > 0 && version % p.every[2] == 0) return 3;
  if (p.every[1] > 0 && version % p.every[1] == 0) return 2;
  return 1;
}

/// Walks one super-period: periods P_i, rollbacks E[rollback_i], overhead.
void walk(const Pattern& p, MultiLevelPrediction& out) {
  const std::int64_t top = p.every[2] > 0 ? p.every[2] : (p.every[1] > 0 ? p.every[1] : p.every[0]);
  const std::int64_t blocks = top / p.every[0];
  constexpr std::int64_t kMaxBlocks = 1000000;
  const double k1t = static_cast<double>(p.every[0]) * p.t;
  double stall_total = 0;
  std::array<double, 3> count{};
  if (blocks <= kMaxBlocks) {
    for (int level = 1; level <= 3; ++level) {
      if (p.every[static_cast<std::size_t>(level - 1)] <= 0) continue;
      // Captures of level >= `level` in one super-period: stall s_j and length L_j to the next.
      std::vector<double> stalls;
      std::vector<double> lengths;
      for (std::int64_t b = 1; b <= blocks; ++b) {
        const int l = level_of(p, b * p.every[0]);
        const double s = p.stall[static_cast<std::size_t>(l - 1)];
        if (l >= level) {
          stalls.push_back(s);
          lengths.push_back(0);
        }
        if (!lengths.empty()) lengths.back() += s + k1t;
        if (level == 1) stall_total += s;
      }
      // The blocks before the first capture of this level close the cyclic last period.
      for (std::int64_t b = 1; b <= blocks; ++b) {
        const int l = level_of(p, b * p.every[0]);
        if (l >= level) break;
        lengths.back() += p.stall[static_cast<std::size_t>(l - 1)] + k1t;
      }
      double num = 0;
      double den = 0;
      for (std::size_t j = 0; j < lengths.size(); ++j) {
        const double prev = lengths[(j + lengths.size() - 1) % lengths.size()];
        num += 0.5 * lengths[j] * lengths[j] + stalls[j] * prev;
        den += lengths[j];
      }
      out.rollback_s[static_cast<std::size_t>(level - 1)] = num / den;
      count[static_cast<std::size_t>(level - 1)] = static_cast<double>(lengths.size());
    }
  } else {
    for (int i = 0; i < 3; ++i)
      count[static_cast<std::size_t>(i)] = p.every[static_cast<std::size_t>(i)] > 0
                                               ? static_cast<double>(top / p.every[static_cast<std::size_t>(i)])
                                               : 0.0;
    stall_total = p.stall[0] * (count[0] - count[1]) + p.stall[1] * (count[1] - count[2]) + p.stall[2] * count[2];
  }
  const double wall = static_cast<double>(top) * p.t + stall_total;
  out.checkpoint_overhead = stall_total / wall;
  for (std::size_t i = 0; i < 3; ++i) {
    out.period_s[i] = count[i] > 0 ? wall / count[i] : 0.0;
    if (blocks > kMaxBlocks && count[i] > 0) out.rollback_s[i] = 0.5 * out.period_s[i] + p.stall[i];
  }
}

/// Wasted time per failure and ETTR of `p` under the class rates `r`.
void evaluate(const Pattern& p, const ClassRates& r, const std::array<double, 3>& rho, MultiLevelPrediction& out) {
  walk(p, out);
  double loss = 0;
  double wasted = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    if (r.rate[i] <= 0) continue;
    // A class with no level of its own recovers from the next level up that exists (or scratch).
    std::size_t level = i;
    while (level < 3 && p.every[level] <= 0) ++level;
    const double rollback = level < 3 ? out.rollback_s[level] : 0.0;
    const double retrieval = level < 3 ? rho[level] : 0.0;
    wasted += r.rate[i] * (rollback + retrieval);
    loss += r.rate[i] * (rollback + retrieval + r.downtime[i]);
  }
  // Failures during an episode restart it and add no rollback of their own: with episodes as
  // M/G/inf busy periods (analytic_models.hpp, 3a) there are e^{Lambda Lbar} failures per episode.
  double service = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    std::size_t level = i;
    while (level < 3 && p.every[level] <= 0) ++level;
    service += r.rate[i] * (r.downtime[i] + (level < 3 ? rho[level] : 0.0));
  }
  out.failures_per_episode = std::exp(service);  // service = Lambda Lbar
  out.mean_service_s = r.total > 0 ? service / r.total : 0.0;
  out.wasted_time_per_failure_s = r.total > 0 ? wasted / r.total / out.failures_per_episode : 0.0;
  out.ettr = std::max(0.0, 1.0 - out.checkpoint_overhead - loss);
}

/// Minimises F = sum_i dS_i / P_i + lambda_i P_i / 2 subject to P_1 <= P_2 <= P_3. Unconstrained
/// P_i* = sqrt(2 dS_i / lambda_i); where that order is violated, adjacent levels are pooled
/// (they share one period, sqrt(2 sum dS / sum lambda) over the pool) until it holds (pool
/// adjacent violators; F is a sum of convex functions of each P_i). Capped at `horizon`.
std::array<double, 3> best_periods(const std::array<double, 3>& stall, const std::array<double, 3>& rate, double horizon) {
  struct Pool {
    double ds = 0;
    double lam = 0;
    int levels = 0;
    [[nodiscard]] double period(double cap) const { return lam > 0 ? std::min(cap, std::sqrt(2.0 * ds / lam)) : cap; }
  };
  std::vector<Pool> pools;
  double below = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    pools.push_back(Pool{std::max(0.0, stall[i] - below), rate[i], 1});
    below = stall[i];
    while (pools.size() > 1 && pools[pools.size() - 2].period(horizon) > pools.back().period(horizon)) {
      const Pool top = pools.back();
      pools.pop_back();
      pools.back().ds += top.ds;
      pools.back().lam += top.lam;
      pools.back().levels += top.levels;
    }
  }
  std::array<double, 3> out{};
  std::size_t i = 0;
  for (const auto& pool : pools)
    for (int l = 0; l < pool.levels; ++l) out[i++] = pool.period(horizon);
  return out;
}

}  // namespace

MultiLevelPrediction predict_multi_level(const Scenario& s, const StrategyCosts& c) {
  MultiLevelPrediction out;
  bool ok = false;
  const ClassRates r = class_rates(s, c, out.notes, out.omitted_terms, ok);
  for (std::string& term : fault_model_terms_left_out(s.failures)) out.omitted_terms.push_back(std::move(term));
  if (!ok) {
    out.reason = "no closed form for failure process \"" + std::string(name_of(s.failures.process)) +
                 "\" (the multi-level model assumes Poisson failures)";
    return out;
  }
  out.available = true;
  out.rate = r.rate;
  Pattern p;
  p.t = c.iteration_time.seconds();
  p.every = {c.every_iterations, c.partner_every_iterations, c.persistent_every_iterations};
  p.stall = {c.stall.seconds(), c.partner_stall.seconds(), c.persistent_stall.seconds()};
  out.every = p.every;
  out.stall_s = p.stall;
  out.retrieval_s = {c.retrieval_local.seconds(), c.retrieval_peer.seconds(), c.retrieval_storage.seconds()};
  evaluate(p, r, out.retrieval_s, out);
  if (c.adaptive_interval) out.notes.push_back("adaptive interval: the model uses the initial level-3 period");

  // Best periods: P_i* = sqrt(2 (S_i - S_{i-1}) / lambda_i), capped at the run's length, nested.
  const double horizon = s.run.duration ? s.run.duration->seconds() : p.t * static_cast<double>(s.run.iterations.value_or(1));
  out.best_period_s = best_periods(p.stall, r.rate, horizon);
  Pattern best = p;
  // Each level's interval is a whole multiple of the one below. A period that is not a finite
  // positive number of iterations (an iteration time of zero, a rate of zero) places the level
  // every iteration of the one below; the product stays at most kMaxBestEvery iterations, so the
  // multiples cannot overflow (three levels of up to 1e9 would reach 1e27).
  constexpr double kMaxBestEvery = 1e15;
  std::int64_t unit = 1;
  for (std::size_t i = 0; i < 3; ++i) {
    const double per_unit = p.t * static_cast<double>(unit);
    double steps = per_unit > 0 ? std::round(out.best_period_s[i] / per_unit) : 1.0;
    if (!std::isfinite(steps)) steps = 1.0;
    const double most = std::max(1.0, std::floor(kMaxBestEvery / static_cast<double>(unit)));
    best.every[i] = unit * static_cast<std::int64_t>(std::clamp(steps, 1.0, most));
    unit = best.every[i];
  }
  if (p.every[2] <= 0) best.every[2] = 0;  // persistent_interval "never": no level 3 to place
  out.best_every = best.every;
  MultiLevelPrediction at_best;
  evaluate(best, r, out.retrieval_s, at_best);
  out.best_ettr = at_best.ettr;
  return out;
}

AnalyticPrediction multi_level_analytic(const Scenario& s, const StrategyCosts& c) {
  AnalyticPrediction p;
  const MultiLevelPrediction m = predict_multi_level(s, c);
  if (!m.available) {
    p.reason = m.reason;
    return p;
  }
  p.available = true;
  p.notes = m.notes;
  p.omitted_terms = m.omitted_terms;
  p.notes.push_back("multi-level: first-order model (analysis/multi_level_model.hpp); only ETTR, wasted time per "
                    "failure and the failure count have closed forms");
  p.failure_rate = m.rate[0] + m.rate[1] + m.rate[2];
  p.mtbf_s = p.failure_rate > 0 ? 1.0 / p.failure_rate : 0.0;
  p.wall_time_s = s.run.duration ? s.run.duration->seconds()
                                 : c.iteration_time.seconds() * static_cast<double>(s.run.iterations.value_or(0)) /
                                       std::max(1e-12, m.ettr);
  p.ettr = m.ettr;
  p.ettr_asymptotic = m.ettr;
  p.mean_service_s = m.mean_service_s;
  p.failures_per_episode = m.failures_per_episode;
  p.episode_mean_s = p.failure_rate > 0 ? std::expm1(p.failure_rate * m.mean_service_s) / p.failure_rate : 0.0;
  p.metrics["ettr"] = m.ettr;
  p.metrics["wasted_time_per_failure_s"] = m.wasted_time_per_failure_s;
  p.metrics["failures.total"] = p.failure_rate * p.wall_time_s;
  return p;
}

}  // namespace ckptsim
