#pragma once
// Training engines: the libraries that run sharded data parallelism, registered by name
// (training.engine). An engine is one unit that turns the model, the cluster and its own knobs
// into the StreamProgram of one iteration (stream_program.hpp) and its own GPU memory terms;
// the task-graph builder, the simulation, the idle-span profile and the memory verdict follow
// that program without knowing which engine wrote it.
//   deepspeed-zero3   DeepSpeed ZeRO-3 at v0.7.3 (GEMINI's), submodule granularity
//                     (deepspeed_zero3.hpp)
//   fsdp              PyTorch FSDP, FULL_SHARD or HYBRID_SHARD, one unit per transformer block
//                     (fsdp.hpp)
// Every engine starts its iteration from a synchronized GPU (DeepSpeed's ThroughputTimer calls
// torch.cuda.synchronize() at the start of forward and the end of step; FSDP's training loops
// read the loss on the host), so one iteration is the makespan of its program.
#include <limits>
#include <string>
#include <vector>

#include "ckptsim/core/registry.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/compute_time.hpp"
#include "ckptsim/workload/gpu_memory.hpp"
#include "ckptsim/workload/stream_program.hpp"

namespace ckptsim {

struct EngineInput {
  const Scenario* scenario = nullptr;
  TransformerShape shape;
  ComputeModel compute;
  int machines = 1;
  int gpus_per_machine = 1;
  /// Bytes the engine's gathered-parameter buffers may hold before the caching allocator makes
  /// the host wait for frees (memory_pressure.hpp); infinite: no pressure.
  double buffer_budget = std::numeric_limits<double>::infinity();
  [[nodiscard]] double ranks() const { return static_cast<double>(machines) * gpus_per_machine; }
};

/// A GPU buffer the program allocates and frees: live from the moment the host reaches
/// `alloc_op` (the caching allocator hands out memory when the host asks, not when the stream
/// uses it) to the end of `free_op` (its last use on the GPU).
struct EngineBuffer {
  std::string term;      ///< the memory term it counts in
  double bytes = 0;
  int alloc_op = -1;
  int free_op = -1;
  /// Allocated from a side stream's own pool of the caching allocator (caching_allocator.hpp):
  /// the term is the pool's reserved peak, fragmentation included; otherwise the live peak
  /// (the compute stream's fragmentation is counted with the activations).
  bool own_pool = false;
};

struct EngineProgram {
  std::string summary;                     ///< the engine and its main knobs, for reports
  StreamProgram program;
  int update_op = -1;                      ///< the first operation that changes model states
  int backward_op = -1;                    ///< the first backward operation (memory phases)
  int step_op = -1;                        ///< the first operation of the step (memory phases)
  std::vector<EngineBuffer> buffers;       ///< dynamic buffers (their peak per phase is a term)
  std::vector<GpuMemoryTerm> memory_terms; ///< the engine's fixed terms
  int communicators = 1;                   ///< NCCL communicators (process groups) it creates
  /// Parameter gradients one layer's backward creates on the compute stream, bytes in creation
  /// order (caching_allocator.hpp: they interleave with the activations' gradients).
  std::vector<double> layer_gradients;
  /// A gradient held from the start of backward to its end (the tied embedding's: autograd
  /// keeps the output projection's contribution until the input embedding's arrives), bytes.
  double held_gradient = 0;
};

using EngineFactory = EngineProgram (*)(const EngineInput& input);

/// The engines, named and ordered as EngineKind's name table (scenario/kinds.hpp).
const Registry<EngineFactory>& engine_registry();

EngineProgram make_engine_program(EngineKind kind, const EngineInput& input);

}  // namespace ckptsim
