#pragma once
// Up-front estimates of what the iteration model asks for (core/work_limits.hpp, docs/limits.md).
#include <vector>

#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/parallelism_model.hpp"

namespace ckptsim {

/// Checkpoint chunks: each copy of a machine's shard is cut into chunks of gpu_buffer /
/// sub_buffers bytes, so (replicas - 1) x shard / chunk chunks are planned and simulated, each
/// about 256 bytes of plan and flow state. Then what the scenario's parallelism model asks for
/// (workload/parallelism_model.hpp: the ZeRO-3 engines' flows and program, Megatron's schedule).
std::vector<WorkEstimate> estimate_iteration_work(const Scenario& scenario);

}  // namespace ckptsim
