// Closed forms of analysis/analytic_models.hpp; the derivation is in the header.
#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/failure_mix.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/analysis/multi_level_model.hpp"
#include "ckptsim/analysis/just_in_time_model.hpp"
#include "ckptsim/analysis/per_step_model.hpp"
#include "ckptsim/analysis/islands_model.hpp"
#include "ckptsim/run/interval_policy.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <set>
#include <stdexcept>

#include <boost/math/special_functions/erf.hpp>
#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/checkpoint/erasure_code.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/run/segment_clock.hpp"

namespace ckptsim {

double gemini_wasted_time(double checkpoint_time_s, double frequency_hz, double retrieval_time_s) {
  if (!(frequency_hz > 0) || checkpoint_time_s < 0 || retrieval_time_s < 0)
    throw ModelError("checkpoint frequency f", "Eq. 1 needs f > 0 and non-negative checkpoint and retrieval times");
  if (1.0 / frequency_hz < checkpoint_time_s)
    throw ModelError("checkpoint frequency f", "Eq. 2: the checkpoint interval 1/f must be at least the checkpoint time");
  return checkpoint_time_s + 1.0 / (2.0 * frequency_hz) + retrieval_time_s;
}

double young_interval(double checkpoint_cost_s, double mtbf_s) {
  if (checkpoint_cost_s < 0 || !(mtbf_s > 0))
    throw ModelError("checkpoint cost delta, MTBF M", "Young's interval needs delta >= 0 and M > 0");
  return std::sqrt(2.0 * checkpoint_cost_s * mtbf_s);
}

double daly_interval(double checkpoint_cost_s, double mtbf_s) {
  return daly_optimal_interval(checkpoint_cost_s, mtbf_s);  // run/interval_policy.hpp
}

double restart_expected_duration(double rate, double length_s) {
  if (rate <= 0) return length_s;
  return std::expm1(rate * length_s) / rate;
}

double erlang_b(int servers, double offered_load) {
  double b = 1.0;
  for (int n = 1; n <= servers; ++n) b = offered_load * b / (n + offered_load * b);
  return b;
}

namespace {

/// One possible "service time" of a failure (section 3a): its length, probability, the
/// retrieval it ends with and its restart beyond the mean restart (section 3b: a new job's
/// overhead, restart tiers without a free standby).
struct Atom {
  double length = 0;
  double probability = 0;
  double retrieval = 0;
  double extra_restart = 0;
};

/// E[e^{-Lambda V} w(V)] under the stationary law of section 3b, where w is e^{Lambda rho*} raised
/// to `power` (0 or 1), times e^{Lambda delta*} when `extra` (delta* the extra restart of the
/// failure that set the end). Atoms are sorted and merged by length first.
class ResidualLaw {
 public:
  ResidualLaw(std::vector<Atom> atoms, double lambda) : lambda_(lambda) {
    std::sort(atoms.begin(), atoms.end(), [](const Atom& a, const Atom& b) { return a.length < b.length; });
    for (const auto& a : atoms) {
      if (a.probability <= 0) continue;
      if (!atoms_.empty() && atoms_.back().length == a.length) {
        auto& last = atoms_.back();
        last.retrieval = (last.retrieval * last.probability + a.retrieval * a.probability) / (last.probability + a.probability);
        last.extra_restart =
            (last.extra_restart * last.probability + a.extra_restart * a.probability) / (last.probability + a.probability);
        last.probability += a.probability;
      } else {
        atoms_.push_back(a);
      }
    }
  }

  [[nodiscard]] double mean() const {
    double m = 0;
    for (const auto& a : atoms_) m += a.probability * a.length;
    return m;
  }
  [[nodiscard]] double variance() const {
    const double m = mean();
    double v = 0;
    for (const auto& a : atoms_) v += a.probability * (a.length - m) * (a.length - m);
    return v;
  }

  [[nodiscard]] double expect(int power, bool extra = false) const {
    const double lam = lambda_;
    auto weight = [&](const Atom& a) {
      return (extra ? std::exp(lam * a.extra_restart) : 1.0) * (power == 0 ? 1.0 : std::exp(lam * a.retrieval));
    };
    double total = 0;
    const std::size_t n = atoms_.size();
    for (std::size_t j = 0; j < n; ++j) {
      // Residual mass above atoms_[j].length: sum_{i > j} pi_i (l_i - l_j).
      double above = 0;
      for (std::size_t i = j + 1; i < n; ++i) above += atoms_[i].probability * (atoms_[i].length - atoms_[j].length);
      total += atoms_[j].probability * weight(atoms_[j]) * std::exp(-lam * (atoms_[j].length + above));
      if (j + 1 == n) break;
      // The piece (l_j, l_{j+1}): V set by a residual of a longer service.
      double f = 0;
      for (std::size_t i = 0; i <= j; ++i) f += atoms_[i].probability;
      double b = 0;
      double a = 0;
      double w = 0;
      for (std::size_t i = j + 1; i < n; ++i) {
        b += atoms_[i].probability;
        a += atoms_[i].probability * atoms_[i].length;
        w += atoms_[i].probability * weight(atoms_[i]);
      }
      if (b <= 0) continue;
      w /= b;
      const double lo = atoms_[j].length;
      const double hi = atoms_[j + 1].length;
      // integral of e^{-lam v} F b lam e^{-lam (a - b v)} dv = b e^{-lam a} (e^{-lam F lo} - e^{-lam F hi})
      total += w * b * (std::exp(-lam * (a + f * lo)) - std::exp(-lam * (a + f * hi)));
    }
    return total;
  }

  [[nodiscard]] const std::vector<Atom>& atoms() const { return atoms_; }

