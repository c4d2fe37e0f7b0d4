#pragma once
// Flow sets for cross-checking ckptsim's flow model against SimGrid (test tooling, not part of
// the library; tests/simgrid/ and benchmarks/network/ use it).
//
// A CrossFlowSet is a list of flows, each with its resources (ckptsim ResourceUse: resource
// index and weight), a whole number of bytes and an arrival time, over resources of given
// capacities (bytes/s). It is run open-loop: a flow starts at its arrival whatever happens to
// the others, and the result is every flow's completion time (seconds since time zero).
//   random_flow_set     F flows over `links` resources, 1-4 resources each, sizes spread
//                       over three decades (so the sharing changes as flows finish), one flow
//                       in five with weight 2 or 3 (several identical streams)
//   iteration_flow_set  every transfer of one simulated training iteration with its checkpoint
//                       traffic (gemini scheduler), arriving when ckptsim started it
#include <cstdint>
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/flow_solver.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim::cross_check {

struct CrossFlow {
  std::vector<ResourceUse> uses;  ///< each resource once
  double bytes = 0;               ///< a whole number, >= 1 (SimGrid sizes are integers)
  SimTime arrival;
};

struct CrossFlowSet {
  std::vector<double> capacities;  ///< bytes/s per resource
  std::vector<CrossFlow> flows;
};

/// F random flows (see the header comment); arrivals uniform in [0, arrival_spread].
CrossFlowSet random_flow_set(int flows, std::uint64_t seed, int links = 64, SimTime arrival_spread = SimTime::zero());

/// The transfers of one iteration of `scenario` with the gemini scheduler's checkpoint traffic,
/// run at line rate (collective and p2p efficiency 1): the measured factors would put weights
/// 1/f on the NICs, and a SimGrid flow is a whole number of streams (simgrid_flows.hpp).
CrossFlowSet iteration_flow_set(Scenario scenario);

/// Completion time (seconds) of every flow with ckptsim's FlowSet (Set = FlowSet) or with the
/// pre-incremental reference (Set = reference::ReferenceFlowSet).
template <class Set>
std::vector<double> run_flow_set(const CrossFlowSet& set);

/// Largest |a - b| / max(|a|, |b|) over two lists of completion times of equal length.
double max_relative_difference(const std::vector<double>& a, const std::vector<double>& b);

}  // namespace ckptsim::cross_check
