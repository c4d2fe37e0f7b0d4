// The failure processes of failure_process.hpp: exponential, weibull, trace, none, with cause
// tables, lemon nodes and failure domains merged in.
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <boost/random/weibull_distribution.hpp>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/event_queue.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/failure/fault_model.hpp"
#include "machine_rates.hpp"

namespace ckptsim {
namespace {

/// `now` plus a gap in seconds, at least 1 ns later (time strictly increases), saturating at
/// SimTime::max() (a gap beyond the int64-ns clock means "never").
SimTime after(SimTime now, double gap_seconds) {
  // A gap beyond the clock (or NaN) is "never"; a representable one is added saturating.
  if (!(gap_seconds < 9.2e9)) return SimTime::max();
  return saturating_add(now, std::max(SimTime::from_ns(1), SimTime::from_seconds(std::max(0.0, gap_seconds))));
}

/// Draws a machine failure's cause (and so its outcome) from its own stream: from the cause
/// table's normalized shares, or hardware with probability hardware_fraction (causes 1 / 0).
class CauseDrawer {
 public:
  CauseDrawer(const FailureSpec& spec, std::uint64_t seed, std::uint64_t replica)
      : fraction_(spec.hardware_fraction), engine_(make_stream(seed, replica, RandomComponent::failure_types)) {
    double sum = 0;
    for (const auto& c : spec.causes.causes) {
      sum += c.share;
      cumulative_.push_back(sum);
      hardware_.push_back(c.hardware);
    }
  }
  /// (cause index, type)
  std::pair<int, FailureType> draw() {
    boost::random::uniform_real_distribution<double> u(0.0, 1.0);
    const double x = u(engine_);
    if (cumulative_.empty())
      return x < fraction_ ? std::pair{1, FailureType::hardware} : std::pair{0, FailureType::software};
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), x * cumulative_.back());
    const auto i = static_cast<int>(std::min<std::ptrdiff_t>(it - cumulative_.begin(),
                                                             static_cast<std::ptrdiff_t>(cumulative_.size()) - 1));
    return {i, hardware_[static_cast<std::size_t>(i)] ? FailureType::hardware : FailureType::software};
  }

 private:
  double fraction_;
  RandomEngine engine_;
  std::vector<double> cumulative_;
  std::vector<bool> hardware_;
};

FailureEvent machine_event(SimTime t, int machine, std::pair<int, FailureType> cause, bool quarantined) {
  return FailureEvent{t, machine, 1, quarantined ? FailureType::hardware : cause.second, cause.first};
}

class NoFailures final : public FailureSource {
 public:
  std::optional<FailureEvent> next() override { return std::nullopt; }
};

class ExponentialFailures final : public FailureSource {
 public:
  explicit ExponentialFailures(const FailureSourceContext& ctx)
      : machines_(ctx.machines),
        base_rate_(ctx.spec.rate),
        cluster_rate_(ctx.spec.rate * ctx.machines),
        engine_(make_stream(ctx.seed, ctx.replica, RandomComponent::failures)),
        causes_(ctx.spec, ctx.seed, ctx.replica),
        quarantine_(ctx.spec.lemons, ctx.machines) {
    if (ctx.spec.lemons.model != LemonModel::none) {
      auto x = draw_rate_multipliers(ctx.spec.lemons, ctx.machines, ctx.seed, ctx.replica);
      weights_.emplace(x);
    }
  }

  std::optional<FailureEvent> next() override {
    const double rate = weights_ ? weights_->total() * base_rate_ : cluster_rate_;
    if (!(rate > 0) || now_ == SimTime::max()) return std::nullopt;
    boost::random::exponential_distribution<double> gap(rate);
    now_ = after(now_, gap(engine_));
    if (now_ == SimTime::max()) return std::nullopt;
    int m = 0;
    if (weights_) {
      boost::random::uniform_real_distribution<double> u(0.0, weights_->total());
      m = weights_->pick(u(engine_));
    } else {
      boost::random::uniform_int_distribution<int> machine(0, machines_ - 1);
      m = machine(engine_);
    }
    const bool quarantined = quarantine_.record(m, now_);
    // Memorylessness: the replacement's rate applies from now on.
    if (quarantined && weights_) weights_->set(m, 1.0);
    return machine_event(now_, m, causes_.draw(), quarantined);
  }

