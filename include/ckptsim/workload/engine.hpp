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

/// A gathered-parameter buffer the program allocates and frees, from a side stream's own pool
/// of the caching allocator: live from the operation at which the host allocates it (the
/// all-gather's output, handed out when the host asks) to the one at which the host frees it
/// (the GPU may use it longer: the allocator reuses it only after that). Its term counts what
/// the pool reserves in host order (caching_allocator.hpp), fragmentation included.
struct EngineBuffer {
  std::string term;      ///< the memory term it counts in
  double bytes = 0;
  int alloc_op = -1;
  int free_op = -1;
};

/// What an engine holds in GPU memory besides the activations, known before its program runs.
struct EngineMemory {
  std::vector<GpuMemoryTerm> terms;        ///< the engine's fixed terms
  int communicators = 1;                   ///< NCCL communicators (process groups) it creates
  /// Parameter gradients one layer's backward creates on the compute stream, bytes in creation
  /// order (caching_allocator.hpp: they interleave with the activations' gradients).
  std::vector<double> layer_gradients;
  /// A gradient held from the start of backward to its end (the tied embedding's: autograd
  /// keeps the output projection's contribution until the input embedding's arrives), bytes.
  double held_gradient = 0;
};

struct EngineProgram {
  std::string summary;                     ///< the engine and its main knobs, for reports
  StreamProgram program;
  int update_op = -1;                      ///< the first operation that changes model states
  int backward_op = -1;                    ///< the first backward operation (memory phases)
  int step_op = -1;                        ///< the first operation of the step (memory phases)
  std::vector<EngineBuffer> buffers;       ///< gathered-parameter buffers (a term of their own pool)
  /// Buffers live on the simulated timeline, from the start of alloc_op to the end of free_op
  /// (none when it ends first): DeepSpeed's full gradients waiting for the reduce stream to
  /// copy them, beyond the one the activation replay holds. Their term is the peak of their
  /// sum per phase (the phase of alloc_op).
  std::vector<EngineBuffer> queued_gradients;
  EngineMemory memory;                     ///< as the engine's memory function gives it
};

/// One engine: its program and its memory, each a function of the same input.
struct Engine {
  EngineProgram (*program)(const EngineInput& input);
  EngineMemory (*memory)(const EngineInput& input);
};

/// The engines, named and ordered as EngineKind's name table (scenario/kinds.hpp).
const Registry<Engine>& engine_registry();

EngineProgram make_engine_program(EngineKind kind, const EngineInput& input);
EngineMemory engine_memory(EngineKind kind, const EngineInput& input);

}  // namespace ckptsim
