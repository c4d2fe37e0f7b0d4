#pragma once
// The iteration model: topology + ZeRO-3 task graph + its flow-level simulation + profile.
//
// simulate_iteration() builds everything from a Scenario and runs one iteration without
// checkpoint traffic. The pieces stay available so the checkpoint layer can add its own tasks
// to a copy of the graph and run it on the same topology.
#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/profile.hpp"
#include "ckptsim/workload/task_graph.hpp"
#include "ckptsim/workload/zero3.hpp"

namespace ckptsim {

struct IterationModel {
  Topology topology;
  Zero3Iteration workload;
  GraphRun run;
  IterationProfile profile;
};

/// ZeRO-3 options from the scenario (network.collective).
Zero3Options zero3_options(const Scenario& scenario);

/// Builds and runs one iteration without checkpointing. Throws std::invalid_argument when the
/// scenario lacks what the model needs.
IterationModel simulate_iteration(const Scenario& scenario);

/// GPU memory left free per GPU by the model (bytes; negative when the model itself does not fit).
double free_gpu_memory(const Scenario& scenario, const TransformerShape& shape, int prefetch);

}  // namespace ckptsim