 private:
  int machines_;
  double base_rate_;
  double cluster_rate_;
  RandomEngine engine_;
  CauseDrawer causes_;
  Quarantine quarantine_;
  std::optional<WeightTree> weights_;
  SimTime now_;
};

class WeibullFailures final : public FailureSource {
 public:
  explicit WeibullFailures(const FailureSourceContext& ctx)
      : shape_(ctx.spec.weibull_shape),
        scale_s_(ctx.spec.weibull_scale.seconds()),
        causes_(ctx.spec, ctx.seed, ctx.replica),
        quarantine_(ctx.spec.lemons, ctx.machines) {
    if (ctx.spec.lemons.model != LemonModel::none) {
      // Scale / x: the machine's lifetimes shrink by x, so its long-run renewal rate is x times
      // the base (1 / (scale Gamma(1 + 1/k)) per machine).
      for (double x : draw_rate_multipliers(ctx.spec.lemons, ctx.machines, ctx.seed, ctx.replica))
        scale_factor_.push_back(x > 0 ? 1.0 / x : 0.0);
    }
    engines_.reserve(static_cast<std::size_t>(ctx.machines));
    queue_.reserve(static_cast<std::size_t>(ctx.machines));
    for (int m = 0; m < ctx.machines; ++m) {
      engines_.push_back(make_stream(ctx.seed, ctx.replica, RandomComponent::failures, static_cast<std::uint64_t>(m)));
      const SimTime first = draw_next(SimTime::zero(), m);
      if (first != SimTime::max()) queue_.schedule(first, m);
    }
  }

  std::optional<FailureEvent> next() override {
    if (queue_.empty()) return std::nullopt;
    auto event = queue_.pop();
    const int m = event.payload;
    const bool quarantined = quarantine_.record(m, event.time);
    if (quarantined && !scale_factor_.empty()) scale_factor_[static_cast<std::size_t>(m)] = 1.0;
    // Renewal: the machine (or its replacement) starts a fresh lifetime at its failure.
    const SimTime again = draw_next(event.time, m);
    if (again != SimTime::max()) queue_.schedule(again, m);
    return machine_event(event.time, m, causes_.draw(), quarantined);
  }

 private:
  SimTime draw_next(SimTime now, int machine) {
    const double factor = scale_factor_.empty() ? 1.0 : scale_factor_[static_cast<std::size_t>(machine)];
    if (!(factor > 0)) return SimTime::max();  // a machine with rate multiplier 0 never fails
    boost::random::weibull_distribution<double> life(shape_, scale_s_ * factor);
    return after(now, life(engines_[static_cast<std::size_t>(machine)]));
  }

  double shape_;
  double scale_s_;
  std::vector<double> scale_factor_;
  std::vector<RandomEngine> engines_;
  EventQueue<int> queue_;
  CauseDrawer causes_;
  Quarantine quarantine_;
};

class TraceFailures final : public FailureSource {
 public:
  explicit TraceFailures(const FailureSourceContext& ctx) : records_(ctx.trace), table_(&ctx.spec.causes.causes) {
    if (records_ == nullptr) throw std::logic_error("trace failure process built without a loaded trace");
  }
  std::optional<FailureEvent> next() override {
    if (index_ >= records_->size()) return std::nullopt;
    const auto& r = (*records_)[index_++];
    return FailureEvent{r.time, r.machine, 1, r.type, trace_cause_index(r, *table_)};
  }

 private:
  const std::vector<TraceRecord>* records_;
  const std::vector<FailureCauseSpec>* table_;
  std::size_t index_ = 0;
};

/// All machines of one domain kind fail together (failure_process.hpp).
class DomainFailures final : public FailureSource {
 public:
  DomainFailures(const FailureSourceContext& ctx, DomainKind kind, int cause)
      : machines_(ctx.machines),
        size_(ctx.spec.domain(kind).machines),
        domains_((ctx.machines + size_ - 1) / size_),
        rate_(ctx.spec.domain(kind).rate * domains_),
        hardware_fraction_(ctx.spec.domain(kind).hardware_fraction),
        cause_(cause),
        engine_(make_stream(ctx.seed, ctx.replica, RandomComponent::domains, static_cast<std::uint64_t>(kind))) {}

