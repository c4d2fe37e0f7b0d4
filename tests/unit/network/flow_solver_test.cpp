// Max-min fair solver and FlowSet: hand-computed allocations and completion times, and
// properties on random flow sets (network/flow_solver.hpp, network/flow_set.hpp).
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "ckptsim/core/random.hpp"
#include "ckptsim/network/flow_set.hpp"
#include "ckptsim/network/flow_solver.hpp"

using namespace ckptsim;

namespace {

std::vector<double> solve(const std::vector<double>& capacity, const std::vector<std::vector<ResourceUse>>& uses,
                          const std::vector<double>& caps = {}) {
  std::vector<FlowDemand> demands;
  for (std::size_t f = 0; f < uses.size(); ++f) {
    FlowDemand d{uses[f]};
    if (f < caps.size()) d.rate_cap = caps[f];
    demands.push_back(d);
  }
  std::vector<double> rates;
  MaxMinSolver solver;
  solver.solve(capacity, demands, rates);
  return rates;
}

}  // namespace

TEST_CASE("a shared bottleneck is split equally") {
  // One link of 10 B/s, three flows: 10/3 each.
  auto r = solve({10.0}, {{{0, 1.0}}, {{0, 1.0}}, {{0, 1.0}}});
  for (double x : r) CHECK(x == doctest::Approx(10.0 / 3.0));
}

TEST_CASE("max-min: the flow held back by a narrow link leaves the rest to the other") {
  // Links A = 10, B = 4. Flow 1 crosses A and B, flow 2 only A.
  // Level rises to 4 (B saturates: 4/1) before A (10/2 = 5): flow 1 = 4; flow 2 takes A's rest: 6.
  auto r = solve({10.0, 4.0}, {{{0, 1.0}, {1, 1.0}}, {{0, 1.0}}});
  CHECK(r[0] == doctest::Approx(4.0));
  CHECK(r[1] == doctest::Approx(6.0));
}

TEST_CASE("weights stand for several identical streams") {
  // Weight 8 on a 40 B/s link (8 GPUs sharing one NIC) next to a weight-1 flow on the same link:
  // common level x with 8x + x = 40 -> x = 40/9.
  auto r = solve({40.0}, {{{0, 8.0}}, {{0, 1.0}}});
  CHECK(r[0] == doctest::Approx(40.0 / 9.0));
  CHECK(r[1] == doctest::Approx(40.0 / 9.0));
}

TEST_CASE("rate caps free capacity for the other flows") {
  // Link 10; flow 1 capped at 2 -> flow 2 gets 8.
  auto r = solve({10.0}, {{{0, 1.0}}, {{0, 1.0}}}, {2.0});
  CHECK(r[0] == doctest::Approx(2.0));
  CHECK(r[1] == doctest::Approx(8.0));
}

TEST_CASE("random flow sets: feasible and max-min fair") {
  auto rng = make_stream(7, 0, RandomComponent::workload);
  boost::random::uniform_int_distribution<int> n_res(1, 12), n_flows(1, 30), pick(0, 1000);
  boost::random::uniform_real_distribution<double> cap(1.0, 100.0), weight(0.5, 8.0);
  for (int trial = 0; trial < 200; ++trial) {
    const int resources = n_res(rng);
    std::vector<double> capacity;
    for (int r = 0; r < resources; ++r) capacity.push_back(cap(rng));
    std::vector<std::vector<ResourceUse>> uses(static_cast<std::size_t>(n_flows(rng)));
    for (auto& u : uses) {
      const int k = 1 + pick(rng) % std::min(resources, 4);
      for (int j = 0; j < k; ++j) {
        const int r = pick(rng) % resources;
        if (std::none_of(u.begin(), u.end(), [&](const ResourceUse& x) { return x.resource == r; })) {
          u.push_back({r, weight(rng)});
        }
      }
    }
    const auto rates = solve(capacity, uses);
    std::vector<double> load(capacity.size(), 0.0);
    for (std::size_t f = 0; f < uses.size(); ++f) {
      CHECK(rates[f] > 0.0);
      for (const auto& u : uses[f]) load[u.resource] += u.weight * rates[f];
    }
    // Capacity never exceeded.
    for (std::size_t r = 0; r < capacity.size(); ++r) CHECK(load[r] <= capacity[r] * (1 + 1e-9));
    // Max-min optimality: each flow crosses a saturated resource on which no flow is faster.
    for (std::size_t f = 0; f < uses.size(); ++f) {
      bool has_bottleneck = false;
      for (const auto& u : uses[f]) {
        if (load[u.resource] < capacity[u.resource] * (1 - 1e-9)) continue;
        bool fastest = true;
        for (std::size_t g = 0; g < uses.size(); ++g) {
          for (const auto& v : uses[g]) {
            if (v.resource == u.resource && rates[g] > rates[f] * (1 + 1e-9)) fastest = false;
          }
        }
        has_bottleneck = has_bottleneck || fastest;
      }
      CHECK(has_bottleneck);
    }
  }
}

TEST_CASE("FlowSet: hand-computed completion times and work conservation") {
  // One 10 B/s link; flows of 10 B and 20 B start together at 5 B/s each.
  // The first ends at 10/5 = 2 s; the second has 10 B left, now alone at 10 B/s: ends at 3 s.
  // Work conserved: 30 B through a 10 B/s link that never idles finishes at 30/10 = 3 s.
  const std::vector<ResourceUse> link{{0, 1.0}};
  FlowSet flows({10.0});
  flows.add(link, 10.0, 1);
  flows.add(link, 20.0, 2);
  auto t1 = flows.next_completion();
  REQUIRE(t1);
  CHECK(*t1 == seconds(2.0));
  auto done = flows.advance_to(*t1);
  CHECK(done == std::vector<std::int64_t>{1});
  auto t2 = flows.next_completion();
  REQUIRE(t2);
  CHECK(*t2 == seconds(3.0));
  done = flows.advance_to(*t2);
  CHECK(done == std::vector<std::int64_t>{2});
  CHECK(!flows.next_completion());
}

TEST_CASE("FlowSet: a flow added mid-way shares from then on") {
  // Link 100 B/s. Flow A (300 B) alone for 1 s: 200 B left. Then B (100 B) joins: 50 B/s each;
  // B ends after 100/50 = 2 s (t = 3 s), when A has 200 - 100 = 100 B left, alone at 100 B/s:
  // A ends at t = 4 s.
  const std::vector<ResourceUse> link{{0, 1.0}};
  FlowSet flows({100.0});
  flows.add(link, 300.0, 1);
  CHECK(flows.advance_to(seconds(1.0)).empty());
  flows.add(link, 100.0, 2);
  auto t = flows.next_completion();
  CHECK(*t == seconds(3.0));
  CHECK(flows.advance_to(*t) == std::vector<std::int64_t>{2});
  t = flows.next_completion();
  CHECK(*t == seconds(4.0));
  CHECK(flows.advance_to(*t) == std::vector<std::int64_t>{1});
}