 private:
  std::vector<Atom> atoms_;
  double lambda_;
};

/// Replacement delays as equal-probability atoms (s) and their exact mean.
struct DelayLaw {
  std::vector<double> values;
  double mean = 0;
};

DelayLaw replacement_law(const ReplacementSpec& r) {
  constexpr int kAtoms = 64;
  DelayLaw law;
  switch (r.distribution) {
    case ReplacementDistribution::uniform: {
      const double lo = r.low.seconds();
      const double hi = r.high.seconds();
      for (int i = 0; i < kAtoms; ++i) law.values.push_back(lo + (hi - lo) * (i + 0.5) / kAtoms);
      law.mean = 0.5 * (lo + hi);
      return law;
    }
    case ReplacementDistribution::lognormal: {
      const double log_median = std::log(r.median.seconds());
      for (int i = 0; i < kAtoms; ++i) {
        const double u = (i + 0.5) / kAtoms;
        const double z = std::sqrt(2.0) * boost::math::erf_inv(2.0 * u - 1.0);
        law.values.push_back(std::exp(log_median + r.sigma * z));
      }
      law.mean = r.median.seconds() * std::exp(0.5 * r.sigma * r.sigma);
      return law;
    }
    case ReplacementDistribution::fixed:
      law.values.push_back(r.fixed.seconds());
      law.mean = r.fixed.seconds();
      return law;
  }
  throw std::logic_error("replacement distribution outside its enum");
}

/// Average number of distinct holder sets containing a machine (s_bar of section 3e). The
/// loader's checks guarantee the placement can be built; a PlacementError here (a scenario built
/// in code that skipped them) propagates rather than changing the prediction.
double holder_sets_per_machine(const Scenario& s, const StrategyCosts& c) {
  const Placement p = make_placement(c.placement, s.cluster.machines, c.replicas, s.run.seed, c.replication_jump);
  std::set<std::vector<int>> distinct(p.holders.begin(), p.holders.end());
  return static_cast<double>(c.replicas) * static_cast<double>(distinct.size()) / s.cluster.machines;
}

}  // namespace

namespace {

/// The notation of section 3 (header) for one strategy.
struct CycleInputs {
  double lam = 0;            ///< Lambda, cluster failure rate (1/s)
  double t = 0;              ///< T
  bool checkpoints = false;
  double k = 1;
  double stall = 0;          ///< S (0 without checkpoints)
  double t_done = 0;         ///< carrying-iteration start -> checkpoint usable
  double kt = 0;             ///< kT
  double dk = 0;             ///< D_k = kT + S
  double a1 = 0;             ///< a_1 = kT + t_done
  double h = 0;              ///< hardware fraction
  double det = 0;            ///< D, detection
  double t_restart = 0;
  double rho_sw = 0;         ///< retrieval after a software failure
  double rho_hw = 0;         ///< retrieval after a hardware failure
  const FailureMix* mix = nullptr;  ///< the failure classes (analysis/failure_mix.hpp)
};

CycleInputs cycle_inputs(const StrategyCosts& c, const FailureMix& mix) {
  CycleInputs in;
  in.mix = &mix;
  in.lam = mix.total_rate;
  in.t = c.iteration_time.seconds();
  in.checkpoints = c.tier != CheckpointTier::none;
  in.k = static_cast<double>(std::max<std::int64_t>(1, c.every_iterations));
  in.stall = in.checkpoints ? c.stall.seconds() : 0.0;
  in.t_done = c.completion.seconds();
  in.kt = in.k * in.t;
  in.dk = in.kt + in.stall;
  in.a1 = in.kt + in.t_done;
  in.h = mix.hardware_share;
  in.det = mix.mean_detection_s;
  in.t_restart = mix.mean_restart_s;
  if (c.tier == CheckpointTier::memory) {
    in.rho_sw = c.retrieval_local.seconds();
    in.rho_hw = c.retrieval_peer.seconds();
  } else if (c.tier == CheckpointTier::storage) {
    in.rho_sw = in.rho_hw = c.retrieval_storage.seconds();
  }
  return in;
}

/// Section 2: Young / Daly with delta = S and M = 1/Lambda.
void set_intervals(const CycleInputs& in, AnalyticPrediction& p) {
  p.checkpoint_cost_s = in.stall;
  if (in.lam <= 0) return;
  p.mtbf_s = 1.0 / in.lam;
  p.young_interval_s = young_interval(in.stall, p.mtbf_s);
  p.daly_interval_s = daly_interval(in.stall, p.mtbf_s);
  p.young_every_iterations = std::max(1.0, p.young_interval_s / in.t);
  p.daly_every_iterations = std::max(1.0, p.daly_interval_s / in.t);
}

/// No failures: the segment clock alone, exact.
AnalyticPrediction predict_without_failures(const Scenario& s, const StrategyCosts& c, const CycleInputs& in,
                                            AnalyticPrediction p) {
  const SegmentPattern pattern = SegmentPattern::from_costs(c);
  const SegmentClock clock(pattern, 0);
  double w = 0;
  if (s.run.duration) {
    w = s.run.duration->seconds();
  } else if (s.run.iterations) {
    w = clock.time_to_complete(*s.run.iterations).seconds();
  }
  const double st = s.run.duration ? clock.stall(*s.run.duration).seconds()
                                   : clock.stall(clock.time_to_complete(s.run.iterations.value_or(0))).seconds();
  p.wall_time_s = w;
  p.ettr = w > 0 ? (w - st) / w : 0.0;
  p.ettr_asymptotic = in.checkpoints ? in.kt / in.dk : 1.0;
  auto& m = p.metrics;
  m["ettr"] = p.ettr;
  m["wall_time_s"] = w;
  for (const char* name : {"failures.total", "failures.software", "failures.hardware", "recoveries.local", "recoveries.peer",
                           "recoveries.storage", "recoveries.scratch", "time_breakdown_s.lost_progress",
                           "time_breakdown_s.detection", "time_breakdown_s.replacement_wait", "time_breakdown_s.retrieval",
                           "time_breakdown_s.restart"})
    m[name] = 0.0;
  m["time_breakdown_s.training"] = w - st;
  m["time_breakdown_s.checkpoint_stall"] = st;
  return p;
}

/// Section 3a: episodes are M/G/infinity busy periods of the failures' service times L.
struct Episodes {
  ResidualLaw law;
  double mean_service = 0;          ///< Lbar
  double load = 0;                  ///< Lambda Lbar
  double failures_per_episode = 0;  ///< e^{Lambda Lbar}
  double mean_length = 0;           ///< E[Y] = (e^{Lambda Lbar} - 1) / Lambda
  double hardware_service_mean = 0; ///< E[L | hardware]
};

Episodes episodes_of(const Scenario& s, const CycleInputs& in, AnalyticPrediction& p) {
  const double lam = in.lam;
  const DelayLaw delay = replacement_law(s.failures.replacement);
  const int standby = s.cluster.standby_machines;
  // Standby pool: machines x holding time (detection + replacement delay) per second.
  double offered = 0;
  for (const auto& fc : in.mix->classes)
    if (fc.hardware) offered += fc.rate * fc.machines * (fc.detection_s + delay.mean);
  if (standby > 0)
    p.notes.push_back("standby pool: a hardware failure finds no free standby with Erlang-B probability " +
                      std::to_string(erlang_b(standby, offered)) +
                      (std::any_of(in.mix->classes.begin(), in.mix->classes.end(),
                                   [](const FailureClass& fc) { return fc.hardware && fc.machines > 1; })
                           ? " (a domain failure needs a standby per machine: truncated-Poisson busy count)"
                           : ""));
  std::vector<Atom> atoms;
  double hardware_mass = 0;
  double hardware_length = 0;
  for (const auto& fc : in.mix->classes) {
    const double share = fc.rate / lam;
    const double base = fc.detection_s + fc.restart_s;
    if (!fc.hardware) {
      atoms.push_back({base + in.rho_sw, share, in.rho_sw});
      continue;
    }
    const double blocked = standby > 0 ? standby_blocking(standby, offered, fc.machines) : 1.0;
    // Without a free standby the restart may be another tier's (restart tiers: a new job).
    const double base_blocked = fc.detection_s + fc.restart_no_standby_s();
    // ... which the breakdown counts as restart (section 3b), as the run model does.
    const double extra_restart = fc.restart_no_standby_s() - fc.restart_s;
    atoms.push_back({base + in.rho_hw, share * (1.0 - blocked), in.rho_hw});
    for (double d : delay.values)
      atoms.push_back({base_blocked + d + in.rho_hw, share * blocked / static_cast<double>(delay.values.size()), in.rho_hw,
                       extra_restart});
    hardware_mass += share;
    hardware_length += share * ((1.0 - blocked) * base + blocked * base_blocked + in.rho_hw + blocked * delay.mean);
  }
  Episodes e{ResidualLaw(atoms, lam)};
  e.mean_service = e.law.mean();
  e.load = lam * e.mean_service;
  e.failures_per_episode = std::exp(e.load);
  e.mean_length = std::expm1(e.load) / lam;
  if (hardware_mass > 0) e.hardware_service_mean = hardware_length / hardware_mass;
  p.mean_service_s = e.mean_service;
  p.episode_mean_s = e.mean_length;
  p.failures_per_episode = e.failures_per_episode;
  return e;
}

/// Section 3b: expected time per failure in each phase.
struct PhasesPerFailure {
  double detection = 0;
  double replacement = 0;
  double retrieval = 0;
  double restart = 0;
};

PhasesPerFailure phases_per_failure(const CycleInputs& in, const Episodes& e) {
  const double lam = in.lam;
  // E[e^{-Lambda V}], and with the extra restart delta* (0 but for a new job's overhead, where
  // ed1 equals ev1 exactly): E[e^{-Lambda V} e^{Lambda delta*}], E[e^{-Lambda V} e^{Lambda (delta* + rho*)}].
  const double ev1 = e.law.expect(0);
  const double ed1 = e.law.expect(0, true);
  const double edr = e.law.expect(1, true);
  PhasesPerFailure out;
  // Detection by class (each failure's own D_c), then the mean of e^{-Lambda D}.
  double e_det = 0;
  for (const auto& fc : in.mix->classes) {
    out.detection += fc.rate / lam * -std::expm1(-lam * fc.detection_s) / lam;
    e_det += fc.rate / lam * std::exp(-lam * fc.detection_s);
  }
  out.restart = std::expm1(lam * in.t_restart) / lam * ev1 + std::exp(lam * in.t_restart) * (ed1 - ev1) / lam;
  out.retrieval = std::exp(lam * in.t_restart) * (edr - ed1) / lam;
  out.replacement = std::max(0.0, (e_det - std::exp(lam * in.t_restart) * edr) / lam);
  return out;
}

/// Section 3c: a segment's checkpoints, stall and captured progress; the cycle's renewal rate.
struct SegmentTerms {
  double one_minus_q = 0;  ///< 1 - q, q = e^{-Lambda D_k}
  double q = 0;
  double q1 = 0;           ///< e^{-Lambda a_1}
  double eb = 0;           ///< E[B(X)]
  double estall = 0;       ///< E[stall(X)]
  double ecap = 0;         ///< E[cap(X)]
  double exb = 0;          ///< E[X B(X)]
  double g = 0;            ///< E[G] = T k E[B(X)]
  double cycle_mean = 0;   ///< segment + episode: e^{Lambda Lbar} / Lambda
  double rate = 0;         ///< ETTR_inf = g / cycle_mean
};

SegmentTerms segment_terms(const CycleInputs& in, const Episodes& e) {
  const double lam = in.lam;
  SegmentTerms sg;
  sg.one_minus_q = -std::expm1(-lam * in.dk);
  sg.q = 1.0 - sg.one_minus_q;
  sg.q1 = std::exp(-lam * in.a1);
  const double omq = sg.one_minus_q;
  sg.eb = in.checkpoints ? sg.q1 / omq : 0.0;
  sg.estall = (in.checkpoints && in.stall > 0) ? -std::expm1(-lam * in.stall) * std::exp(-lam * in.kt) / (lam * omq) : 0.0;
  sg.ecap = in.checkpoints ? sg.q1 * (in.kt + in.dk * sg.q / omq) : 0.0;
  sg.exb = in.checkpoints ? sg.q1 * ((in.a1 + 1.0 / lam) / omq + in.dk * sg.q / (omq * omq)) : 0.0;
  sg.g = in.t * in.k * sg.eb;
  sg.cycle_mean = e.failures_per_episode / lam;
  sg.rate = sg.g / sg.cycle_mean;
  return sg;
}

/// Section 3d: the renewal-reward constants of a finite run.
struct HorizonTerms {
  double ex = 0;                  ///< E[X] = 1 / Lambda
  double ec2 = 0;                 ///< E[C^2] of a cycle
  double training = 0;            ///< K of the training reward
  double stall = 0;               ///< K of the stall reward
  double wall_variance_per_training = 0;
};

HorizonTerms horizon_terms(const CycleInputs& in, const Episodes& e, const SegmentTerms& sg) {
  const double lam = in.lam;
  const double cm = sg.cycle_mean;
  HorizonTerms ht;
  // Second moment of an episode: a fixed-length restart with L = Lbar, plus Var(L).
  const double el = lam * e.mean_service;
  const double ey = e.mean_length;
  const double e_tau = (1.0 - std::exp(-el) * (1.0 + el)) / lam;
  const double e_tau2 = (2.0 - std::exp(-el) * (2.0 + 2.0 * el + el * el)) / (lam * lam);
  const double ey2 = e.mean_service * e.mean_service + std::exp(el) * (e_tau2 + 2.0 * e_tau * ey) + e.law.variance();
  ht.ex = 1.0 / lam;
  ht.ec2 = 2.0 * ht.ex * ht.ex + 2.0 * ht.ex * ey + ey2;
  const double ecg = in.t * in.k * sg.exb + ey * sg.g;
  const double eint = (ht.ex * ht.ex - sg.estall / lam) + ey * sg.g;
  ht.training = sg.g * ht.ec2 / (2.0 * cm * cm) - ecg / cm + eint / cm;
  // Renewal CLT: the wall time to accumulate training x has variance x Var(C - G/r) / g.
  if (sg.g > 0 && sg.rate > 0) {
    const double omq = sg.one_minus_q;
    const double eb2 = sg.q1 * (2.0 / (omq * omq) - 1.0 / omq);
    const double eg2 = in.t * in.t * in.k * in.k * eb2;
    ht.wall_variance_per_training =
        std::max(0.0, (ht.ec2 - 2.0 * ecg / sg.rate + eg2 / (sg.rate * sg.rate)) / sg.g);
  }
  // The same constant for the stall (reward stall(u) in the segment, kept at the failure):
  // E[X stall(X)] = E[stall(X)]/Lambda + sum_b int_{st_b}^{st_b+S} u e^{-Lambda u} du, st_b = kT + (b-1) D_k.
  if (sg.estall > 0) {
    const double omq = sg.one_minus_q;
    const double sum_e = std::exp(-lam * in.kt) / omq;
    const double sum_te = std::exp(-lam * in.kt) * (in.kt / omq + in.dk * sg.q / (omq * omq));
    const double keep_s = -std::expm1(-lam * in.stall);
    const double u_moment =
        sum_te * keep_s / lam + sum_e * keep_s / (lam * lam) - in.stall / lam * std::exp(-lam * in.stall) * sum_e;
    const double exs = sg.estall / lam + u_moment;
    const double ecg_s = exs + ey * sg.estall;
    const double eint_s = sg.estall / lam + ey * sg.estall;
    ht.stall = sg.estall * ht.ec2 / (2.0 * cm * cm) - ecg_s / cm + eint_s / cm;
  }
  return ht;
}

/// Expected times and counts over a run of W (3d), then corrected by tier (3e).
struct RunAccounts {
  double w = 0;
  double training = 0;
  double failures = 0;
  double episodes = 0;
  double completed = 0;             ///< completed episodes
  double detection = 0;
  double replacement = 0;
  double retrieval = 0;
  double restart = 0;
  double segment_time = 0;
  double training_per_segment_second = 0;
  double wasted = 0;
  double scratch = 0;
  double rest = 0;                  ///< completed episodes that do not go back to scratch
  double p_local = 0;               ///< probability that an episode sees no hardware failure
  double rec_local = 0;
  double rec_peer = 0;
  double rec_storage = 0;
};

RunAccounts run_accounts(const CycleInputs& in, const Episodes& e, const PhasesPerFailure& ph, const SegmentTerms& sg,
                         const HorizonTerms& ht, double w) {
  const double lam = in.lam;
  RunAccounts a;
  a.w = w;
  a.training = sg.rate * w + ht.training;
  a.failures = lam * w;
  a.episodes = a.failures / e.failures_per_episode;
  a.completed = std::max(0.0, a.episodes - (1.0 - std::exp(-e.load)));
  a.detection = a.failures * ph.detection;
  a.replacement = a.failures * ph.replacement;
  a.retrieval = a.failures * ph.retrieval;
  a.restart = a.failures * ph.restart;
  a.segment_time = w - (a.detection + a.replacement + a.retrieval + a.restart);
  a.training_per_segment_second = lam * in.t * in.k * sg.eb;
  a.wasted = a.episodes * (ht.ex - sg.ecap) + a.retrieval;
  // Recoveries before the first usable checkpoint of the run are scratch: they save their retrieval.
  const double retrieval_per_episode = ph.retrieval * e.failures_per_episode;
  a.scratch = in.checkpoints ? std::min(a.completed, (1.0 - sg.q1) / sg.q1) : a.completed;
  if (in.checkpoints && a.scratch > 0) {
    const double saved = a.scratch * retrieval_per_episode;
    a.retrieval -= saved;
    a.segment_time += saved;
    a.training += saved * a.training_per_segment_second;
    a.wasted -= saved;
  }
  const double l_sw = in.det + in.rho_sw + in.t_restart;
  const double psi = std::exp(-lam * l_sw) / (in.h + (1.0 - in.h) * std::exp(-lam * l_sw));
  a.p_local = (1.0 - in.h) * psi;
  a.rest = std::max(0.0, a.completed - a.scratch);
  return a;
}

/// P(Binomial(n, q) >= at_least), summed from the top term down (each term by lgamma).
double binomial_tail(int n, int at_least, double q) {
  if (at_least <= 0) return 1.0;
  if (at_least > n || q <= 0) return 0.0;
  if (q >= 1) return 1.0;
  double sum = 0;
  for (int i = n; i >= at_least; --i)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(q) +
                    (n - i) * std::log1p(-q));
  return std::min(1.0, sum);
}

/// Section 3e, memory strategies: fallbacks to storage when a whole holder set was replaced.
void memory_fallbacks(const StrategyCosts& c, const CycleInputs& in, const Episodes& e,
                      const SegmentTerms& sg, const HorizonTerms& ht, double sets_per_machine,
                      const std::vector<double>& domain_loss, RunAccounts& a, AnalyticPrediction& p) {
  const double lam = in.lam;
  const int mrep = std::max(1, c.replicas);
  double p_ep = 0;
  if (mrep == 1 && !c.erasure_coded()) {
    p.memory_loss_per_hardware_failure = 1.0;
    p_ep = 1.0 - a.p_local;
  } else {
    const double rem_busy = std::expm1(lam * e.hardware_service_mean) / lam;
    const double ex_short = sg.one_minus_q > 0 && sg.q1 < 1 ? ht.ex - in.a1 * sg.q1 / (1.0 - sg.q1) : 0.0;
    const double window = rem_busy + in.a1 + (1.0 - sg.q1) / sg.q1 * (ex_short + e.mean_length);
    // A given other holder replaced within the window: by its machine failures (lemon
    // multipliers averaged, failure_mix.hpp) and its domains' hardware failures.
    const double pm = in.mix->replaced_within(window);
    // Replicas: the other m - 1 holders of one of j's sets all replaced. Erasure-coded: at least
    // p of the other g - 1 members of j's group replaced (binomial tail; one group per machine).
    p.memory_loss_per_hardware_failure =
        c.erasure_coded() ? binomial_tail(c.group_size - 1, c.parity, pm)
                          : std::min(1.0, sets_per_machine * std::pow(pm, mrep - 1));
    // Per event: a machine hardware failure loses memory with p_loss; a hardware domain failure
    // when the domain holds too many holders of some machine (the placement's share of such
    // domains, loss_c), else like its s_c machine failures at once (first order).
    double per_event = 0;
    const auto& classes = in.mix->classes;
    for (std::size_t i = 0; i < classes.size(); ++i) {
      const auto& fc = classes[i];
      if (!fc.hardware) continue;
      const double loss_c = fc.domain ? domain_loss[i] : 0.0;
      const double each = fc.domain ? loss_c + (1.0 - loss_c) * std::min(1.0, fc.machines * p.memory_loss_per_hardware_failure)
                                    : p.memory_loss_per_hardware_failure;
      per_event += fc.rate / lam * each;
    }
    p_ep = std::min(1.0, e.failures_per_episode * per_event);
  }
  p.memory_loss_per_episode = p_ep;
  const double losses = a.rest * p_ep;
  const double rho_storage = c.retrieval_storage.seconds();
  const double rho_mem = a.p_local * in.rho_sw + (1.0 - a.p_local) * in.rho_hw;
  const double follow_ups = (1.0 - sg.q1) / sg.q1;
  double lost_lineage = 0;   // extra work lost per fallback (segment time)
  double lost_training = 0;  // the training part of it
  double first_window = 0;   // segment time until the first persistent checkpoint is usable
  if (c.persistent_every_iterations > 0) {
    // Age of the latest usable persistent checkpoint at the failure: t_done + U + I_p/2 when the
    // upload phase is uniform; in a segment that starts from a storage recovery (or the start
    // of the run) the age is X itself until the first upload lands at P0 = t_done + U + I_p.
    const double ip = static_cast<double>(c.persistent_every_iterations) / in.k * in.dk;
    const double up = in.t_done + c.upload.seconds();
    const double p0 = up + ip;
    first_window = p0;
    const double e_mod = ht.ex - ip * std::exp(-lam * ip) / -std::expm1(-lam * ip);  // E[Y mod I_p]
    const double age_reset =
        (-std::expm1(-lam * p0) - lam * p0 * std::exp(-lam * p0)) / lam + std::exp(-lam * p0) * (up + e_mod);
    // An upload still in flight when a failure strikes after the in-memory checkpoint of the
    // same state completed is lost for good (the state is never captured again): probability
    // 1 - pi_u = e^{-Lambda t_done} (1 - e^{-Lambda U}) per capture. Successful captures are then
    // I_p x Geometric(pi_u) apart: length-biased mean age t_done + U + I_p (2 - pi_u) / (2 pi_u).
    const double pi_u = 1.0 - std::exp(-lam * in.t_done) * -std::expm1(-lam * c.upload.seconds());
    const double age_uniform = up + ip * (2.0 - pi_u) / (2.0 * pi_u);
    const double reset_share = std::min(1.0, (losses * (1.0 + follow_ups) + 1.0) / (a.episodes + 1.0));
    const double age = (1.0 - reset_share) * age_uniform + reset_share * age_reset;
    lost_lineage = std::max(0.0, age - (ht.ex - sg.ecap));
    lost_training = lost_lineage * in.kt / in.dk;
  } else {
    lost_training = 0.5 * a.training;
    lost_lineage = lost_training * in.dk / in.kt;
    p.notes.push_back("no persistent track: a memory loss restarts from scratch (lost work ~ half the progress)");
  }
  const double extra_time = losses * ((rho_storage - in.rho_hw) + follow_ups * (rho_storage - rho_mem));
  a.retrieval += extra_time;
  a.segment_time -= extra_time;
  a.training -= extra_time * a.training_per_segment_second + losses * lost_training;
  a.wasted += extra_time + losses * lost_lineage;
  // Loss episodes are hardware episodes; follow-up storage recoveries replace local and peer
  // recoveries in proportion.
  const double clean = std::max(0.0, a.rest - losses);
  const double follow = std::min(clean, losses * follow_ups);
  const double keep = clean > 0 ? 1.0 - follow / clean : 0.0;
  a.rec_storage = std::min(a.rest, losses) + follow;
  a.rec_local = a.rest * a.p_local * keep;
  a.rec_peer = std::max(0.0, a.rest * (1.0 - a.p_local) - losses) * keep;
  // Losses before the first persistent checkpoint is usable go back to scratch (no retrieval).
  if (first_window > 0 && a.w > 0) {
    const double early = std::min(a.rec_storage, -std::expm1(-losses / a.w * first_window));
    a.rec_storage -= early;
    a.scratch += early;
    a.retrieval -= early * rho_storage;
    a.segment_time += early * rho_storage;
    a.training += early * rho_storage * a.training_per_segment_second;
    a.wasted -= early * rho_storage;
  }
  if (mrep >= 2) p.notes.push_back("memory-loss probability is first order in h lambda W_r (group/ring union bound)");
}

/// Where the approximations of 3a (software after hardware), 3b (standby correlation) and 3e
/// (rare tier events) stop being small, a note says so.
void regime_note(const StrategyCosts& c, const CycleInputs& in, const Episodes& e, const SegmentTerms& sg, double w,
                 AnalyticPrediction& p) {
  std::vector<std::string> why;
  if (e.load > 0.3) why.push_back(fmt::format("Lambda Lbar = {:.2f} (episodes overlap often)", e.load));
  if (c.tier == CheckpointTier::memory && (c.replicas > 1 || c.erasure_coded()) && p.memory_loss_per_episode > 0.01)
    why.push_back(fmt::format("memory loss in {:.0f}% of episodes", 100.0 * p.memory_loss_per_episode));
  if (in.checkpoints && (1.0 - sg.q1) / sg.q1 * sg.cycle_mean > 0.1 * w)
    why.push_back("the first checkpoint is expected late in the run (many scratch recoveries)");
  if (why.empty()) return;
  std::string text = "outside the regime where the tier and overlap terms are accurate (";
  for (std::size_t i = 0; i < why.size(); ++i) text += (i ? "; " : "") + why[i];
  p.notes.push_back(text + "): expect disagreements beyond the interval");
}

/// The metrics named like the run model's, from the accounts (times clamped where the
/// first-order terms leave their regime: times cannot be negative).
void set_metrics(const CycleInputs& in, const SegmentTerms& sg, const HorizonTerms& ht, RunAccounts a,
                 AnalyticPrediction& p) {
  const double w = a.w;
  a.retrieval = std::max(0.0, a.retrieval);
  a.segment_time = std::clamp(a.segment_time, 0.0, w);
  const double stall_total = std::clamp(a.segment_time * in.lam * sg.estall + ht.stall, 0.0, a.segment_time);
  a.training = std::clamp(a.training, 0.0, a.segment_time - stall_total);
  const double lost = a.segment_time - stall_total - a.training;
  p.ettr = w > 0 ? a.training / w : 0.0;
  auto& m = p.metrics;
  m["ettr"] = p.ettr;
  m["wall_time_s"] = w;
  m["failures.total"] = a.failures;
  m["failures.software"] = a.failures * (1.0 - in.h);
  m["failures.hardware"] = a.failures * in.h;
  m["recoveries.local"] = a.rec_local;
  m["recoveries.peer"] = a.rec_peer;
  m["recoveries.storage"] = a.rec_storage;
  m["recoveries.scratch"] = a.scratch;
  m["wasted_time_per_failure_s"] = a.failures > 0 ? a.wasted / a.failures : 0.0;
  m["time_breakdown_s.training"] = a.training;
  m["time_breakdown_s.checkpoint_stall"] = stall_total;
  m["time_breakdown_s.lost_progress"] = lost;
  m["time_breakdown_s.detection"] = a.detection;
  m["time_breakdown_s.replacement_wait"] = a.replacement;
  m["time_breakdown_s.retrieval"] = a.retrieval;
  m["time_breakdown_s.restart"] = a.restart;
}

/// `base` carries the failure rate (and its notes) found by cluster_failure_rate.
struct Prepared;
AnalyticPrediction predict_impl(const Scenario& s, const StrategyCosts& c, const Prepared& prep);

/// The failure classes, the placement terms and the base prediction, computed once per scenario.
struct Prepared {
  bool ok = false;
  AnalyticPrediction base;
  FailureMix mix;
  double sets = 1.0;
  std::vector<double> domain_loss;  ///< by mix.classes: share of domains whose failure loses memory
};

AnalyticPrediction predict_impl(const Scenario& s, const StrategyCosts& c, const Prepared& prep) {
  const double sets_per_machine = prep.sets;
  AnalyticPrediction p = prep.base;
  p.available = true;
  const CycleInputs in = cycle_inputs(c, prep.mix);
  set_intervals(in, p);
  if (in.lam <= 0) return predict_without_failures(s, c, in, p);

  const Episodes e = episodes_of(s, in, p);
  const PhasesPerFailure ph = phases_per_failure(in, e);
  const SegmentTerms sg = segment_terms(in, e);
  p.ettr_asymptotic = sg.rate;
  const HorizonTerms ht = horizon_terms(in, e, sg);
  p.wall_variance_per_training_s = ht.wall_variance_per_training;

  double w = 0;
  if (s.run.duration) {
    w = s.run.duration->seconds();
  } else {
    const double target = static_cast<double>(s.run.iterations.value_or(0)) * in.t;
    if (sg.rate <= 0) {
      p.available = false;
      p.reason = "no checkpoints and a run.iterations target: the run ends only when one segment survives it, and "
                 "the mean ETTR over replicas (a mean of ratios) has no closed form here";
      return p;
    }
    w = std::max(0.0, (target - ht.training) / sg.rate);
  }
  p.wall_time_s = w;
  // No checkpoint expected within the run: the time until a segment first survives a_1,
  // a_1 + (1 - q_1)/q_1 (E[X | X < a_1] + E[Y]), exceeds W. Every recovery then goes back to
  // scratch, which is the `none` model.
  if (in.checkpoints && w > 0) {
    const double short_segment = sg.q1 < 1.0 ? ht.ex - in.a1 * sg.q1 / (1.0 - sg.q1) : 0.0;
    if (sg.q1 <= 0.0 || in.a1 + (1.0 - sg.q1) / sg.q1 * (short_segment + e.mean_length) >= w) {
      StrategyCosts none = c;
      none.tier = CheckpointTier::none;
      AnalyticPrediction r0 = predict_impl(s, none, prep);
      r0.notes.push_back("no checkpoint is expected to complete within the run: every recovery restarts from "
                         "scratch (the closed form of `none`)");
      return r0;
    }
  }
  RunAccounts a = run_accounts(in, e, ph, sg, ht, w);
  if (c.tier == CheckpointTier::memory) {
    memory_fallbacks(c, in, e, sg, ht, sets_per_machine, prep.domain_loss, a, p);
  } else if (c.tier == CheckpointTier::storage) {
    a.rec_storage = a.rest;
  }
  regime_note(c, in, e, sg, w, p);
  set_metrics(in, sg, ht, a, p);

  // Eq. 1 with this strategy's numbers.
  if (in.checkpoints) {
    const double mean_retrieval =
        c.tier == CheckpointTier::memory ? a.p_local * in.rho_sw + (1.0 - a.p_local) * in.rho_hw : in.rho_sw;
    p.eq1_wasted_time_s = in.t_done + 0.5 * in.dk + mean_retrieval;
    if (in.dk < in.t_done) p.notes.push_back("Eq. 2 does not hold (checkpoint longer than its interval); Eq. 1 shown anyway");
  }
  return p;
}

}  // namespace