  std::optional<FailureEvent> next() override {
    if (!(rate_ > 0) || now_ == SimTime::max()) return std::nullopt;
    boost::random::exponential_distribution<double> gap(rate_);
    now_ = after(now_, gap(engine_));
    if (now_ == SimTime::max()) return std::nullopt;
    boost::random::uniform_int_distribution<int> domain(0, domains_ - 1);
    boost::random::uniform_real_distribution<double> u(0.0, 1.0);
    const int first = domain(engine_) * size_;
    const FailureType type = u(engine_) < hardware_fraction_ ? FailureType::hardware : FailureType::software;
    return FailureEvent{now_, first, std::min(size_, machines_ - first), type, cause_};
  }

 private:
  int machines_;
  int size_;
  int domains_;
  double rate_;
  double hardware_fraction_;
  int cause_;
  RandomEngine engine_;
  SimTime now_;
};

/// Several sources merged in time order; ties go to the earlier source.
class MergedFailures final : public FailureSource {
 public:
  explicit MergedFailures(std::vector<std::unique_ptr<FailureSource>> sources) : sources_(std::move(sources)) {
    for (auto& s : sources_) heads_.push_back(s->next());
  }
  std::optional<FailureEvent> next() override {
    std::size_t best = heads_.size();
    for (std::size_t i = 0; i < heads_.size(); ++i)
      if (heads_[i] && (best == heads_.size() || heads_[i]->time < heads_[best]->time)) best = i;
    if (best == heads_.size()) return std::nullopt;
    auto out = heads_[best];
    heads_[best] = sources_[best]->next();
    return out;
  }

 private:
  std::vector<std::unique_ptr<FailureSource>> sources_;
  std::vector<std::optional<FailureEvent>> heads_;
};

bool domain_modelled(const DomainSpec& d) { return d.machines > 0 && d.rate > 0; }

constexpr std::array<const char*, kDomainKinds> kDomainCauseNames{"rack", "leaf", "power"};

}  // namespace

int trace_cause_index(const TraceRecord& r, const std::vector<FailureCauseSpec>& table) {
  if (table.empty()) return r.type == FailureType::hardware ? 1 : 0;
  for (std::size_t i = 0; i < table.size(); ++i)
    if (table[i].name == r.cause) return static_cast<int>(i);
  return -1;
}

std::vector<FailureCause> failure_causes(const FailureSpec& spec) {
  std::vector<FailureCause> out;
  if (spec.causes.causes.empty()) {
    out.push_back({"software", spec.detection, spec.restart});
    out.push_back({"hardware", spec.detection, spec.restart});
  }
  for (const auto& c : spec.causes.causes)
    out.push_back({c.name, c.detection.value_or(spec.detection), c.restart.value_or(spec.restart)});
  for (int k = 0; k < kDomainKinds; ++k)
    if (domain_modelled(spec.domains[static_cast<std::size_t>(k)]))
      out.push_back({kDomainCauseNames[static_cast<std::size_t>(k)], spec.detection, spec.restart});
  // Fault-model causes (fault_model.hpp): a straggler's eviction is decided at its eviction time
  // (no detection left); a corruption's detection time is in the event's time already.
  if (stragglers_modelled(spec) && spec.stragglers.eviction) out.push_back({"straggler", SimTime::zero(), spec.restart});
  if (silent_corruption_modelled(spec)) out.push_back({"silent-corruption", SimTime::zero(), spec.restart});
  return out;
}

namespace {

int modelled_domain_count(const FailureSpec& spec) {
  int n = 0;
  for (const auto& d : spec.domains) n += domain_modelled(d) ? 1 : 0;
  return n;
}

}  // namespace

int straggler_cause(const FailureSpec& spec) {
  if (!stragglers_modelled(spec) || !spec.stragglers.eviction) return -1;
  return domain_cause_base(spec) + modelled_domain_count(spec);
}

int silent_corruption_cause(const FailureSpec& spec) {
  if (!silent_corruption_modelled(spec)) return -1;
  return domain_cause_base(spec) + modelled_domain_count(spec) + (straggler_cause(spec) >= 0 ? 1 : 0);
}

