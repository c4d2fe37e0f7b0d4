#pragma once
// PyTorch FSDP (FullyShardedDataParallel, the wrapper API of torch.distributed.fsdp) as its
// runtime executes one iteration, written as a StreamProgram (stream_program.hpp). Sources
// (PyTorch 2.x, https://github.com/pytorch/pytorch/tree/main/torch/distributed/fsdp as of the
// 2.0/2.1 releases):
//   R  _runtime_utils.py: _unshard, _reshard, _pre_forward_unshard, _post_forward_reshard,
//      _pre_backward_hook, _post_backward_hook, _post_backward_final_callback,
//      _prefetch_handles / _get_handles_to_prefetch, _init_streams
//   L  _limiter_utils.py: _FreeEventQueue, _max_num_inflight_all_gathers = 2
//   F  fully_sharded_data_parallel.py: constructor defaults (PyTorch 2.1: backward_prefetch
//      BACKWARD_PRE, forward_prefetch False, limit_all_gathers True)
//
// Units: each transformer block is wrapped (the policy torchtitan and llm-foundry use), its
// parameters one FlatParameter of P_l = 4h² + 2hf + 9h + f elements; the root unit holds the
// tied embedding and final LayerNorm (V·h + 2h). Streams (R _init_streams): compute (default),
// unshard (all-gathers), pre-unshard (the mixed-precision cast of the shard), post-backward
// (reduce-scatters); every collective of the sharding group runs on its NCCL stream.
// Per unit u, the host and the streams:
//   _unshard(u) (R): with mixed precision the fp32 shard is cast to the low-precision shard on
//     the pre-unshard stream (reads 4, writes 2 bytes per shard element), the unshard stream
//     waits for it; with limit_all_gathers, when 2 free events are queued the host pops the
//     oldest and synchronize()s it (L dequeue_if_needed: no completion check, FIFO); then the
//     all-gather of w·P_u bytes on the unshard stream (NCCL: after the unshard stream).
//   forward: the root's pre-forward makes the unshard and pre-unshard streams wait for the
//     compute stream; pre-forward unshards u unless prefetched, the compute stream waits for
//     the unshard stream, forward_prefetch unshards the next unit; the block's forward; its
//     post-forward reshards (frees) it — not the root (R _post_forward_reshard: `not
//     state._is_root`) — and queues a free event recorded on the compute stream.
//   backward, from the last block: pre-backward unshards u unless prefetched (the root is
//     still unsharded: only the limiter runs), the compute stream waits; BACKWARD_PRE then
//     unshards the next unit in backward order; the unit's backward (with activation
//     recomputation its forward again, inside the unit while it is unsharded); post-backward
//     reshards u (a free event), BACKWARD_POST unshards the next unit here instead; the
//     post-backward stream waits for the compute stream and reduce-scatters the unit's
//     gradient (w·P_u bytes, synchronous for that stream); HYBRID_SHARD then all-reduces the
//     gradient shard across machines on the replicate group's NCCL stream
//     (default_hooks.allreduce_hook); the shard is cast to the fp32 parameter dtype (reads 2,
//     writes 4 per shard element). The final callback makes the compute stream wait for the
//     post-backward stream.
//   step: torch.nn.utils.clip_grad_norm_-style norm (reads 4 B per shard element), its
//     all-reduce, the clip (reads and writes 8), AdamW (foreach: reads parameter, gradient,
//     exp_avg, exp_avg_sq, writes parameter, exp_avg, exp_avg_sq: 28 B) over the fp32 shard.
// FULL_SHARD shards over every GPU (n = N·G); HYBRID_SHARD shards within a machine (n = G,
// all-gathers and reduce-scatters over NVLink) and replicates across machines.
// Memory terms of this engine: model states 16·P/n (fp32 sharded flat parameter and gradient,
// Adam moments); the low-precision shard of the unit being gathered; the unsharded gradients
// in backward (the root's, from the head's backward to the embedding's, and one block's); a
// block's unsharded gradient freed by the host after it issued the reduce-scatter is reusable
// only once the post-backward stream has run what was enqueued by then (R _post_backward_hook:
// _no_dispatch_record_stream on the post-backward stream), so from the start of the next
// backward to the end of its reduce-scatter (and cast) it is a queued gradient, read from the
// simulated timeline (iteration_model.hpp queued_buffer_terms); the unsharded flat parameters
// (buffers, from the all-gather's issue to the reshard; the root's until the end of backward).
#include "ckptsim/workload/engine.hpp"

namespace ckptsim {

/// HBM bytes of the step per fp32 shard element: norm 4, clip 8, AdamW 28.
inline constexpr double kFsdpStepBytesPerParameter = 4 + 8 + 28;

EngineProgram fsdp_program(const EngineInput& input);
EngineMemory fsdp_memory(const EngineInput& input);

}  // namespace ckptsim
