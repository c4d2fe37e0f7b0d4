#pragma once
// Costs the replica-group strategies share (torchft, diloco): a job of G replica groups, HSDP
// (each group of N / G machines holds a whole copy of the model, sharded over its machines).
// The formulas, units and sources are in run/strategies/torchft.cpp's header:
//   heal H = (C G / N) / B_heal                        a recovering group copies its state from a
//                                                      live one (TorchFT's heal)
//   cross-group all-reduce of w bytes per parameter   A_w = 2 (G-1)/G g / (f_c B_n) + 2 (G-1) alpha,
//                                                      g = P w G / N, + 2 g / (GPUs B_pcie) with Gloo
//   group restart, reconfigure                         the restart phases at one group's ranks,
//                                                      communicator_init(G) (restart_phases.hpp)
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/run/strategy_costs.hpp"

namespace ckptsim::strategies {

/// Sets the replica groups, quorum, timeouts, heal, group restart and reconfiguration of `c`.
void set_replica_group_costs(const CostInputs& in, StrategyCosts& c);

/// A_w above: the all-reduce of `bytes_per_parameter` bytes per parameter across the replica
/// groups (one machine per group at each shard position, a ring of G); `what` and `gloo_what`
/// (the Gloo transport's host copies) name it in errors.
SimTime cross_group_allreduce(const Scenario& s, double bytes_per_parameter, const std::string& what,
                              const std::string& gloo_what);

/// The costs JSON members of the replica groups (replica_groups, min_replica_groups, heal_s, the
/// timeouts, and group_restart_s / reconfigure_s when the restart phases set them).
void add_replica_group_costs_json(const StrategyCosts& c, nlohmann::json& out);

}  // namespace ckptsim::strategies