namespace {

Prepared prepare(const Scenario& scenario, const StrategyCosts& costs) {
  Prepared out;
  out.mix = failure_mix(scenario);
  apply_restart_tiers(out.mix, scenario, costs.iteration_time.seconds());
  out.ok = out.mix.available;
  if (!out.ok) {
    out.base.reason = out.mix.reason;
    return out;
  }
  out.base.failure_rate = out.mix.total_rate;
  out.base.notes = out.mix.notes;
  out.base.omitted_terms = out.mix.omitted;
  for (std::string& term : fault_model_terms_left_out(scenario.failures)) out.base.omitted_terms.push_back(std::move(term));
  if (costs.tier != CheckpointTier::memory) return out;
  if (!costs.erasure_coded()) out.sets = holder_sets_per_machine(scenario, costs);
  out.domain_loss.assign(out.mix.classes.size(), 0.0);
  const bool domains = std::any_of(out.mix.classes.begin(), out.mix.classes.end(),
                                   [](const FailureClass& fc) { return fc.domain && fc.hardware; });
  if (!domains) return out;
  const Placement placement =
      costs.erasure_coded()
          ? erasure_groups(costs.placement, scenario.cluster.machines, ErasureCode{costs.group_size, costs.parity})
          : make_placement(costs.placement, scenario.cluster.machines, costs.replicas, scenario.run.seed,
                           costs.replication_jump);
  const int parity = costs.erasure_coded() ? costs.parity : 0;
  for (std::size_t i = 0; i < out.mix.classes.size(); ++i) {
    const auto& fc = out.mix.classes[i];
    if (fc.domain && fc.hardware) out.domain_loss[i] = domains_losing_memory(placement, fc.machines, parity);
  }
  return out;
}

}  // namespace

