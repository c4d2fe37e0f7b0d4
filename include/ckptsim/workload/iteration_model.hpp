#pragma once
// The iteration model: topology + ZeRO-3 task graph + its flow-level simulation + profile.
//
// simulate_iteration() builds everything from a Scenario and runs one iteration without
// checkpoint traffic. The pieces stay available so the checkpoint layer can add its own tasks
// to a copy of the graph and run it on the same topology.
#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/gpu_memory.hpp"
#include "ckptsim/workload/profile.hpp"
#include "ckptsim/workload/task_graph.hpp"
#include "ckptsim/workload/zero3.hpp"

namespace ckptsim {

struct IterationModel {
  Topology topology;
  Zero3Iteration workload;
  GraphRun run;
  IterationProfile profile;
  GpuMemory memory;            ///< per GPU, from the model (gpu_memory.hpp)
};

/// Where one iteration's time goes on the compute stream: compute + boundary + optimizer +
/// exposed communication (the compute stream waiting for parameters) = iteration time.
struct IterationBreakdown {
  SimTime compute;         ///< forward, recomputed forward and backward
  SimTime boundary;
  SimTime optimizer;
  SimTime exposed_communication;
  SimTime network_busy;    ///< machine 0's NIC carrying training traffic
  /// "compute" or "exposed communication", whichever is the larger share.
  [[nodiscard]] const char* limit() const;
};
IterationBreakdown breakdown(const IterationModel& model);

/// Idle-span length distribution of machine 0: count, total, longest, and counts per decade
/// [0, 1 ms), [1, 10 ms), [10, 100 ms), [100 ms, 1 s), [1 s, inf).
struct SpanDistribution {
  std::size_t count = 0;
  SimTime total;
  SimTime longest;
  std::vector<std::size_t> histogram;
  static const std::vector<SimTime>& bucket_upper_bounds();  ///< 1 ms, 10 ms, 100 ms, 1 s
};
SpanDistribution span_distribution(const std::vector<IdleSpan>& spans);

/// ZeRO-3 options from the scenario (network.collective, training.zero3).
Zero3Options zero3_options(const Scenario& scenario);

/// Builds and runs one iteration without checkpointing. Throws ModelError when the scenario
/// lacks what the model needs.
IterationModel simulate_iteration(const Scenario& scenario);

}  // namespace ckptsim
