// The fault-model features of failure/fault_model.hpp, against closed forms and independent
// recomputations.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

#include "ckptsim/failure/fault_model.hpp"

using namespace ckptsim;

TEST_CASE("hang detection: the first of the collective watchdog and the heartbeat timeout") {
  HangSpec h;  // defaults: collective timeout 10 min, safety factor 5, check every 5 s
  // T = 60 s: heartbeat timeout 5 x 60 = 300 s < 600 s; + half a check interval = 302.5 s.
  CHECK(hang_detection(h, seconds(60)) == SimTime::from_seconds(302.5));
  // T = 200 s: 5 x 200 = 1000 s > 600 s: the watchdog fires first: 600 + 2.5 = 602.5 s.
  CHECK(hang_detection(h, seconds(200)) == SimTime::from_seconds(602.5));
  h.check_interval = SimTime::zero();
  h.heartbeat_safety_factor = 2;
  CHECK(hang_detection(h, seconds(10)) == seconds(20));
}

namespace {

/// The union measure of intervals within [0, horizon), computed by sorting and sweeping (an
/// oracle independent of SlowWindows' incremental merge).
double union_seconds(std::vector<std::pair<double, double>> v, double horizon) {
  std::sort(v.begin(), v.end());
  double total = 0, a = -1, b = -1;
  for (auto [s, e] : v) {
    s = std::min(s, horizon);
    e = std::min(e, horizon);
    if (s > b) {
      total += b - a;
      a = s;
      b = e;
    } else {
      b = std::max(b, e);
    }
  }
  return total + (b - a);
}

FailureSpec straggler_spec(double per_machine_per_hour, SimTime mean, std::optional<SimTime> eviction) {
  FailureSpec f;
  f.stragglers.rate = per_machine_per_hour / 3600.0;
  f.stragglers.speed = 0.5;
  f.stragglers.duration = mean;
  f.stragglers.eviction = eviction;
  return f;
}

}  // namespace

TEST_CASE("stragglers: slow time is the union of the straggler windows, queried piecewise") {
  const FailureSpec f = straggler_spec(0.05, minutes(30), minutes(40));
  const int machines = 8;
  const double horizon = 30 * 86400.0;
  std::vector<std::pair<double, double>> windows;
  StragglerDraws draws(f.stragglers, machines, 3, 1);
  for (;;) {
    const Straggler s = draws.next();
    if (s.start.seconds() >= horizon) break;
    // An evicted straggler ends exactly at its eviction, 40 min after its onset.
    if (s.evicted) CHECK(s.end - s.start == minutes(40));
    windows.emplace_back(s.start.seconds(), s.end.seconds());
  }
  REQUIRE(windows.size() > 100);
  SlowWindows slow(f, machines, 3, 1);
  // Consecutive queries of uneven lengths sum to the union over the whole horizon.
  double total = 0;
  SimTime t;
  for (int i = 0; t.seconds() < horizon; ++i) {
    const SimTime next = std::min(SimTime::from_seconds(horizon), t + seconds(600 + 7919 * (i % 13)));
    total += slow.slow_time(t, next).seconds();
    t = next;
  }
  CHECK(total == doctest::Approx(union_seconds(windows, horizon)).epsilon(1e-9));
}

TEST_CASE("stragglers: the slow fraction matches the M/G/infinity closed form") {
  // Onsets Poisson at lambda = N r, durations min(D, E) with D ~ Exp(mu): the number of
  // stragglers present is Poisson with mean lambda x E[min(D, E)] = lambda mu (1 - e^{-E/mu}),
  // so the job is slow a fraction 1 - exp(-lambda mu (1 - e^{-E/mu})) of the time.
  const int machines = 16;
  const double r = 0.02;  // per machine per hour
  const FailureSpec f = straggler_spec(r, hours(1), minutes(30));
  const double lambda = machines * r / 3600.0;
  const double mu = 3600.0;
  const double e = 1800.0;
  const double expected = 1.0 - std::exp(-lambda * mu * (1.0 - std::exp(-e / mu)));
  const double horizon = 4000 * 86400.0;  // ~31,000 stragglers
  SlowWindows slow(f, machines, 11, 0);
  const double fraction = slow.slow_time(SimTime::zero(), SimTime::from_seconds(horizon)).seconds() / horizon;
  CAPTURE(expected);
  // Relative error of a renewal-reward estimate over ~31,000 cycles: well under 3%.
  CHECK(fraction == doctest::Approx(expected).epsilon(0.03));
}

