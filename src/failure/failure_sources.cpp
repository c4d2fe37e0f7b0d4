// The failure processes of failure_process.hpp: exponential, weibull, trace, none.
#include <cmath>
#include <queue>
#include <stdexcept>

#include <boost/random/exponential_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>
#include <boost/random/weibull_distribution.hpp>

#include "ckptsim/core/event_queue.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/failure/failure_process.hpp"

namespace ckptsim {
namespace {

/// Draws hardware vs software from its own stream.
class TypeDrawer {
 public:
  TypeDrawer(double hardware_fraction, std::uint64_t seed, std::uint64_t replica)
      : fraction_(hardware_fraction), engine_(make_stream(seed, replica, RandomComponent::failure_types)) {}
  FailureType draw() {
    boost::random::uniform_real_distribution<double> u(0.0, 1.0);
    return u(engine_) < fraction_ ? FailureType::hardware : FailureType::software;
  }

 private:
  double fraction_;
  RandomEngine engine_;
};

class NoFailures final : public FailureSource {
 public:
  std::optional<FailureEvent> next() override { return std::nullopt; }
};

class ExponentialFailures final : public FailureSource {
 public:
  explicit ExponentialFailures(const FailureSourceContext& ctx)
      : machines_(ctx.machines),
        cluster_rate_(ctx.spec.rate * ctx.machines),
        engine_(make_stream(ctx.seed, ctx.replica, RandomComponent::failures)),
        types_(ctx.spec.hardware_fraction, ctx.seed, ctx.replica) {}

  std::optional<FailureEvent> next() override {
    if (!(cluster_rate_ > 0)) return std::nullopt;
    boost::random::exponential_distribution<double> gap(cluster_rate_);
    boost::random::uniform_int_distribution<int> machine(0, machines_ - 1);
    // At least 1 ns between failures keeps time strictly increasing.
    now_ += std::max(SimTime::from_ns(1), SimTime::from_seconds(gap(engine_)));
    return FailureEvent{now_, machine(engine_), types_.draw()};
  }

 private:
  int machines_;
  double cluster_rate_;
  RandomEngine engine_;
  TypeDrawer types_;
  SimTime now_;
};

class WeibullFailures final : public FailureSource {
 public:
  explicit WeibullFailures(const FailureSourceContext& ctx)
      : shape_(ctx.spec.weibull_shape),
        scale_s_(ctx.spec.weibull_scale.seconds()),
        types_(ctx.spec.hardware_fraction, ctx.seed, ctx.replica) {
    engines_.reserve(static_cast<std::size_t>(ctx.machines));
    queue_.reserve(static_cast<std::size_t>(ctx.machines));
    for (int m = 0; m < ctx.machines; ++m) {
      engines_.push_back(make_stream(ctx.seed, ctx.replica, RandomComponent::failures, static_cast<std::uint64_t>(m)));
      queue_.schedule(draw_gap(m), m);
    }
  }

  std::optional<FailureEvent> next() override {
    if (queue_.empty()) return std::nullopt;
    auto event = queue_.pop();
    // Renewal: the machine (or its replacement) starts a fresh lifetime at its failure.
    queue_.schedule(event.time + draw_gap(event.payload), event.payload);
    return FailureEvent{event.time, event.payload, types_.draw()};
  }

 private:
  SimTime draw_gap(int machine) {
    boost::random::weibull_distribution<double> life(shape_, scale_s_);
    return std::max(SimTime::from_ns(1), SimTime::from_seconds(life(engines_[static_cast<std::size_t>(machine)])));
  }

  double shape_;
  double scale_s_;
  std::vector<RandomEngine> engines_;
  EventQueue<int> queue_;
  TypeDrawer types_;
};

class TraceFailures final : public FailureSource {
 public:
  explicit TraceFailures(const FailureSourceContext& ctx) : records_(ctx.trace) {
    if (records_ == nullptr) throw std::logic_error("trace failure process built without a loaded trace");
  }
  std::optional<FailureEvent> next() override {
    if (index_ >= records_->size()) return std::nullopt;
    const auto& r = (*records_)[index_++];
    return FailureEvent{r.time, r.machine, r.type};
  }

 private:
  const std::vector<TraceRecord>* records_;
  std::size_t index_ = 0;
};

}  // namespace

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
    r.add(name(FailureProcessKind::trace), "failures replayed from a CSV trace (time, machine, type)",
          [](const FailureSourceContext& c) -> std::unique_ptr<FailureSource> {
            return std::make_unique<TraceFailures>(c);
          });
    r.add(name(FailureProcessKind::none), "no failures",
          [](const FailureSourceContext&) -> std::unique_ptr<FailureSource> { return std::make_unique<NoFailures>(); });
    return r;
  }();
  return registry;
}

std::unique_ptr<FailureSource> make_failure_source(const FailureSourceContext& ctx) {
  return failure_process_registry().at(name_of(ctx.spec.process)).factory(ctx);
}

}  // namespace ckptsim
