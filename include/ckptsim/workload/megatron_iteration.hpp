#pragma once
// The iteration model of training.parallelism "megatron": one training step of Megatron-LM with
// tensor (t), pipeline (p, v chunks per rank), data (d), context (c) and expert (e)
// parallelism, on one representative rank per pipeline stage (every tensor, context and data
// replica of a stage does the same work at the same time: group symmetry, so 16,384 GPUs cost
// what p ranks do).
//
// Per layer and micro-batch on one rank (b micro-batch, s sequence, T = b·s/c tokens, h hidden,
// f FFN width, a heads, k_v key/value heads, d_h = h/a, V vocabulary, w = 2 bytes in mixed
// precision, T' = T/t with sequence parallelism else T):
//   compute (the kernel model's timer, kernel_time.hpp; Megatron's column/row-parallel split):
//     QKV (T, (a + 2k_v)·d_h/t, h), output projection (T, h, h/t), FC1 (T, g·f/t, h) with g = 2
//     for a gated FFN, FC2 (T, h, f/t); backward: dgrad and wgrad of each; attention over a/t
//     heads (FlashAttention-2: 4·b·(s/c)·s·h/t FLOPs forward, halved when causal, 2.5x that
//     backward; unfused: scores and context GEMMs and the softmax, mask and dropout passes over
//     b·(a/t)·(s/c)·s elements); LayerNorms, residual adds and the activation as memory-bound
//     passes over T'·h and T·f/t elements (backward: twice the forward bytes).
//     Mixture of experts: the FFN becomes the router (T, E, h) and the expert FFNs, timed on
//     the busiest expert's rank (dispatch below).
//   MoE dispatch (Megatron-core core_v0.12.0, megatron/core/transformer/moe/token_dispatcher.py
//     MoEAlltoAllTokenDispatcher, moe_utils.py permute / unpermute / get_capacity, unfused):
//     a rank routes A = T'·k assignments (T' = T/t with sequence parallelism), mean m = A/E per
//     expert; the busiest expert gets λ·m (training.megatron.moe_load_imbalance, stated; every
//     rank's busiest is the same expert), the others m·(E - λ)/(E - 1) each. With a capacity
//     factor C: capacity c = ceil(A/E · C) per expert and rank, each expert keeps min(load, c)
//     and the rest is dropped; with pad_to_capacity every expert gets exactly c rows. Rows a
//     rank sends: R = kept(λm) + (E - 1)·kept(rest). On the busiest expert's rank, after the
//     all-to-all from the e ranks and the gather over the tensor group (u = T/T'): its expert
//     n_hot = u·e·kept(λm) rows, each other local expert n_o = u·e·kept(rest), in all
//     N = n_hot + (E/e - 1)·n_o; the expert GEMMs run at these row counts and the FFN
//     activation passes over N rows. Permutation passes (memory-bound, forward; backward twice):
//       permutation 1 (index_select)            2·R·h·w
//       permutation 2 (sort_chunks_by_idxs, or the padded transpose; E/e > 1 only)  2·N·h·w
//       unpermutation 2 (the same, back)        2·N·h·w
//       unpermutation 1 (probs product 2·R·h·w, zeros T'·h·w, scatter_add 3·R·h·w)
//     Not counted: the routing map's transposes and sorts (T'·E elements), the fused permute
//     (--moe-permute-fusion), DeepEP's dispatcher.
//   tensor-parallel collectives on NVLink (ring, Thakur et al. 2005), each on S = T·h·w bytes
//   (Megatron's ParallelMLP / ParallelAttention; Korthikanti et al. 2022, §4.2.2):
//     without sequence parallelism: 2 all-reduces forward (after the attention and FFN row-parallel
//       layers) and 2 backward (the column-parallel inputs' gradients):
//       t_AR = 2(t-1)·alpha + 2(t-1)/t · S / B
//     with sequence parallelism: 2 all-gathers + 2 reduce-scatters each way, the same bytes:
//       t_AG = t_RS = (t-1)·alpha + (t-1)/t · S / B
//     bytes each rank sends per layer forward: 4(t-1)/t · S either way.
//     With experts and sequence parallelism the FFN half's pair is the dispatcher's, over the
//     expert rows: an all-gather after the all-to-all and a reduce-scatter before the combine,
//     each on S_e = N·h·w (N below), so 2(t-1)/t · (S + S_e) sent per layer forward.
//   context parallelism (ring attention, Megatron's TransformerEngine path): c-1 steps, each
//     passing the local K and V, 2·b·(s/c)·k_v·d_h/t·w bytes, overlapped with the attention
//     block computes: exposed = max(0, (c-1)·t_step - t_attention); backward twice the bytes
//     (K, V and their gradients).
//   expert parallelism: all-to-all dispatch and combine forward, and both again backward, each
//     of S = max(R, N/u)·h·w bytes (the rank that sends or receives the most rows sets it; T'·k·h·w
//     when balanced and dropless), (e-1)/e of them leaving it:
//     t_A2A = (e-1)·alpha + (e-1)/e · S / B
//   alpha, the latency of one ring step, is the tier's: cluster.nvlink_latency for a group inside
//     one machine, cluster.network.latency for one that crosses machines (NCCL's tuning model
//     charges each step the latency of the hardware it crosses: src/graph/tuning.cc, hwLat).
//   recomputation (Korthikanti et al. 2022): full reruns each layer's forward (and its
//     collectives) inside its backward; selective reruns the attention core.
// Pipeline: a virtual stage's forward is its layers' forwards plus the embedding (first) or
//   the output layer and loss (last), backward likewise; the p2p transfer of the activation
//   b·(s/c)·h·w bytes (divided by t with sequence parallelism, Megatron's tensor shape) at the
//   per-GPU network rate (or NVLink when neighbours share a machine); pipeline_schedule.hpp runs
//   the 1F1B or interleaved schedule and the bubble is what it leaves idle.
// Parameters Φ_r of a rank: its stage's layers and ends from the one parameter count
//   (scenario/parameter_count.hpp), the split parts over t and the experts over e; the first
//   stage holds the embedding (V·h/t), the last the output projection (V·h/t: its own when
//   untied, a copy of the embedding when tied and p > 1) and the final norm.
// Data parallelism (Megatron's DistributedDataParallel and distributed optimizer): a rank's
//   gradient buffer Φ_r·g bytes (Φ_r its parameters, g = 4 with grad_reduce_in_fp32 else w)
//   is reduce-scattered (distributed optimizer) or all-reduced over the d·c ranks of its data
//   group, in buckets of max(4e7, 1e6·d·c) parameters; with overlap_grad_reduce the buckets run
//   during the stage's last backward (only the last bucket after it), else after the schedule.
//   Tied embeddings with p > 1 add the all-reduce of the embedding gradient between the first
//   and last stage. The optimizer step is Megatron-LM's pass list (step_phases.hpp,
//   megatron_step_phases: gradients to fp32 main gradients, fp16's unscale and inf/NaN check,
//   the gradient norm and clip, fused Adam, main parameters back to 16-bit, the gradient buffer
//   zeroed) on the rank's shard Φ_r/(d·c) (distributed; experts Φ_e/(d·c/e)) or Φ_r, with its
//   scalar all-reduces (found inf with fp16, the gradient norm with clip_grad > 0) over the
//   gradient-statistics group: every rank under the distributed optimizer, else Megatron's
//   model-parallel group (t·p ranks; the expert optimizer's t·e·p), each timed as NCCL's tuner
//   picks for 4 bytes, the lesser of the ring's 2(n-1) steps and the tree's 2((n/N - 1)·alpha_NVLink +
//   ceil(log2 N)·alpha_network) on N machines. The distributed optimizer then all-gathers the
//   16-bit parameters (Φ_r·w bytes), hidden under the next step's forward except its first
//   bucket with overlap_param_gather.
// Iteration: each stage starts its step when its gradient reduce (and embedding sync) ends, runs
//   its phases up to the first all-reduce, and every later segment starts when the all-reduce
//   before it ends (the group spans every stage): step end = max_r(finish_r + A_r) + AR_1 +
//   max_r(B_r) + AR_2 + max_r(C_r) (A, B, C the segments between the all-reduces); iteration =
//   step end + the exposed parameter gather.
// Memory per rank (Korthikanti et al. 2022, Table 2, per layer and micro-batch, bytes; 16-bit
//   activations and 1-byte dropout masks):
//     stored = 10·s·b·h (norm inputs, the two projection inputs kept whole, dropout masks)
//            + 24·s·b·h + 5·a·s²·b (the rest), in general (gated FFN, grouped KV, experts):
//       whole:  4sbh (norms) + 2sbh (QKV input) + 2sbh (FFN input) + 2sbh (masks)
//       split:  2sbh (Q) + 4sb·k_v·d_h (K, V) + 2sbh (projection input) + k·(2·g·sbf + 2sbf)
//               (with experts k is N/T, the busiest expert's rank's rows per token: k when balanced)
//       scores: 5·a·s²·b  (softmax 2, its dropout mask 1, dropout output 2; none with flash)
//     (model.dropout 0: no masks and no dropout output, so 2sbh less whole and 2·a·s²·b scores);
//     with context parallelism the scores of a rank are a·(s/c)·s·b
//     tensor parallel: whole + split/t + scores/t; with sequence parallelism all of it / t;
//     selective recomputation drops the scores; full recomputation keeps 2sbh per layer.
//     s here is s/c (context parallelism splits the sequence). The peak count of micro-batch
//     chunks in flight on a rank comes from the schedule's run order (pipeline_schedule.hpp,
//     peak_held; 1F1B: min(m, p - r) on rank r, its first rank holds L layers' worth, §4.2.3;
//     interleaved: warm-up + 1 chunks, every chunk-micro-batch where the warm-up is all of them).
//   pipeline edges, per micro-batch in flight on the chunk that has them:
//     last virtual stage: the final norm's and the output projection's inputs 2·T'·h·w and the
//       loss's saved fp32 softmax over the rank's vocabulary slice, 4·T·V/t, plus its target
//       mask and int64 targets 9·T (Megatron-LM tensor_parallel/cross_entropy.py:
//       vocab_parallel_logits.float(), ctx.save_for_backward(exp_logits, target_mask,
//       masked_target_1d)); it is freed by the backward that follows on the same rank;
//     every other virtual stage: its output tensor T'·h·w only with deallocate_pipeline_outputs
//       off (schedules.py deallocate_output_tensor frees the sent output's .data, keeping its
//       grad_fn; megatron/training/argument_utils.py sets deallocate_pipeline_outputs = True);
//       the first virtual stage's embedding dropout mask T'·h bytes with dropout.
//   model states (Megatron's distributed optimizer notes): w + g bytes per parameter plus 12
//     (fp32 main copy and two Adam moments) divided by d·c under the distributed optimizer
//     (bf16 parameters, fp32 gradients: 6 + 12/(d·c)).
// Units: seconds and bytes inside, SimTime out. Every rule is first order: no kernel overlap
// beyond what is stated, no NCCL channel or protocol detail, no stragglers.
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/workload/megatron_layout.hpp"
#include "ckptsim/workload/pipeline_schedule.hpp"
#include "ckptsim/workload/step_phases.hpp"

