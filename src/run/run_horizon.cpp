// The worst-case horizon of a run (run_horizon.hpp).
#include "ckptsim/run/run_horizon.hpp"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/recovery/recovery_policy.hpp"
#include "ckptsim/run/segment_clock.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

/// The longest of failures.<key> and every cause's own <key> (detection or restart).
HorizonTerm longest_cause_time(const FailureSpec& f, bool detection) {
  const char* key = detection ? "detection" : "restart";
  HorizonTerm term{fmt::format("/failures/{}", key), key, detection ? f.detection : f.restart};
  const auto& causes = f.causes.causes;
  for (std::size_t i = 0; i < causes.size(); ++i) {
    const std::optional<SimTime>& own = detection ? causes[i].detection : causes[i].restart;
    if (!own || *own <= term.time) continue;
    term.time = *own;
    term.field = f.causes.preset.empty() ? fmt::format("/failures/causes/{}/{}", i, key)
                                         : fmt::format("/failures/causes (preset \"{}\", cause \"{}\")", f.causes.preset,
                                                       causes[i].name);
  }
  return term;
}

HorizonTerm longest_replacement(const ReplacementSpec& r) {
  switch (r.distribution) {
    case ReplacementDistribution::fixed: return {"/failures/replacement", "replacement", r.fixed};
    case ReplacementDistribution::uniform: return {"/failures/replacement/high", "replacement", std::max(r.low, r.high)};
    case ReplacementDistribution::lognormal: break;  // unbounded samples saturate: "never"
  }
  return {"/failures/replacement", "replacement", SimTime::zero()};
}

/// k x T in 128 bits (a period that overflows int64 is reported, not wrapped).
WideNs period_ns(const StrategyCosts& c, std::int64_t every) {
  return static_cast<WideNs>(c.iteration_time.ns()) * std::max<std::int64_t>(1, every);
}

/// The adaptive policy moves the period (strategy.adaptive_interval, under a tier that adapts).
bool adaptive_period(const StrategyCosts& c) { return c.adaptive_interval && recovery_policy(c.tier).adapts_period; }

/// The period's field: the strategy's, or the adaptive policy's when it moves the period.
std::string period_term_field(const StrategyCosts& c, const std::string& strategy_field) {
  if (adaptive_period(c)) return "/strategy/adaptive_interval";
  return strategy_field;
}

std::string format_term_time(WideNs ns) {
  const double s = static_cast<double>(ns) * 1e-9;
  if (s >= 2 * 86400.0) return fmt::format("{:.6g} d", s / 86400.0);
  return format_duration(SimTime::from_ns(static_cast<std::int64_t>(ns)));
}

}  // namespace

SimTime run_end_bound(const Scenario& s, SimTime failure_free) {
  if (s.run.duration) return *s.run.duration;
  std::int64_t cap = 0;
  if (__builtin_mul_overflow(failure_free.ns(), kUnfinishedRunFactor, &cap)) return kMaxDuration;
  return std::min(SimTime::from_ns(cap), kMaxDuration);
}

HorizonTerm storage_retrieval(const StrategyCosts& c) {
  return {"/storage/bandwidth", "retrieval from storage", c.retrieval_storage};
}

HorizonTerm slowest_memory_retrieval(const StrategyCosts& c) {
  HorizonTerm term = storage_retrieval(c);
  if (c.retrieval_peer > term.time) term = {"/cluster/network_bandwidth", "retrieval from peers", c.retrieval_peer};
  if (c.retrieval_local > term.time)
    term = {"/training/serialization_bandwidth", "retrieval from local memory", c.retrieval_local};
  return term;
}

void checkpoint_horizon_terms(const Scenario& s, const StrategyCosts& c, SimTime stall, std::vector<HorizonTerm>& terms) {
  terms.push_back({s.strategy.checkpoint_stall ? "/strategy/checkpoint_stall" : "the checkpoint stall", "a checkpoint's stall",
                   stall});
  terms.push_back({s.strategy.checkpoint_duration ? "/strategy/checkpoint_duration" : "the checkpoint completion",
                   "a checkpoint's completion", c.completion});
}

SimTime failure_free_length(const Scenario& s, const StrategyCosts& c) {
  if (!s.run.iterations) return SimTime::zero();
  const RecoveryPolicyRow& policy = recovery_policy(c.tier);
  return policy.failure_free(policy.pattern(c), *s.run.iterations);
}

std::vector<HorizonTerm> run_horizon_terms(const Scenario& s, const StrategyCosts& c, const std::string& period_field) {
  const SimTime end = run_end_bound(s, failure_free_length(s, c));
  std::vector<HorizonTerm> terms;
  terms.push_back(s.run.duration ? HorizonTerm{"/run/duration", "the run's length", end}
                                 : HorizonTerm{"/run/iterations", "the run's end (100 x its failure-free length, at most 100 years)",
                                               end});
  terms.push_back(longest_cause_time(s.failures, true));
  terms.push_back(longest_replacement(s.failures.replacement));
  terms.push_back(recovery_policy(c.tier).slowest_retrieval(c));
  terms.push_back(longest_cause_time(s.failures, false));
  // One checkpoint period: the adaptive one is capped at the run's end (the recovery policies).
  const WideNs period = adaptive_period(c) ? std::max<WideNs>(end.ns(), c.iteration_time.ns()) : period_ns(c, c.every_iterations);
  const bool fits = period <= std::numeric_limits<std::int64_t>::max();
  terms.push_back({period_term_field(c, period_field), "one checkpoint period",
                   fits ? SimTime::from_ns(static_cast<std::int64_t>(period)) : SimTime::max()});
  recovery_policy(c.tier).extra_horizon_terms(s, c, terms);
  std::erase_if(terms, [](const HorizonTerm& t) { return t.time <= SimTime::zero(); });
  std::stable_sort(terms.begin(), terms.end(), [](const HorizonTerm& a, const HorizonTerm& b) { return a.time > b.time; });
  return terms;
}

void check_run_horizon(const Scenario& s, const StrategyCosts& c, const std::string& period_field) {
  const std::vector<HorizonTerm> terms = run_horizon_terms(s, c, period_field);
  WideNs sum = 0;
  for (const HorizonTerm& t : terms) sum += t.time.ns();
  if (sum <= std::numeric_limits<std::int64_t>::max()) return;
  // The terms that matter (each at least 0.1% of H), then how much the others add.
  std::string listed;
  WideNs rest = 0;
  int others = 0;
  for (const HorizonTerm& t : terms) {
    if (static_cast<WideNs>(t.time.ns()) * 1000 < sum) {
      rest += t.time.ns();
      ++others;
      continue;
    }
    listed += fmt::format("{}{} {} ({})", listed.empty() ? "" : " + ", t.field, format_term_time(t.time.ns()), t.what);
  }
  if (others > 0) listed += fmt::format(" + {} smaller term(s) of {} in all", others, format_term_time(rest));
  const double years = static_cast<double>(sum) * 1e-9 / (365.25 * 86400.0);
  throw ModelError(terms.front().field,
                   fmt::format("the run's worst-case horizon, {} = {} ({:.1f} years), leaves the simulated clock's "
                               "range (2^63 ns, 292.3 years): an episode or a checkpoint can start at the run's last "
                               "instant; shorten the largest of these (see docs/limits.md, \"Clock range\")",
                               listed, format_term_time(sum), years));
}

}  // namespace ckptsim
