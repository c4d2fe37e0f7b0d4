#pragma once
// Up-front estimates of what the iteration model asks for (core/work_limits.hpp, docs/limits.md).
#include <vector>

#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Checkpoint chunks: each copy of a machine's shard is cut into chunks of gpu_buffer /
/// sub_buffers bytes, so (replicas - 1) x shard / chunk chunks are planned and simulated, each
/// about 256 bytes of plan and flow state. The program: estimate_program_bytes. Training flows:
/// the iteration runs about
/// 3 collectives per layer, each with a flow per GPU: 3 x layers x machines x GPUs per machine
/// flows through the max-min solver, refused above kMaxIterationFlows.
std::vector<WorkEstimate> estimate_iteration_work(const Scenario& scenario);

/// The training-flow count above: 3 x layers x machines x GPUs per machine.
double estimate_iteration_flows(const Scenario& scenario);

/// Memory of the engine's program and its task graph: DeepSpeed ZeRO-3 writes about 86
/// operations per layer (GPT-2 100B: 10,675 for 124 layers), FSDP about 20; each operation and
/// its task take under 1 KiB. Estimated as 100 x 1 KiB per layer.
double estimate_program_bytes(const Scenario& scenario);

inline constexpr double kMaxIterationFlows = 2e7;

}  // namespace ckptsim