TEST_CASE("stragglers: work over an interval and the wall time it takes are inverse") {
  const FailureSpec f = straggler_spec(0.1, minutes(20), std::nullopt);
  SlowWindows a(f, 32, 5, 2);
  SlowWindows b(f, 32, 5, 2);
  SlowWindows c(f, 32, 5, 2);
  SimTime t = hours(1);
  for (int i = 0; i < 200; ++i) {
    const SimTime w = seconds(900 + 37 * i);
    const SimTime wall = a.wall_after_work(t, w);
    // The work done by `wall` is w, to the rounding of speed x slow time to whole ns: at most
    // 1 ns per slow window crossed, plus 1. Wall time is never less than work.
    const SimTime done = b.work(t, wall);
    const auto crossed = static_cast<long long>(c.windows(t, wall).size());
    CHECK(std::llabs(done.ns() - w.ns()) <= crossed + 1);
    CHECK(wall - t >= w);
    t = wall;
  }
}

TEST_CASE("misdiagnosis: a fault fails 1 / (1 - f) times on average") {
  // Each hardware failure is misdiagnosed with probability f and recurs: the failures of one
  // fault are geometric with mean 1 / (1 - f) = 4 at f = 0.75.
  FailureSpec f;
  f.process = FailureProcessKind::exponential;
  f.rate = 1.0 / (86400.0 * 1000);
  f.hardware_fraction = 1.0;
  f.misdiagnosis.fraction = 0.75;
  f.misdiagnosis.recurrence = minutes(10);
  const int machines = 1000;  // one fault a day in the cluster
  auto source = with_fault_model(make_failure_source(FailureSourceContext{f, machines, 9, 0, nullptr}), f, machines, 9, 0);
  auto base = make_failure_source(FailureSourceContext{f, machines, 9, 0, nullptr});
  const SimTime horizon = days(3000);
  int faults = 0;
  while (auto e = base->next()) {
    if (e->time >= horizon) break;
    ++faults;
  }
  int failures = 0;
  SimTime last;
  while (auto e = source->next()) {
    if (e->time >= horizon) break;
    CHECK(e->time >= last);  // in time order
    last = e->time;
    ++failures;
  }
  CAPTURE(faults);
  // sd of the mean of a geometric with p = 1/4 over ~3000 faults: sqrt(12 / 3000) ~ 0.063.
  CHECK(static_cast<double>(failures) / faults == doctest::Approx(4.0).epsilon(0.06));
}

TEST_CASE("fault model: a spec without the features leaves the failure source as it was") {
  FailureSpec f;
  f.process = FailureProcessKind::exponential;
  f.rate = 1e-6;
  auto plain = make_failure_source(FailureSourceContext{f, 8, 1, 0, nullptr});
  auto wrapped = with_fault_model(make_failure_source(FailureSourceContext{f, 8, 1, 0, nullptr}), f, 8, 1, 0);
  for (int i = 0; i < 50; ++i) {
    const auto a = plain->next();
    const auto b = wrapped->next();
    REQUIRE(a.has_value() == b.has_value());
    CHECK(a->time == b->time);
    CHECK(a->machine == b->machine);
    CHECK_FALSE(b->hang);
  }
  CHECK(straggler_cause(f) == -1);
  CHECK(silent_corruption_cause(f) == -1);
}
