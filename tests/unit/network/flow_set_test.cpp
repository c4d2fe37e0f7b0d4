// FlowSet's incremental re-solve (network/flow_set.hpp) against the full re-solve it replaced
// (tests/support/reference_flow_set.hpp, MaxMinSolver over every alive flow at every change).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ckptsim/network/flow_set.hpp"
#include "cross_check_flows.hpp"
#include "reference_flow_set.hpp"

using namespace ckptsim;
using namespace ckptsim::cross_check;

namespace {

// Runs `set` through FlowSet and through the full re-solve (the oracle): every completion time
// must agree within 1e-9 relative or the one-nanosecond rounding of the clock. Returns the
// largest relative difference.
double check_matches_full_resolve(const CrossFlowSet& set) {
  const std::vector<double> ours = run_flow_set<FlowSet>(set);
  const std::vector<double> oracle = run_flow_set<reference::ReferenceFlowSet>(set);
  REQUIRE(ours.size() == oracle.size());
  for (std::size_t f = 0; f < ours.size(); ++f) {
    const double tolerance = std::max(1e-9 * std::max(ours[f], oracle[f]), 1.5e-9);
    CHECK(std::abs(ours[f] - oracle[f]) <= tolerance);
  }
  return max_relative_difference(ours, oracle);
}

}  // namespace

TEST_CASE("FlowSet: only the component touched by a completion is re-solved") {
  // Two independent links of 10 B/s. Link 0: flows of 10 B and 40 B (5 B/s each); link 1: three
  // flows of 30 B (10/3 B/s each). First completion: the 10 B flow at 10/5 = 2 s. The re-solve
  // after it covers link 0's component only: the 40 B flow, 1 rate; link 1's three are untouched.
  const std::vector<ResourceUse> link0{{0, 1.0}};
  const std::vector<ResourceUse> link1{{1, 1.0}};
  FlowSet flows({10.0, 10.0});
  flows.add(link0, 10.0, 0);
  flows.add(link0, 40.0, 1);
  for (int k = 2; k < 5; ++k) flows.add(link1, 30.0, k);
  CHECK(*flows.next_completion() == seconds(2.0));
  CHECK(flows.flows_resolved() == 5);
  CHECK(flows.advance_to(seconds(2.0)) == std::vector<std::int64_t>{0});
  // The 40 B flow has 30 B left at 10 B/s: done at 5 s; link 1's flows end at 30/(10/3) = 9 s.
  CHECK(*flows.next_completion() == seconds(5.0));
  CHECK(flows.flows_resolved() == 6);
  CHECK(flows.solves() == 2);
  CHECK(flows.advance_to(seconds(5.0)) == std::vector<std::int64_t>{1});
  CHECK(*flows.next_completion() == seconds(9.0));
  // Nothing on link 1 changed, so no rate is recomputed after the removal from link 0 that left
  // it empty: the count stays at 6.
  CHECK(flows.flows_resolved() == 6);
  CHECK(flows.advance_to(seconds(9.0)) == std::vector<std::int64_t>{2, 3, 4});
  CHECK(!flows.next_completion());
}

TEST_CASE("FlowSet: a flow bridging two links merges their components") {
  // Links A = 10 B/s, B = 4 B/s. Flow 1 on A alone (60 B); at t = 1 s flow 2 (A and B, 8 B)
  // arrives: max-min gives flow 2 min(4, 10/2) = 4 B/s and flow 1 the other 6 B/s. Flow 2 ends
  // at 1 + 8/4 = 3 s; flow 1 then has 60 - 10 - 12 = 38 B left alone at 10 B/s: ends at 6.8 s.
  const std::vector<ResourceUse> a{{0, 1.0}};
  const std::vector<ResourceUse> ab{{0, 1.0}, {1, 1.0}};
  FlowSet flows({10.0, 4.0});
  flows.add(a, 60.0, 1);
  CHECK(flows.advance_to(seconds(1.0)).empty());
  flows.add(ab, 8.0, 2);
  CHECK(flows.rates() == std::vector<double>{6.0, 4.0});
  CHECK(*flows.next_completion() == seconds(3.0));
  CHECK(flows.advance_to(seconds(3.0)) == std::vector<std::int64_t>{2});
  CHECK(*flows.next_completion() == seconds(6.8));
}

TEST_CASE("FlowSet: rate caps and flows crossing nothing") {
  // Link 10 B/s; flow 1 capped at 2 B/s, flow 2 uncapped: 2 and 8 B/s (max-min with a cap).
  // Flow 3 crosses no resource and has a cap of 5 B/s: 5 B/s, 10 B done at 2 s.
  const std::vector<ResourceUse> link{{0, 1.0}};
  FlowSet flows({10.0});
  flows.add(link, 100.0, 1, 2.0);
  flows.add(link, 100.0, 2);
  flows.add({}, 10.0, 3, 5.0);
  CHECK(flows.rates() == std::vector<double>{2.0, 8.0, 5.0});
  CHECK(*flows.next_completion() == seconds(2.0));
}

TEST_CASE("FlowSet: the incremental re-solve matches the full re-solve on random flow sets") {
  // Same flows, arrivals and sizes through both: every completion time equal within 1e-9
  // relative (or the one-nanosecond rounding of the clock).
  double worst = 0.0;
  // 8 links: one component; 64: several at first (both filled by scanning, <= 256 resources);
  // 1,000 links: a large component of more than 256 resources, filled through the heap.
  for (std::uint64_t seed = 1; seed <= 14; ++seed) {
    const int n = seed <= 6 ? 40 : seed <= 12 ? 300 : 800;
    const int links = seed > 12 ? 1000 : seed % 3 == 0 ? 8 : 64;
    const CrossFlowSet set = random_flow_set(n, seed, links, seed % 2 == 0 ? milliseconds(300) : SimTime::zero());
    worst = std::max(worst, check_matches_full_resolve(set));
  }
  MESSAGE("largest relative difference, incremental vs full re-solve: " << worst);
}

TEST_CASE("FlowSet: wide flows (kept out of the member lists) match the full re-solve") {
  // Every seventh flow of a random set over 200 links is widened to cross kWideUses to 3 x
  // kWideUses distinct links (a collective over every machine), so wide and narrow flows share
  // links, bridge components, arrive and finish in every order.
  double worst = 0.0;
  for (std::uint64_t seed = 21; seed <= 26; ++seed) {
    CrossFlowSet set = random_flow_set(300, seed, 200, seed % 2 == 0 ? milliseconds(200) : SimTime::zero());
    int widened = 0;
    for (std::size_t f = 0; f < set.flows.size(); f += 7) {
      const std::size_t width = FlowSet::kWideUses + (f * 37 + seed * 11) % (2 * FlowSet::kWideUses + 1);
      const double weight = set.flows[f].uses.front().weight;
      set.flows[f].uses.clear();
      for (std::size_t k = 0; k < width; ++k) {
        const int link = static_cast<int>((f * 13 + k * 3 + seed) % 200);  // 3 is prime to 200: distinct
        set.flows[f].uses.push_back({link, weight});
      }
      ++widened;
    }
    REQUIRE(widened == 43);  // flows 0, 7, ..., 294
    worst = std::max(worst, check_matches_full_resolve(set));
  }
  MESSAGE("largest relative difference with wide flows: " << worst);
}

TEST_CASE("FlowSet: same inputs, identical outputs") {
  // Determinism: two runs of one random set give bit-identical completion times.
  const CrossFlowSet set = random_flow_set(200, 5, 16, milliseconds(50));
  CHECK(run_flow_set<FlowSet>(set) == run_flow_set<FlowSet>(set));
}