namespace ckptsim {

/// One collective kind of the step, as one rank sees it.
struct MegatronCollective {
  std::string name;       ///< "tensor all-reduce", "data reduce-scatter", ...
  std::string link;       ///< "NVLink" or "network"
  int group = 1;          ///< ranks in the group
  double bytes = 0;       ///< S, the buffer of one call
  double sent_bytes = 0;  ///< bytes a rank sends per call
  SimTime time;           ///< one call
  std::int64_t calls = 0; ///< per iteration, on a rank of the busiest stage
};

/// Megatron-core's MoE token dispatch (alltoall dispatcher) on one rank, per layer and
/// micro-batch (header); zero without experts.
struct MegatronMoeDispatch {
  double capacity = 0;        ///< tokens per expert from one rank (0: dropless)
  double routed = 0;          ///< R: token rows a rank permutes and sends
  double busiest_expert = 0;  ///< GEMM rows of the busiest expert
  double other_expert = 0;    ///< GEMM rows of each other local expert of its rank
  double busiest_rank = 0;    ///< N: the rows of all local experts of that rank
  double dropped = 0;         ///< share of the T'·k assignments dropped
  double padding = 0;         ///< share of the sent rows that are padding
  double a2a_tokens = 0;      ///< max(R, N·T'/T): the rows of the all-to-all's busiest rank
  double permute = 0;         ///< forward HBM bytes: permutation 1
  double sort = 0;            ///< permutation 2 (and unpermutation 2), with several local experts
  double unpermute = 0;       ///< unpermutation 1
  [[nodiscard]] double permutation_bytes() const { return permute + 2 * sort + unpermute; }
};

/// Per-rank memory, bytes (peak over the step).
struct MegatronMemory {
  double parameters = 0;
  double gradients = 0;
  double optimizer = 0;
  double activations = 0;      ///< the layers' stored activations, at the rank's peak
  /// At the same moment: the output layer's and loss's saved tensors (last virtual stage), the
  /// stage outputs kept without deallocate_pipeline_outputs, the embedding dropout mask.
  double pipeline_edges = 0;
  [[nodiscard]] double total() const { return parameters + gradients + optimizer + activations + pipeline_edges; }
};

struct MegatronStage {
  int rank = 0;                  ///< pipeline rank
  int layers = 0;                ///< over its chunks
  double parameters = 0;         ///< Φ_r, on one rank of the stage
  SimTime forward;               ///< one micro-batch, all chunks
  SimTime backward;
  SimTime schedule_end;          ///< its last backward ends
  SimTime grad_reduce_exposed;   ///< after its schedule
  SimTime step;                  ///< its optimizer step
  double bubble_fraction = 0;    ///< idle share of the schedule's makespan
  MegatronMemory memory;
  /// This rank's share of the step's checkpoint, bytes: Φ_r · training.checkpoint_bytes_per_parameter
  /// divided over t x p (Φ_r is already a tensor and pipeline slice) and, under the distributed
  /// optimizer, over the d·c ranks of its data group (experts: d·c/e), each of which owns one
  /// shard of the fp32 main parameters and Adam moments and nothing else holds (Megatron's
  /// distributed optimizer; its fully parallel distributed checkpoint saves that split). Without
  /// the distributed optimizer every data-parallel rank holds its stage's whole state, so its
  /// shard is all of it (Megatron's non-distributed checkpoint: one file per tensor and pipeline
  /// rank, the same on every data-parallel rank).
  double checkpoint_shard = 0;
  /// Ranks holding the same 16-bit parameters as this one (d·c: its data group), the copies an
  /// in-memory recovery can read them back from; the distributed optimizer's states have one.
  int parameter_copies = 1;
  std::vector<PipelineSpan> network_busy;  ///< profiler view: its inter-machine collectives, launch to last byte
  std::vector<PipelineSpan> idle_spans;    ///< the gaps, within [0, iteration time]
  std::vector<PipelineSpan> silent_busy;   ///< network-silent view: intervals training bytes cross its NIC
  std::vector<PipelineSpan> silent_spans;  ///< the gaps of silent_busy, within [0, iteration time]
  [[nodiscard]] SimTime idle_time() const;
  [[nodiscard]] SimTime silent_time() const;
};

struct MegatronIteration {
  MegatronLayout layout{1, 1, 1, 1, 1, 1, 1, false};
  std::vector<int> chunk_layers;          ///< per virtual stage
  PipelineRun pipeline;
  std::vector<MegatronStage> stages;
  std::vector<MegatronCollective> collectives;
  SimTime layer_forward_compute;          ///< one layer, one micro-batch
  SimTime layer_backward_compute;
  SimTime layer_tp_forward;               ///< its tensor-parallel collectives, forward
  SimTime layer_tp_backward;
  double tp_sent_bytes_per_layer = 0;     ///< per rank, forward of one layer and micro-batch
  double dp_sent_bytes_per_step = 0;      ///< per rank: gradient reduce and parameter gather
  SimTime p2p_forward;
  SimTime p2p_backward;
  SimTime grad_reduce;                    ///< the whole data-parallel gradient reduce of one rank
  SimTime param_gather;                   ///< the distributed optimizer's parameter all-gather
  SimTime param_gather_exposed;
  SimTime schedule_time;                  ///< the pipeline's makespan
  MegatronMoeDispatch moe;                ///< the token dispatch, with experts
  SimTime step_start;                     ///< every stage's gradient reduce (and embedding sync) is done
  SimTime step_end;                       ///< the last stage's optimizer step ends (before the exposed gather)
  int step_stage = 0;                     ///< the stage with the longest step
  std::vector<StepPhase> step_phases;     ///< its passes (step_phases.hpp, megatron_step_phases)
  SimTime iteration_time;
  double model_flops = 0;                 ///< per iteration, whole job (6 Φ_active tokens + attention)
  std::string nvlink_collectives;         ///< how collectives inside a machine were timed (nvlink_collectives_description)
  [[nodiscard]] double bubble_fraction() const;  ///< of the first pipeline rank
  /// Achieved model FLOP/s per GPU over peak: model_flops / (iteration_time · GPUs · peak).
  [[nodiscard]] double mfu(double peak_flops) const;
};

/// Whether collectives inside a machine are timed by the GPU type's measured nccl-tests curves
/// (scenario/bus_curve.hpp): a ring curve is there, cluster.nvlink_curves is true, and the curves
/// are not the GPU type's, or nvlink_bandwidth and nvlink_latency are the type's and the default
/// (a user's own figures beside the type's curves are used as a ring: T = (n-1)·alpha +
/// (n-1)/n·S / B_nv per pass). Values only, never which keys were written: the sweep's cache key
/// is built from the values.
bool nvlink_curves_apply(const Scenario& scenario);
/// One line saying which of the two timed the in-machine collectives, and why.
std::string nvlink_collectives_description(const Scenario& scenario);

/// Simulates one step. Throws ModelError naming the field when the scenario lacks what the model
/// needs (the loader has already checked the layout).
MegatronIteration simulate_megatron_iteration(const Scenario& scenario);

/// The memory the schedule simulation takes: 2·p·v·m operations (order, timing, transfers and
/// the per-micro-batch ends, under 160 bytes each), refused above kMaxMemoryBytes
/// (core/work_limits.hpp, docs/limits.md).
std::vector<WorkEstimate> estimate_megatron_work(const Scenario& scenario);

/// Activation bytes of one layer and micro-batch on one rank (Korthikanti et al. 2022, above).
double megatron_layer_activation_bytes(const Scenario& scenario);

/// Parameters of one transformer layer on one rank (tensor-split matrices, replicated norms,
/// local experts), and of the whole layer before splitting.
double megatron_layer_parameters(const Scenario& scenario, bool per_rank);

/// Bytes the job reads from storage when every rank reads all it holds, Megatron-LM's load
/// without --ckpt-fully-parallel-load (checkpointing.py wraps the load strategy in
/// FullyParallelLoadStrategyWrapper only with that flag; megatron/core/dist_checkpointing):
///     L_every = Σ_ranks (Φ_r·w + C_r)
/// Φ_r the rank's parameters (a tensor and pipeline slice, its local experts), w their 16-bit
/// (or fp32) word, C_r its checkpoint shard (above: c·Φ_r over its data group under the
/// distributed optimizer, else c·Φ_r). The 16-bit parameters are held by every rank of the data
/// group (d·c of them; experts d·c/e), so each group reads them that many times.
double megatron_every_rank_load_bytes(const Scenario& scenario);

}  // namespace ckptsim
