#pragma once
// Runs a cross-check flow set (cross_check_flows.hpp) through SimGrid (Casanova, Giersch,
// Legrand, Quinson, Suter, "Versatile, scalable, and accurate simulation of distributed
// applications and platforms", JPDC 74(10), 2014; https://simgrid.org), as an independent
// implementation of max-min fair bandwidth sharing. Test tooling, built only with -Dsimgrid.
//
// SimGrid's LMM solver is not a public header, so this goes through the s4u API:
//   - one link per ckptsim resource, bandwidth = capacity (bytes/s), latency 0;
//   - one host per flow in a star zone whose "up" route is the links of the flow's resources,
//     and one sink host with no links, so a communication host_f -> sink crosses exactly f's
//     resources;
//   - configuration network/model:CM02 (no TCP bandwidth factors or latency corrections) and
//     network/crosstraffic:0 (no reverse-direction ACK traffic): SimGrid then shares bandwidth
//     by plain max-min. A flow whose weight is w > 1 (w identical streams, all its resources
//     with the same whole weight) becomes w communications;
//   - one actor per flow, on its host: it sleeps until the arrival, starts the communications
//     and records the clock when the last one is done (s4u's completion signal fires only when
//     an activity is waited for, so it cannot time communications nobody is waiting on).
// SimGrid keeps one engine per process, so each run forks: the child builds the platform, runs
// the engine and sends back the completion times and its own wall-clock time (platform
// creation + simulation, not the fork) through a pipe.
#include <vector>

#include "cross_check_flows.hpp"

namespace ckptsim::cross_check {

struct SimGridRun {
  std::vector<double> completion;  ///< seconds since time zero, per flow of the set
  double wall_seconds = 0;         ///< the child's platform creation + simulation
};

/// Throws std::invalid_argument when a flow's weights are not one whole number shared by all
/// its resources, std::runtime_error when the child fails.
SimGridRun run_simgrid(const CrossFlowSet& set);

}  // namespace ckptsim::cross_check