namespace {

/// A closed form is reported only when it is a finite answer: every metric finite, ETTR in
/// [0, 1] (beyond 1e-9 of rounding), the wall time finite and >= 0. Otherwise (an expected wall
/// time that overflows, a NaN from inf - inf) it is "not available", with the reason, and the
/// Monte Carlo estimate stands alone (optimize then ranks by it). A single negative metric is
/// left to the report, which shows it as "n/a" (analyze_report.hpp).
AnalyticPrediction checked_prediction(AnalyticPrediction p) {
  if (!p.available) return p;
  const auto refuse = [&p](const std::string& what, double value) {
    p.available = false;
    p.reason = fmt::format("the closed form gives {} = {} for this scenario (outside its valid range)", what, value);
    return p;
  };
  for (const auto& [name, value] : p.metrics)
    if (!std::isfinite(value)) return refuse(name, value);
  if (!std::isfinite(p.ettr) || p.ettr < -1e-9 || p.ettr > 1.0 + 1e-9) return refuse("ETTR", p.ettr);
  if (!std::isfinite(p.wall_time_s) || p.wall_time_s < 0) return refuse("the wall time", p.wall_time_s);
  return p;
}

/// The renewal model of sections 3a-3e (tiers none, memory, storage).
AnalyticPrediction renewal_predict(const Scenario& scenario, const StrategyCosts& costs) {
  const Prepared prep = prepare(scenario, costs);
  if (!prep.ok) return prep.base;
  AnalyticPrediction first = predict_impl(scenario, costs, prep);
  if (scenario.run.duration || !scenario.run.iterations || !first.available || first.failure_rate <= 0) return first;
  // run.iterations: find the wall time W whose expected training (every term of 3d and 3e) is
  // n T, by Newton steps on the long-run rate; then the mean over replicas of n T / W_i, a mean
  // of ratios, is n T / W (1 + Var(W) / W^2) to second order (Var(W) from the renewal CLT).
  const double target = static_cast<double>(*scenario.run.iterations) * costs.iteration_time.seconds();
  Scenario fixed = scenario;
  fixed.run.iterations.reset();
  double w = first.wall_time_s;
  AnalyticPrediction p = first;
  for (int step = 0; step < 8 && p.ettr_asymptotic > 0; ++step) {
    if (!duration_in_range(w)) {  // failures keep the target out of reach within the clock
      p.available = false;
      p.reason = fmt::format("the expected wall time to reach run.iterations, {:.4g} s, is beyond the simulated clock's "
                             "range (100 years)", w);
      return p;
    }
    fixed.run.duration = SimTime::from_seconds(w);
    Prepared again = prep;
    if (scenario.failures.process == FailureProcessKind::weibull) again = prepare(fixed, costs);  // the count depends on W
    p = predict_impl(fixed, costs, again);
    const double gap = target - p.metrics.at("time_breakdown_s.training");
    if (std::abs(gap) < 1e-6) break;
    w = std::max(0.0, w + gap / p.ettr_asymptotic);
  }
  auto& m = p.metrics;
  m["time_breakdown_s.lost_progress"] += m["time_breakdown_s.training"] - target;
  m["time_breakdown_s.training"] = target;
  // The run stops at the end of an iteration, never inside a stall: a cut at a random time of
  // the final segment falls inside one with the segment's stall share and misses half of it.
  const double segment_time = m["time_breakdown_s.training"] + m["time_breakdown_s.checkpoint_stall"] +
                              m["time_breakdown_s.lost_progress"];
  if (segment_time > 0) {
    const double stall_end = m["time_breakdown_s.checkpoint_stall"] / segment_time * 0.5 * costs.stall.seconds();
    m["time_breakdown_s.checkpoint_stall"] += stall_end;
    m["time_breakdown_s.lost_progress"] -= stall_end;
  }
  const double var_w = target * p.wall_variance_per_training_s;
  p.ettr = w > 0 ? target / w * (1.0 + var_w / (w * w)) : 0.0;
  m["ettr"] = p.ettr;
  p.notes.push_back("run.iterations: wall time W solves E[training(W)] = n T; mean ETTR = n T / W (1 + Var(W)/W^2)");
  return p;
}

/// The renewal model's best k: its asymptotic ETTR for every k in [1, max_k].
EveryIterationsChoice renewal_best_every(const Scenario& scenario, const StrategyCosts& costs, std::int64_t max_k) {
  const Prepared prep = prepare(scenario, costs);
  if (!prep.ok) return EveryIterationsChoice{costs.every_iterations, 0.0};
  EveryIterationsChoice best;
  best.ettr = -1;
  for (std::int64_t k = 1; k <= std::max<std::int64_t>(1, max_k); ++k) {
    StrategyCosts c = costs;
    c.every_iterations = k;
    if (c.persistent_every_iterations > 0)
      c.persistent_every_iterations = std::max<std::int64_t>(k, (costs.persistent_every_iterations + k - 1) / k * k);
    // moe-partial's replay (run/strategies/moe_partial.cpp) is linear in k, both its compute
    // (mean staleness k (R - 1) / 2) and its log read (k (R - 1) iterations): rescale it.
    if (costs.moe.replay_time > SimTime::zero() && k != costs.every_iterations) {
      const SimTime replay = SimTime::from_seconds(costs.moe.replay_time.seconds() * static_cast<double>(k) /
                                                   static_cast<double>(costs.every_iterations));
      for (SimTime* r : {&c.retrieval_local, &c.retrieval_peer, &c.retrieval_storage}) *r = *r - costs.moe.replay_time + replay;
    }
    const AnalyticPrediction p = predict_impl(scenario, c, prep);
    if (p.ettr_asymptotic > best.ettr) best = EveryIterationsChoice{k, p.ettr_asymptotic};
  }
  return best;
}

/// Multi-level: its own best periods (multi_level_model.hpp).
EveryIterationsChoice multi_level_best_every(const Scenario& scenario, const StrategyCosts& costs, std::int64_t) {
  const MultiLevelPrediction m = predict_multi_level(scenario, costs);
  return EveryIterationsChoice{m.available ? m.best_every[0] : costs.every_iterations, m.best_ettr};
}

/// Shadow-cluster replication (run/strategies/shadow.cpp): the renewal model with a checkpoint
/// every iteration (stall S, completion T_sh) and every recovery a retrieval from the shadow, i.e.
/// the storage-tier renewal model with the shadow retrieval in place of storage's. Left out (so
/// `optimize` ranks by the Monte Carlo): the shadow cluster's own failures, after which a training
/// failure within a shadow machine's outage W falls back to the persistent checkpoint (a share
/// about 1 - exp(-M W / MTBF_sh) of the training failures), and the re-sync after such a fallback.
AnalyticPrediction shadow_analytic(const Scenario& scenario, const StrategyCosts& costs) {
  StrategyCosts as_storage = costs;
  as_storage.tier = CheckpointTier::storage;
  as_storage.retrieval_storage = costs.retrieval_peer;
  as_storage.persistent_every_iterations = 0;
  AnalyticPrediction p = renewal_predict(scenario, as_storage);
  if (!p.available) return p;
  // The storage-tier model counted them as storage recoveries: they are the shadow's (peer).
  if (p.metrics.count("recoveries.storage") > 0) {
    p.metrics["recoveries.peer"] = p.metrics["recoveries.storage"];
    p.metrics["recoveries.storage"] = 0.0;
  }
  p.notes.push_back("shadow: every recovery is taken to retrieve the previous step's state from the shadow cluster");
  if (costs.shadow_failure_rate > 0)
    p.omitted_terms.emplace_back(kShadowFailuresOmitted);
  return p;
}

/// A model with no period to choose: per-step fault tolerance takes no checkpoints, and
/// just-in-time's fallback period matters only through the fallbacks its closed form leaves out
/// (just_in_time_model.hpp). The scenario's period stands.
template <AnalyticPrediction (*Predict)(const Scenario&, const StrategyCosts&)>
EveryIterationsChoice period_of_scenario(const Scenario& scenario, const StrategyCosts& costs, std::int64_t) {
  const AnalyticPrediction p = Predict(scenario, costs);
  return EveryIterationsChoice{costs.every_iterations, p.available ? p.ettr_asymptotic : 0.0};
}

/// The closed form of each checkpoint tier, one row per CheckpointTier in enum order: the only
/// place that chooses a model. Tiers with a model of their own name it; none, memory and storage
/// share the renewal model (the tier then sets its retrievals and fallbacks, sections 3a-3e).
struct ClosedFormFamily {
  CheckpointTier tier;
  AnalyticPrediction (*predict)(const Scenario&, const StrategyCosts&);
  EveryIterationsChoice (*best_every)(const Scenario&, const StrategyCosts&, std::int64_t max_k);
};

constexpr std::array<ClosedFormFamily, 8> kClosedFormFamilies{{
    {CheckpointTier::none, &renewal_predict, &renewal_best_every},
    {CheckpointTier::memory, &renewal_predict, &renewal_best_every},
    {CheckpointTier::storage, &renewal_predict, &renewal_best_every},
    {CheckpointTier::multi_level, &multi_level_analytic, &multi_level_best_every},
    {CheckpointTier::per_step, &per_step_analytic, &period_of_scenario<&per_step_analytic>},
    {CheckpointTier::just_in_time, &just_in_time_analytic, &period_of_scenario<&just_in_time_analytic>},
    {CheckpointTier::islands, &islands_analytic, &period_of_scenario<&islands_analytic>},
    {CheckpointTier::shadow, &shadow_analytic, &period_of_scenario<&shadow_analytic>},
}};

constexpr bool families_in_enum_order() {
  for (std::size_t i = 0; i < kClosedFormFamilies.size(); ++i)
    if (static_cast<std::size_t>(kClosedFormFamilies[i].tier) != i) return false;
  return true;
}
static_assert(families_in_enum_order(), "one closed-form family per CheckpointTier, in enum order");
static_assert(kClosedFormFamilies.size() == static_cast<std::size_t>(CheckpointTier::shadow) + 1,
              "a CheckpointTier without a closed-form family");

const ClosedFormFamily& family_of(CheckpointTier tier) { return kClosedFormFamilies.at(static_cast<std::size_t>(tier)); }

}  // namespace

AnalyticPrediction predict_run(const Scenario& scenario, const StrategyCosts& costs) {
  return checked_prediction(family_of(costs.tier).predict(scenario, costs));
}

EveryIterationsChoice best_every_iterations(const Scenario& scenario, const StrategyCosts& costs, std::int64_t max_k) {
  return family_of(costs.tier).best_every(scenario, costs, max_k);
}

}  // namespace ckptsim
