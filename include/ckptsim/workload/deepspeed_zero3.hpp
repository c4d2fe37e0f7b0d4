#pragma once
// DeepSpeed ZeRO-3 at v0.7.3 (the version GEMINI ran) as its code executes one iteration,
// written as a StreamProgram (stream_program.hpp). Sources, all at tag v0.7.3
// (https://github.com/microsoft/DeepSpeed/tree/v0.7.3/deepspeed/runtime/zero):
//   C  partitioned_param_coordinator.py   P  partition_parameters.py
//   S  stage3.py                          O  parameter_offload.py
//   E  ../engine.py, ../../utils/timer.py
//
// Submodules (GPT-2 layout; h hidden, f FFN width, V vocabulary; DeepSpeed hooks every module,
// O 330-451, and fetches its direct parameters): module 0 the tied embedding V·h with the final
// LayerNorm; per layer QKV 3h·h (+ bias, LayerNorm 1), O h·h (+ bias), FC1 h·f (+ bias,
// LayerNorm 2), FC2 f·h (+ bias). Tensors below stage3_param_persistence_threshold elements are
// persistent (O 310-328: ds_numel < threshold) and never gathered.
// Uses in order: forward E, per layer QKV O FC1 FC2, the output projection on E; backward: the
// output projection, then per layer from the last its recomputed forward (with activation
// recomputation) and FC2 FC1 O QKV; E last. Which modules each use gathers, waits for and
// releases: zero3_schedule.hpp (trace state, prefetch, reuse distance).
//
// Per use j of module m, the host (fetch_sub_module, C 237-352) and the streams:
//   1. on-demand gather (C 251-256, P 806-866): for a group of several tensors the shards are
//      first flattened into one buffer on the all-gather stream (torch.cat, P 866-869: reads and
//      writes 2·w·E/n bytes); one coalesced all-gather of the group on the NCCL stream, which
//      first waits for the all-gather stream (ProcessGroupNCCL syncStreams);
//   2. wait (C 259-276), once per gathered tensor of m taken out of the in-flight registry:
//      completed fetch events are dropped, and with more than __max_ongoing_fetch_events = 2
//      (C 111) still outstanding the host synchronize()s the oldest — since events complete in
//      order, exactly: before recording its k-th event the host waits for event k-3; then
//      handle.wait() makes the all-gather stream wait for the all-gather (and, for a group of
//      several tensors, reassemble each parameter: torch.cat of its pieces, P 503-531: reads and
//      writes 2·w·E bytes), and an event is recorded on the all-gather stream;
//   3. the compute stream waits for the all-gather stream (C 278);
//   4. prefetch, complete trace only (C 280-350): the next group's gather as in 1;
//   5. the submodule's kernels on the compute stream;
//   6. backward uses, per gradient tensor of g elements (S 1067-1108): when the bucket holds
//      elements and bucket + g > reduce_bucket_size the bucket is flushed first; then the
//      reduce-and-partition stream waits for the compute stream (S 1092) and copies the
//      gradient into the contiguous bucket when bucket + g < reduce_bucket_size (S 1094-1106).
//      A flush (S 1111-1143): with more than __max_param_reduce_events = 2 (S 270) still
//      outstanding the host synchronize()s the oldest (before its k-th event it waits for
//      k-3); on the reduce stream the bucket is interleaved with padding and pre-divided
//      (runtime/comm/coalesced_collectives.py: torch.cat and div_, reads and writes 4·w·B
//      bytes), reduce-scattered (NCCL, synchronous for the reduce stream), its partitions
//      copied and checked for inf/nan (reads and writes 4·w·B/n); an event is recorded.
//   7. after the last use the remaining bucket is flushed and the host synchronize()s the
//      reduce stream (independent_gradient_partition_epilogue, S 988-993; E 1729-1739).
// The step (S 1874-1935), phase by phase as step_phases.hpp times them: the overflow flag
// (S 2001-2027: .item() of the inf/nan tracker, the flag to the GPU, an all-reduce of one byte,
// .item()), the gradient norm (S 1527-1575: the norm of each gradient tensor in double, their
// sum, an all-reduce, .item()), the update of each sub-group (flatten, to fp32, unscale and
// clip, fused Adam — the operation that changes model states —, back to 16 bits) and the step
// end (the throughput timer's synchronize, the next batch to the GPU, the next forward's
// synchronize). Between the update and the step end, _post_step (S 1838-1844) gathers the
// persistent parameters again, which _partition_all_parameters (S 1879; C 370-383) released
// at the step's start: one all_gather_base per persistent tensor (P 999-1021, 1235-1300), the
// compute stream waiting for the last, then torch.cuda.synchronize(); written as one
// collective of `count` = the persistent tensors (stream_program.hpp): count ring latencies
// and their bytes, nothing else on the network then.
// Every .item() and synchronize() is a host wait on the operation before it.
// All-gathers, reduce-scatters and the step's all-reduces share the data-parallel group, hence
// one NCCL stream: they run one at a time in the order the host issues them.
// Memory terms of this engine (gpu_memory.hpp): model states 16·P/n (fp16 parameter and
// gradient partitions, fp32 master and Adam moments), persistent parameters, the contiguous
// gradient bucket w·reduce_bucket_size (S 372-376), the reduce-scatter's interleaved copy,
// the largest module gradient before it is bucketed, the step's fp32 gradient of one sub-group
// (S 1685-1703); the gathered parameters are buffers, live from the host's issue to the end of
// their module's last use before release.
#include <vector>

#include "ckptsim/workload/engine.hpp"
#include "ckptsim/workload/step_phases.hpp"
#include "ckptsim/workload/transformer.hpp"
#include "ckptsim/workload/zero3_schedule.hpp"

namespace ckptsim {

/// The submodules and their uses in one iteration, as the header lists them.
struct Zero3Layout {
  std::vector<SubModule> modules;
  std::vector<ModuleUse> uses;
  std::vector<GpuWork> compute;     ///< per use
  std::vector<TaskCategory> category;  ///< per use: forward, recompute or backward
  std::vector<int> layer;              ///< per use: transformer layer (-1: embedding/output)
};
Zero3Layout zero3_layout(const TransformerShape& shape);

/// The persistent tensors (below `threshold` elements): how many and their elements.
struct Zero3Persistent {
  int tensors = 0;
  double elements = 0;
};
Zero3Persistent zero3_persistent(const Zero3Layout& layout, double threshold);

/// The coordinator's knobs from the scenario (training.zero3).
Zero3Knobs zero3_knobs(const Scenario& scenario);

/// One reduce-scatter bucket: flushed before gradient tensor `before` (in hook order) or,
/// for the last one, after every tensor (`before` = the tensor count).
struct BucketFlush {
  std::size_t before = 0;
  double elements = 0;
  int tensors = 0;
};
/// Stage 3's bucketing of gradient tensors of `elements` each, in hook order (header, item 6).
std::vector<BucketFlush> plan_buckets(const std::vector<double>& elements, double bucket_size);

/// The step phases' shape (step_phases.hpp) of one rank: its partition P / n, every module's
/// tensors, training.zero3.sub_group_size, b·s tokens, the host link.
StepShape deepspeed_zero3_step_shape(const Scenario& scenario, const TransformerShape& shape);

EngineProgram deepspeed_zero3_program(const EngineInput& input);
EngineMemory deepspeed_zero3_memory(const EngineInput& input);

}  // namespace ckptsim
