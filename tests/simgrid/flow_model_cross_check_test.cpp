// ckptsim's flow model (network/flow_set.hpp) against SimGrid's max-min sharing, through the
// s4u API (tests/support/simgrid_flows.hpp): identical flow sets, every completion time equal
// within 1e-5 relative (SimGrid's default solver precision, maxmin/precision = 1e-5).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "ckptsim/network/flow_set.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "cross_check_flows.hpp"
#include "simgrid_flows.hpp"

using namespace ckptsim;
using namespace ckptsim::cross_check;

namespace {

constexpr double kSimGridPrecision = 1e-5;

CrossFlowSet two_flows(double second_link, double first_bytes, double second_bytes) {
  CrossFlowSet set;
  set.capacities = {100e6, second_link};
  set.flows.push_back({{{0, 1.0}, {1, 1.0}}, first_bytes, SimTime::zero()});
  set.flows.push_back({{{0, 1.0}}, second_bytes, SimTime::zero()});
  return set;
}

void check_agreement(const CrossFlowSet& set, const char* what) {
  const std::vector<double> ours = run_flow_set<FlowSet>(set);
  const SimGridRun theirs = run_simgrid(set);
  REQUIRE(theirs.completion.size() == ours.size());
  const double worst = max_relative_difference(ours, theirs.completion);
  MESSAGE(std::string(what) << ": " << set.flows.size() << " flows, largest relative difference of a completion time "
               << worst);
  CHECK(worst <= kSimGridPrecision);
}

Scenario paper(int machines) {
  Scenario s = load_scenario_file(CKPTSIM_SOURCE_ROOT "/scenarios/paper/gpt2-100b-16xp4d.json");
  s.cluster.machines = machines;
  return s;  // iteration_flow_set runs it at line rate (whole stream counts for SimGrid)
}

}  // namespace

TEST_CASE("SimGrid with CM02 and no cross traffic shares by plain max-min") {
  // Two 100 MB flows share a 100 MB/s link; the first also crosses a 50 MB/s link. Max-min: the
  // level reaches 50 MB/s on both links at once (50/1 and 100/2), so both flows move at 50 MB/s
  // and finish at 100 MB / 50 MB/s = 2 s exactly.
  const SimGridRun equal = run_simgrid(two_flows(50e6, 100e6, 100e6));
  CHECK(equal.completion[0] == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(equal.completion[1] == doctest::Approx(2.0).epsilon(1e-9));
  // The second link at 30 MB/s: the first flow is held at 30 MB/s and max-min gives the second
  // the other 70 MB/s of the shared link (an equal split would give it 50). With 60 MB and
  // 140 MB both end at 2 s: 60/30 = 140/70.
  const SimGridRun leftover = run_simgrid(two_flows(30e6, 60e6, 140e6));
  CHECK(leftover.completion[0] == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(leftover.completion[1] == doctest::Approx(2.0).epsilon(1e-9));
  // ckptsim's flow set gives the same times to the nanosecond.
  const std::vector<double> ours = run_flow_set<FlowSet>(two_flows(30e6, 60e6, 140e6));
  CHECK(ours[0] == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(ours[1] == doctest::Approx(2.0).epsilon(1e-9));
}

TEST_CASE("a flow of weight 3 is three streams in SimGrid") {
  // One 100 MB/s link: a weight-3 flow (3 streams) and a unit flow, 50 MB each. Common level x
  // with 3x + x = 100 MB/s: x = 25 MB/s, both end at 50/25 = 2 s.
  CrossFlowSet set;
  set.capacities = {100e6};
  set.flows.push_back({{{0, 3.0}}, 50e6, SimTime::zero()});
  set.flows.push_back({{{0, 1.0}}, 50e6, SimTime::zero()});
  const SimGridRun run = run_simgrid(set);
  CHECK(run.completion[0] == doctest::Approx(2.0).epsilon(1e-9));
  CHECK(run.completion[1] == doctest::Approx(2.0).epsilon(1e-9));
}

TEST_CASE("random flow sets: ckptsim and SimGrid agree on every completion time") {
  for (const int flows : {64, 512}) {
    for (const std::uint64_t seed : {1U, 2U}) {
      check_agreement(random_flow_set(flows, seed), "random, all at time 0");
      check_agreement(random_flow_set(flows, seed + 10, 64, milliseconds(200)), "random, arrivals over 0.2 s");
    }
  }
}

TEST_CASE("one training iteration with checkpoint traffic: ckptsim and SimGrid agree") {
  for (const int machines : {16, 128}) {
    const CrossFlowSet set = iteration_flow_set(paper(machines));
    REQUIRE(!set.flows.empty());
    check_agreement(set, machines == 16 ? "iteration on 16 machines" : "iteration on 128 machines");
  }
}