int domain_cause_base(const FailureSpec& spec) {
  return spec.causes.causes.empty() ? 2 : static_cast<int>(spec.causes.causes.size());
}

double expected_failure_events(const FailureSpec& spec, int machines, SimTime horizon) {
  const double t = horizon.seconds();
  double mean_multiplier = 1.0;
  if (spec.lemons.model == LemonModel::fraction)
    mean_multiplier = spec.lemons.fraction * spec.lemons.multiple + 1.0 - spec.lemons.fraction;
  double events = 0;
  if (spec.process == FailureProcessKind::exponential) events = spec.rate * machines * t * mean_multiplier;
  if (spec.process == FailureProcessKind::weibull)
    events = machines * t / (spec.weibull_scale.seconds() * std::tgamma(1.0 + 1.0 / spec.weibull_shape)) * mean_multiplier;
  for (const auto& d : spec.domains)
    if (domain_modelled(d)) events += d.rate * ((machines + d.machines - 1) / d.machines) * t;
  // Fault-model events (fault_model.hpp): at most one eviction per straggler, one detection per
  // corruption, and 1 / (1 - f) failures per misdiagnosable hardware fault (bounded: f < 1).
  if (stragglers_modelled(spec) && spec.stragglers.eviction) events += spec.stragglers.rate * machines * t;
  if (silent_corruption_modelled(spec)) events += spec.silent_corruption.rate * machines * t;
  if (spec.misdiagnosis.fraction > 0) events /= std::max(1e-9, 1.0 - spec.misdiagnosis.fraction);
  return events;
}

const Registry<FailureSourceFactory>& failure_process_registry() {
  static const Registry<FailureSourceFactory> registry = [] {
    const auto name = [](FailureProcessKind kind) { return std::string(name_of(kind)); };
    Registry<FailureSourceFactory> r("failure process");
    r.add(name(FailureProcessKind::exponential), "Poisson failures per machine at a constant rate (e.g. \"1.5%/machine/day\")",
          [](const FailureSourceContext& c) -> std::unique_ptr<FailureSource> {
            return std::make_unique<ExponentialFailures>(c);
          });
    r.add(name(FailureProcessKind::weibull), "per-machine renewal with Weibull(shape, scale) lifetimes; shape < 1 clusters failures",
          [](const FailureSourceContext& c) -> std::unique_ptr<FailureSource> {
            return std::make_unique<WeibullFailures>(c);
          });
    r.add(name(FailureProcessKind::trace), "failures replayed from a CSV trace (time, machine, type[, cause])",
          [](const FailureSourceContext& c) -> std::unique_ptr<FailureSource> {
            return std::make_unique<TraceFailures>(c);
          });
    r.add(name(FailureProcessKind::none), "no failures",
          [](const FailureSourceContext&) -> std::unique_ptr<FailureSource> { return std::make_unique<NoFailures>(); });
    return r;
  }();
  return registry;
}

const Registry<DomainKind>& failure_domain_registry() {
  static const Registry<DomainKind> registry = [] {
    Registry<DomainKind> r("failure domain");
    r.add("rack", "failures/domains/rack: every machine of a rack down at once (power, cooling, top-of-rack switch)",
          DomainKind::rack);
    r.add("leaf", "failures/domains/leaf: every machine under a leaf switch down at once", DomainKind::leaf);
    r.add("power", "failures/domains/power: every machine of a power domain down at once", DomainKind::power);
    return r;
  }();
  return registry;
}

std::unique_ptr<FailureSource> make_failure_source(const FailureSourceContext& ctx) {
  auto machine_failures = failure_process_registry().at(name_of(ctx.spec.process)).factory(ctx);
  std::vector<std::unique_ptr<FailureSource>> sources;
  int cause = domain_cause_base(ctx.spec);
  for (int k = 0; k < kDomainKinds; ++k) {
    if (!domain_modelled(ctx.spec.domains[static_cast<std::size_t>(k)])) continue;
    sources.push_back(std::make_unique<DomainFailures>(ctx, static_cast<DomainKind>(k), cause++));
  }
  if (sources.empty()) return machine_failures;
  sources.insert(sources.begin(), std::move(machine_failures));
  return std::make_unique<MergedFailures>(std::move(sources));
}

}  // namespace ckptsim
