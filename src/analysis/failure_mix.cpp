// The failure classes of analysis/failure_mix.hpp; the model is in the header.
#include "ckptsim/analysis/failure_mix.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/failure/fault_model.hpp"
#include "ckptsim/failure/elastic.hpp"
#include "ckptsim/failure/migration.hpp"
#include "ckptsim/failure/restart_tiers.hpp"
#include "ckptsim/scenario/kinds.hpp"

namespace ckptsim {

double weibull_renewal_count(double shape, double scale_s, double horizon_s) {
  if (!(horizon_s > 0)) return 0.0;
  constexpr int kSteps = 2000;
  const double dt = horizon_s / kSteps;
  std::vector<double> cdf(kSteps + 1, 0.0);
  for (std::size_t i = 0; i <= kSteps; ++i)
    cdf[i] = -std::expm1(-std::pow(static_cast<double>(i) * dt / scale_s, shape));
  std::vector<double> m(kSteps + 1, 0.0);
  const double df1 = cdf[1] - cdf[0];
  for (std::size_t i = 1; i <= kSteps; ++i) {
    double acc = cdf[i] + 0.5 * m[i - 1] * df1;
    for (std::size_t j = 2; j <= i; ++j) acc += 0.5 * (m[i - j] + m[i - j + 1]) * (cdf[j] - cdf[j - 1]);
    m[i] = acc / (1.0 - 0.5 * df1);
  }
  return m[kSteps];
}

double domains_losing_memory(const Placement& p, int domain_size, int erasure_parity) {
  if (domain_size < 1 || p.machines < 1) return 0.0;
  const int domains = (p.machines + domain_size - 1) / domain_size;
  int losing = 0;
  for (int d = 0; d < domains; ++d) {
    const int lo = d * domain_size;
    const int hi = std::min(p.machines, lo + domain_size);
    for (int i = lo; i < hi; ++i) {
      const auto& h = p.holders[static_cast<std::size_t>(i)];
      const auto inside = std::count_if(h.begin(), h.end(), [&](int j) { return j >= lo && j < hi; });
      const auto tolerated = erasure_parity > 0 ? static_cast<std::ptrdiff_t>(erasure_parity)
                                                : static_cast<std::ptrdiff_t>(h.size()) - 1;
      if (inside > tolerated) {
        ++losing;
        break;
      }
    }
  }
  return static_cast<double>(losing) / domains;
}

double standby_blocking(int servers, double load, int batch) {
  if (batch > servers) return 1.0;
  if (batch < 1) return 0.0;
  // pi_n proportional to load^n / n!, n = 0..servers, accumulated relative to pi_servers
  // (terms pi_{n-1}/pi_n = n / load) so that large loads do not overflow.
  if (!(load > 0)) return 0.0;
  double total = 0;
  double blocked = 0;
  double term = 1.0;
  for (int n = servers; n >= 0; --n) {
    total += term;
    if (n > servers - batch) blocked += term;
    term *= static_cast<double>(n) / load;
  }
  return blocked / total;
}

double FailureMix::replaced_within(double window_s) const {
  const double a = base_hardware_rate_per_machine * window_s;
  const double b = domain_hardware_rate_per_machine * window_s;
  switch (lemons.model) {
    case LemonModel::fraction:
      return lemon_share * -std::expm1(-(lemons.multiple * a + b)) + (1.0 - lemon_share) * -std::expm1(-(a + b));
    case LemonModel::gamma:
      return 1.0 - std::exp(-b) * std::pow(1.0 + a / lemons.gamma_shape, -lemons.gamma_shape);
    case LemonModel::none: break;
  }
  return -std::expm1(-(a + b));
}

FailureMix failure_mix(const Scenario& s) {
  FailureMix mix;
  const auto& f = s.failures;
  const int n = s.cluster.machines;
  const double nd = n;
  mix.lemons = f.lemons;
  const double lemons = f.lemons.model == LemonModel::fraction ? static_cast<double>(std::llround(f.lemons.fraction * nd)) : 0.0;
  mix.lemon_share = nd > 0 ? lemons / nd : 0.0;
  // Sum of the multipliers over the machines (its expectation for the gamma model).
  const double multiplier_sum = nd + lemons * (f.lemons.multiple - 1.0);
  double per_machine = 0;  // base rate of one machine with multiplier 1
  switch (f.process) {
    case FailureProcessKind::exponential:
      per_machine = f.rate;
      mix.machine_rate = f.rate * multiplier_sum;
      break;
    case FailureProcessKind::none: break;
    case FailureProcessKind::weibull: {
      const double horizon = s.run.duration ? s.run.duration->seconds() : 0.0;
      const double scale = f.weibull_scale.seconds();
      if (horizon > 0) {
        per_machine = weibull_renewal_count(f.weibull_shape, scale, horizon) / horizon;
        const double lemon_rate =
            lemons > 0 ? weibull_renewal_count(f.weibull_shape, scale / f.lemons.multiple, horizon) / horizon : 0.0;
        mix.machine_rate = (nd - lemons) * per_machine + lemons * lemon_rate;
        mix.notes.push_back("weibull failures: Poisson with the same expected count over the run, N M(W)/W (approximate: "
                            "the real rate decreases over the run for shape < 1)");
      } else {
        per_machine = 1.0 / (scale * std::tgamma(1.0 + 1.0 / f.weibull_shape));
        mix.machine_rate = per_machine * multiplier_sum;
        mix.notes.push_back("weibull failures treated as Poisson with the stationary rate N / MTBF (approximate)");
      }
      if (f.lemons.model == LemonModel::gamma)
        mix.omitted.push_back("gamma lemon rates under weibull failures (the mean multiplier 1 is used)");
      break;
    }
    case FailureProcessKind::trace:
      mix.reason = "no closed form for failure process \"" + std::string(name_of(f.process)) +
                   "\" (closed forms assume Poisson failures)";
      return mix;
  }
  mix.available = true;
  if (f.lemons.model == LemonModel::gamma && f.process == FailureProcessKind::exponential)
    mix.notes.push_back(fmt::format("gamma lemons: the expected cluster rate N lambda is exact; the spread of the rate "
                                    "over replicas (relative sd {:.3f}) is a second-order term",
                                    1.0 / std::sqrt(f.lemons.gamma_shape * nd)));
  if (f.lemons.model != LemonModel::none && f.lemons.quarantine_failures > 0)
    mix.omitted.push_back(fmt::format("lemon quarantine ({} failures within {} s: hardware, replaced by a base-rate "
                                      "machine)",
                                      f.lemons.quarantine_failures, f.lemons.quarantine_window.seconds()));

  // Machine failure classes.
  double hardware_share = f.hardware_fraction;
  if (f.causes.causes.empty()) {
    mix.classes.push_back({"software", mix.machine_rate * (1.0 - f.hardware_fraction), false, f.detection.seconds(),
                           f.restart.seconds(), 1, false, std::nullopt});
    mix.classes.push_back({"hardware", mix.machine_rate * f.hardware_fraction, true, f.detection.seconds(),
                           f.restart.seconds(), 1, false, std::nullopt});
  } else {
    double all = 0;
    double hw = 0;
    for (const auto& c : f.causes.causes) {
      all += c.share;
      if (c.hardware) hw += c.share;
    }
    hardware_share = all > 0 ? hw / all : 0.0;
    for (const auto& c : f.causes.causes)
      mix.classes.push_back({c.name, all > 0 ? mix.machine_rate * c.share / all : 0.0, c.hardware,
                             c.detection.value_or(f.detection).seconds(), c.restart.value_or(f.restart).seconds(), 1,
                             false, std::nullopt});
  }
  mix.machine_hardware_rate = mix.machine_rate * hardware_share;
  mix.base_hardware_rate_per_machine = per_machine * hardware_share;

  // Domain classes, in the failure layer's kind order (rack, leaf, power).
  static constexpr const char* kKindNames[kDomainKinds] = {"rack", "leaf", "power"};
  for (int k = 0; k < kDomainKinds; ++k) {
    const DomainSpec& d = f.domains[static_cast<std::size_t>(k)];
    if (d.machines <= 0 || d.rate <= 0) continue;
    const double rate = std::ceil(nd / d.machines) * d.rate;
    const int size = std::min(d.machines, n);
    mix.classes.push_back({std::string(kKindNames[k]) + " (software)", rate * (1.0 - d.hardware_fraction), false,
                           f.detection.seconds(), f.restart.seconds(), size, true, std::nullopt});
    mix.classes.push_back({std::string(kKindNames[k]) + " (hardware)", rate * d.hardware_fraction, true,
                           f.detection.seconds(), f.restart.seconds(), size, true, std::nullopt});
    mix.domain_hardware_rate_per_machine += d.rate * d.hardware_fraction;
  }
  std::erase_if(mix.classes, [](const FailureClass& c) { return !(c.rate > 0); });

  double hw_rate = 0;
  for (const auto& c : mix.classes) {
    mix.total_rate += c.rate;
    if (c.hardware) hw_rate += c.rate;
    mix.mean_detection_s += c.rate * c.detection_s;
    mix.mean_restart_s += c.rate * c.restart_s;
  }
  if (mix.total_rate > 0) {
    mix.hardware_share = hw_rate / mix.total_rate;
    mix.mean_detection_s /= mix.total_rate;
    mix.mean_restart_s /= mix.total_rate;
  } else {
    mix.hardware_share = hardware_share;
    mix.mean_detection_s = f.detection.seconds();
    mix.mean_restart_s = f.restart.seconds();
  }
  const bool mixed_times = std::any_of(mix.classes.begin(), mix.classes.end(), [&](const FailureClass& c) {
    return c.detection_s != mix.classes.front().detection_s || c.restart_s != mix.classes.front().restart_s;
  });
  if (mixed_times)
    mix.notes.push_back("cause table with per-cause detection / restart: episode lengths use each cause's times; the "
                        "time breakdown's restart and the software-episode terms use their rate-weighted means");
  return mix;
}

void apply_restart_tiers(FailureMix& mix, const Scenario& scenario, double iteration_s) {
  const RestartTierSpec& spec = scenario.failures.restart_tiers;
  if (!spec.enabled || !mix.available) return;
  const SimTime t = SimTime::from_seconds(iteration_s);
  const auto latency = [&](RestartTier tier, double cause_restart_s) {
    return restart_latency(spec, tier, SimTime::from_seconds(cause_restart_s), t).seconds();
  };
  double weighted = 0;
  for (auto& c : mix.classes) {
    const double r = c.restart_s;
    const FaultClass k = fault_class(c.hardware, false);
    c.restart_s = latency(restart_tier(spec, k, true, SimTime::zero(), SimTime::zero()), r);
    if (c.hardware) c.restart_without_standby_s = latency(RestartTier::new_job, r);
    weighted += c.rate * c.restart_s;
  }
  if (mix.total_rate > 0) mix.mean_restart_s = weighted / mix.total_rate;
  mix.notes.push_back("restart tiers: each class restarts at its tier's latency (failure/restart_tiers.hpp); a hardware "
                      "failure without a free standby restarts in a new job");
}

double replacement_excess_s(const ReplacementSpec& r, double x) {
  switch (r.distribution) {
    case ReplacementDistribution::fixed: return std::max(0.0, r.fixed.seconds() - x);
    case ReplacementDistribution::uniform: {
      const double a = r.low.seconds();
      const double b = r.high.seconds();
      if (a >= b) return std::max(0.0, a - x);
      const double lo = std::clamp(x, a, b);
      // int_lo^b (w - x) dw / (b - a), plus (a - x) over the whole range when x < a.
      return ((b - lo) * (0.5 * (b + lo) - x)) / (b - a);
    }
    case ReplacementDistribution::lognormal: {
      const double mu = std::log(r.median.seconds());
      const double sigma = r.sigma;
      const double mean = std::exp(mu + 0.5 * sigma * sigma);
      if (x <= 0) return mean - x;
      if (sigma <= 0) return std::max(0.0, r.median.seconds() - x);
      const auto phi = [](double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); };
      const double d1 = (mu + sigma * sigma - std::log(x)) / sigma;
      return mean * phi(d1) - x * phi(d1 - sigma);
    }
  }
  return 0.0;
}

double mean_replacement_s(const ReplacementSpec& r) { return replacement_excess_s(r, 0.0); }

std::vector<std::string> fault_model_terms_left_out(const FailureSpec& f) {
  std::vector<std::string> terms;
  if (f.hangs.fraction > 0) terms.emplace_back("hangs (their timeout detection)");
  if (stragglers_modelled(f)) terms.emplace_back("fail-slow stragglers");
  if (f.misdiagnosis.fraction > 0) terms.emplace_back("misdiagnosis");
  if (silent_corruption_modelled(f)) terms.emplace_back("silent data corruption");
  if (migration_modelled(f)) terms.emplace_back("live migration (predicted failures averted by a standby)");
  if (elastic_modelled(f)) terms.emplace_back("elastic restart (training at a smaller size while replacements arrive)");
  return terms;
}

}  // namespace ckptsim
