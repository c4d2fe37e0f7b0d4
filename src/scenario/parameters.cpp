// The table of scenario parameters (see parameters.hpp) and the listing derived from it.
#include "ckptsim/scenario/parameters.hpp"

#include <algorithm>

#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "field_format.hpp"

namespace ckptsim {

std::vector<std::string> strategy_kind_names() { return names_of<StrategyKind>(); }
std::vector<std::string> failure_process_names() { return names_of<FailureProcessKind>(); }
std::vector<std::string> scheduler_names() { return names_of<SchedulerKind>(); }
std::vector<std::string> topology_names() { return names_of<NetworkTopology>(); }
std::vector<std::string> collective_names() { return names_of<CollectiveAlgorithm>(); }
std::vector<std::string> replacement_distribution_names() { return names_of<ReplacementDistribution>(); }
std::vector<std::string> parallelism_names() { return names_of<Parallelism>(); }
std::vector<std::string> recomputation_names() { return names_of<Recomputation>(); }
std::vector<std::string> placement_names() { return names_of<PlacementScheme>(); }
std::vector<std::string> lemon_model_names() { return names_of<LemonModel>(); }
std::vector<std::string> restart_tier_names() { return names_of<RestartTier>(); }
std::vector<std::string> engine_names() { return names_of<EngineKind>(); }
std::vector<std::string> zero3_trace_names() { return names_of<Zero3Trace>(); }
std::vector<std::string> fsdp_sharding_names() { return names_of<FsdpSharding>(); }
std::vector<std::string> fsdp_backward_prefetch_names() { return names_of<FsdpBackwardPrefetch>(); }
std::vector<std::string> attention_names() { return names_of<AttentionKind>(); }
std::vector<std::string> cross_entropy_names() { return names_of<CrossEntropyKind>(); }
std::vector<std::string> gelu_names() { return names_of<GeluKind>(); }

namespace {

/// The fields only the megatron model reads are written into the effective scenario only there.
bool megatron_only(const Scenario& s) { return s.training.parallelism == Parallelism::megatron; }
bool zero3_only(const Scenario& s) { return s.training.parallelism == Parallelism::zero3; }
/// The restart-tier fields likewise only when the tiers are on (scenarios without them keep their hash).
bool restart_tiers_on(const Scenario& s) { return s.failures.restart_tiers.enabled; }

std::vector<Field> make_fields() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  // clang-format off
  return {
    {"/name", U::text, C::none, P::defaulted, "scenario name (default: the file name without extension)",
     [](Scenario& s) -> FieldRef { return &s.name; }},
    {"/seed", U::seed, C::none, P::alias, "same as /run/seed (give one of the two)",
     [](Scenario& s) -> FieldRef { return &s.run.seed; }},

    {"/cluster/instance", U::name, C::none, P::optional, "instance preset filling the machine fields below",
     [](Scenario& s) -> FieldRef { return &s.cluster.instance; }, &instance_preset_names},
    {"/cluster/machines", U::integer, C::at_least_one, P::required, "machines training (N)",
     [](Scenario& s) -> FieldRef { return &s.cluster.machines; }},
    {"/cluster/standby_machines", U::integer, C::non_negative, P::defaulted, "idle spares that replace failed machines at once",
     [](Scenario& s) -> FieldRef { return &s.cluster.standby_machines; }},
    {"/cluster/gpus_per_machine", U::integer, C::at_least_one, P::from_instance, "GPUs per machine",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpus_per_machine; }},
    {"/cluster/gpu", U::name, C::none, P::optional, "GPU type filling the GPU fields below (default: the instance preset's)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu; }, &gpu_type_names},
    {"/cluster/gpu_memory", U::bytes, C::positive, P::from_gpu, "memory per GPU",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_memory_bytes; }},
    {"/cluster/cpu_memory", U::bytes, C::positive, P::from_instance, "CPU memory per machine (holds in-memory checkpoints)",
     [](Scenario& s) -> FieldRef { return &s.cluster.cpu_memory_bytes; }},
    {"/cluster/network_bandwidth", U::bandwidth, C::positive, P::from_instance, "inter-machine bandwidth per machine, each direction",
     [](Scenario& s) -> FieldRef { return &s.cluster.network_bandwidth; }},
    {"/cluster/gpu_cpu_bandwidth", U::bandwidth, C::positive, P::from_instance, "GPU-to-CPU (PCIe) bandwidth per GPU, each direction",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_cpu_bandwidth; }},
    {"/cluster/nvlink_bandwidth", U::bandwidth, C::positive, P::from_gpu, "GPU-to-GPU bandwidth inside a machine per GPU, each direction",
     [](Scenario& s) -> FieldRef { return &s.cluster.nvlink_bandwidth; }},
    {"/cluster/gpu_peak_flops", U::flop_rate, C::positive, P::from_gpu, "peak dense FLOP rate per GPU at the training precision (data sheet)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_peak_flops; }},
    {"/cluster/gpu_memory_bandwidth", U::bandwidth, C::positive, P::from_gpu, "GPU memory (HBM) bandwidth per GPU (data sheet)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_memory_bandwidth; }},
    {"/cluster/gpu_sms", U::integer, C::at_least_one, P::gpu_kernel, "streaming multiprocessors (compute units) per GPU: the GEMM wave size",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.sms; }},
    {"/cluster/gpu_gemm_efficiency", U::number, C::unit_interval, P::gpu_kernel, "achieved fraction of gpu_peak_flops inside full GEMM waves (large-GEMM benchmark)",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.gemm_efficiency; }},
    {"/cluster/gpu_memory_efficiency", U::number, C::unit_interval, P::gpu_kernel, "achieved fraction of gpu_memory_bandwidth for memory-bound kernels (STREAM triad)",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.memory_efficiency; }},
    {"/cluster/gpu_flash_attention_efficiency", U::number, C::unit_interval, P::gpu_kernel, "achieved fraction of gpu_peak_flops of the fused attention kernel (FlashAttention-2, forward + backward); needed by training.attention \"flash\"",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.flash_efficiency; }},
    {"/cluster/gpu_kernel_launch", U::duration, C::non_negative, P::gpu_kernel, "time per kernel launch on top of its work",
     [](Scenario& s) -> FieldRef { return &s.cluster.kernels.launch_overhead; }},
    {"/cluster/gpudirect_rdma", U::boolean, C::none, P::defaulted, "the NIC reaches GPU memory directly; false: inter-node traffic is staged through host memory over PCIe (default: the instance preset's, else true)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpudirect_rdma; }},
    {"/cluster/network/topology", U::name, C::none, P::defaulted, "network topology",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.topology; }, &topology_names},
    {"/cluster/network/latency", U::duration, C::non_negative, P::defaulted, "latency per message",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.latency; }},
    {"/cluster/network/oversubscription", U::number, C::at_least_one, P::defaulted, "leaf-spine uplink oversubscription ratio",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.oversubscription; }},
    {"/cluster/network/machines_per_leaf", U::integer, C::at_least_one, P::defaulted, "machines under one leaf switch (leaf-spine, fat-tree)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.machines_per_leaf; }},
    {"/cluster/network/leaves_per_pod", U::integer, C::at_least_one, P::defaulted, "leaves under one pod's spine switches (fat-tree: leaf, pod spine, core)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.leaves_per_pod; }},
    {"/cluster/network/pod_oversubscription", U::number, C::at_least_one, P::defaulted, "fat-tree: oversubscription of a pod's uplinks to the core (beyond the leaves')",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.pod_oversubscription; }},
    {"/cluster/network/collective", U::name, C::none, P::defaulted, "collective algorithm of the iteration model (NCCL)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.collective; }, &collective_names},
    {"/cluster/network/collective_efficiency", U::number, C::unit_interval, P::defaulted, "achieved fraction of network_bandwidth for collectives (default: the instance preset's measurements at this machine count, else 1)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.collective_efficiency; }},
    {"/cluster/network/p2p_efficiency", U::number, C::unit_interval, P::defaulted, "achieved fraction of network_bandwidth for point-to-point checkpoint sends (default: the instance preset's, else 1)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.p2p_efficiency; }},

    {"/storage/bandwidth", U::bandwidth, C::positive, P::required, "remote persistent storage bandwidth, aggregate",
     [](Scenario& s) -> FieldRef { return &s.storage.bandwidth; }},

    {"/model/preset", U::name, C::none, P::optional, "model preset filling the architecture fields below",
     [](Scenario& s) -> FieldRef { return &s.model.preset; }, &model_preset_names},
    {"/model/parameters", U::number, C::positive, P::computed, "parameter count (default: from the architecture)",
     [](Scenario& s) -> FieldRef { return &s.model.parameters; }},
    {"/model/layers", U::integer, C::at_least_one, P::from_model, "transformer layers",
     [](Scenario& s) -> FieldRef { return &s.model.layers; }},
    {"/model/hidden", U::integer, C::at_least_one, P::from_model, "hidden size",
     [](Scenario& s) -> FieldRef { return &s.model.hidden; }},
    {"/model/ffn", U::integer, C::at_least_one, P::from_model, "feed-forward inner size",
     [](Scenario& s) -> FieldRef { return &s.model.ffn; }},
    {"/model/heads", U::integer, C::at_least_one, P::from_model, "attention heads (must divide hidden)",
     [](Scenario& s) -> FieldRef { return &s.model.heads; }},
    {"/model/vocabulary", U::integer, C::at_least_one, P::from_model, "vocabulary size",
     [](Scenario& s) -> FieldRef { return &s.model.vocabulary; }},
    {"/model/causal", U::boolean, C::none, P::defaulted, "causal (decoder) attention; false for encoders (default: the model preset's, else true)",
     [](Scenario& s) -> FieldRef { return &s.model.causal; }},
    {"/model/dropout", U::number, C::probability, P::defaulted, "dropout probability of the attention probabilities and the residual branches (0: no dropout kernels or masks) (default: the model preset's, else 0.1, Megatron-LM's)",
     [](Scenario& s) -> FieldRef { return &s.model.dropout; }},
    {"/model/kv_heads", U::integer, C::at_least_one, P::defaulted, "key/value heads (grouped-query attention; must divide heads) (default: the model preset's, else /model/heads); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.kv_heads; }, nullptr, {}, &megatron_only},
    {"/model/gated_ffn", U::boolean, C::none, P::defaulted, "gated feed-forward (SwiGLU: gate, up and down matrices) (default: the model preset's, else false); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.gated_ffn; }, nullptr, {}, &megatron_only},
    {"/model/tied_embeddings", U::boolean, C::none, P::defaulted, "the output projection shares the input embedding (default: the model preset's, else true); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.tied_embeddings; }, nullptr, {}, &megatron_only},
    {"/model/experts", U::integer, C::at_least_one, P::defaulted, "mixture of experts: expert FFNs per layer, each of /model/ffn (1: dense) (default: the model preset's); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.experts; }, nullptr, {}, &megatron_only},
    {"/model/experts_per_token", U::integer, C::at_least_one, P::defaulted, "mixture of experts: experts each token is routed to (top-k) (default: the model preset's); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.experts_per_token; }, nullptr, {}, &megatron_only},

    {"/training/parallelism", U::name, C::none, P::defaulted, "how the model is split: zero3 (sharded data parallelism, run by training.engine) or megatron (tensor, pipeline, data, context and expert parallelism: training.megatron)",
     [](Scenario& s) -> FieldRef { return &s.training.parallelism; }, &parallelism_names},
    {"/training/engine", U::name, C::none, P::defaulted, "the library that runs it: DeepSpeed ZeRO-3 (v0.7.3, GEMINI's) or PyTorch FSDP (workload/engine.hpp)",
     [](Scenario& s) -> FieldRef { return &s.training.engine; }, &engine_names},
    {"/training/micro_batch", U::integer, C::at_least_one, P::defaulted, "sequences per GPU per iteration",
     [](Scenario& s) -> FieldRef { return &s.training.micro_batch; }},
    {"/training/sequence_length", U::integer, C::at_least_one, P::defaulted, "tokens per sequence",
     [](Scenario& s) -> FieldRef { return &s.training.sequence_length; }},
    {"/training/checkpoint_bytes_per_parameter", U::number, C::positive, P::defaulted, "checkpointed bytes per parameter (Adam: 12)",
     [](Scenario& s) -> FieldRef { return &s.training.checkpoint_bytes_per_parameter; }},
    {"/training/serialization_bandwidth", U::bandwidth, C::positive, P::required, "per machine: snapshot to / reload from CPU memory",
     [](Scenario& s) -> FieldRef { return &s.training.serialization_bandwidth; }},
    {"/training/compute_efficiency", U::number, C::unit_interval, P::optional, "explicit override of the kernel model (a calibration result): every compute task takes FLOPs / (gpu_peak_flops x this)",
     [](Scenario& s) -> FieldRef { return &s.training.compute_efficiency; }},
    {"/training/attention", U::name, C::none, P::defaulted, "attention kernels: separate GEMMs, mask, softmax and dropout, or one fused FlashAttention-2 kernel",
     [](Scenario& s) -> FieldRef { return &s.training.attention; }, &attention_names},
    {"/training/cross_entropy", U::name, C::none, P::defaulted, "the loss: Megatron-LM's over fp32 logits (GPT-2 under DeepSpeed), PyTorch's cross_entropy on the 16-bit logits (Hugging Face models), or flash-attn's fused kernel (llm-foundry's MPT)",
     [](Scenario& s) -> FieldRef { return &s.training.cross_entropy; }, &cross_entropy_names},
    {"/training/gelu", U::name, C::none, P::defaulted, "the GeLU after FC1: one fused kernel that keeps its input (Megatron-LM, PyTorch's F.gelu), or the tanh approximation as eight PyTorch operations that keep three more FFN-wide tensors (Hugging Face's NewGELUActivation, GPT-2's gelu_new); zero3 only",
     [](Scenario& s) -> FieldRef { return &s.training.gelu; }, &gelu_names, {}, &zero3_only},
    {"/training/activation_recomputation", U::boolean, C::none, P::defaulted, "recompute activations in backward",
     [](Scenario& s) -> FieldRef { return &s.training.activation_recomputation; }},
    {"/training/mixed_precision", U::boolean, C::none, P::defaulted, "16-bit compute with fp32 master weights",
     [](Scenario& s) -> FieldRef { return &s.training.mixed_precision; }},
    {"/training/hook_host_time", U::duration, C::non_negative, P::defaulted, "host (Python) time of one engine hook call, on the host timeline before the GPU work it enqueues: DeepSpeed ZeRO-3's pre/post forward and backward submodule hooks (2 per submodule use), FSDP's pre/post forward and backward hooks (4 per unit); 0: not modelled, no published per-hook measurement was found (docs/models.md); zero3 only",
     [](Scenario& s) -> FieldRef { return &s.training.hook_host_time; }},
    {"/training/iteration_time", U::duration, C::positive, P::optional, "explicit iteration time; overrides the iteration model",
     [](Scenario& s) -> FieldRef { return &s.training.iteration_time; }},
    {"/training/megatron/tp", U::integer, C::at_least_one, P::defaulted, "megatron: tensor-parallel size (--tensor-model-parallel-size); a tensor group stays inside a machine's NVLink domain unless tp_across_machines",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.tp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/pp", U::integer, C::at_least_one, P::defaulted, "megatron: pipeline-parallel size (--pipeline-model-parallel-size)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.pp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/dp", U::integer, C::at_least_one, P::optional, "megatron: data-parallel size; tp x cp x dp x pp must equal the GPU count (default: GPUs / (tp x cp x pp))",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.dp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/cp", U::integer, C::at_least_one, P::defaulted, "megatron: context-parallel size (--context-parallel-size): the sequence split over cp ranks, keys and values passed round a ring",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.cp; }, nullptr, {}, &megatron_only},
    {"/training/megatron/ep", U::integer, C::at_least_one, P::defaulted, "megatron: expert-parallel size (--expert-model-parallel-size): the experts split over ep of the dp x cp ranks; must divide dp x cp and /model/experts",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.ep; }, nullptr, {}, &megatron_only},
    {"/training/megatron/virtual_stages", U::integer, C::at_least_one, P::defaulted, "megatron: model chunks per pipeline rank; more than 1 runs the interleaved 1F1B schedule (micro_batches mod microbatch_group_size 0 or >= pp)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.virtual_stages; }, nullptr, {}, &megatron_only},
    {"/training/megatron/micro_batches", U::integer, C::at_least_one, P::defaulted, "megatron: micro-batches of training.micro_batch sequences per pipeline per step (global batch / (micro batch x dp))",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.micro_batches; }, nullptr, {}, &megatron_only},
    {"/training/megatron/microbatch_group_size", U::integer, C::at_least_one, P::optional, "megatron: contiguous micro-batches per model chunk in the interleaved schedule (--microbatch-group-size-per-virtual-pipeline-stage), in [pp, micro_batches]; micro_batches mod it 0 or >= pp (default: pp)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.microbatch_group_size; }, nullptr, {}, &megatron_only},
    {"/training/megatron/deallocate_pipeline_outputs", U::boolean, C::none, P::defaulted, "megatron: free a stage's output tensor once it is sent to the next stage, keeping only its grad_fn (schedules.py deallocate_output_tensor; Megatron's training arguments set it); false holds it until the backward",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.deallocate_pipeline_outputs; }, nullptr, {}, &megatron_only},
    {"/training/megatron/first_stage_layers", U::integer, C::non_negative, P::optional, "megatron: layers of the first (virtual) pipeline stage (--decoder-first-pipeline-num-layers); the rest split evenly",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.first_stage_layers; }, nullptr, {}, &megatron_only},
    {"/training/megatron/last_stage_layers", U::integer, C::non_negative, P::optional, "megatron: layers of the last (virtual) pipeline stage (--decoder-last-pipeline-num-layers); the rest split evenly",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.last_stage_layers; }, nullptr, {}, &megatron_only},
    {"/training/megatron/sequence_parallel", U::boolean, C::none, P::defaulted, "megatron: sequence parallelism (--sequence-parallel): reduce-scatter + all-gather instead of all-reduce, norms and dropout on s/tp tokens",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.sequence_parallel; }, nullptr, {}, &megatron_only},
    {"/training/megatron/recomputation", U::name, C::none, P::defaulted, "megatron: activation recomputation (--recompute-granularity): none, selective (the attention core) or full (every layer)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.recomputation; }, &recomputation_names, {}, &megatron_only},
    {"/training/megatron/distributed_optimizer", U::boolean, C::none, P::defaulted, "megatron: shard the fp32 main parameters and Adam moments over the data-parallel group (--use-distributed-optimizer): gradients reduce-scattered, parameters all-gathered",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.distributed_optimizer; }, nullptr, {}, &megatron_only},
    {"/training/megatron/overlap_grad_reduce", U::boolean, C::none, P::defaulted, "megatron: run the data-parallel gradient reduce in buckets during the last micro-batch's backward (--overlap-grad-reduce)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.overlap_grad_reduce; }, nullptr, {}, &megatron_only},
    {"/training/megatron/overlap_param_gather", U::boolean, C::none, P::defaulted, "megatron: distributed optimizer's parameter all-gather under the next step's first forward (--overlap-param-gather)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.overlap_param_gather; }, nullptr, {}, &megatron_only},
    {"/training/megatron/grad_reduce_in_fp32", U::boolean, C::none, P::defaulted, "megatron: accumulate and reduce gradients in fp32 (--accumulate-allreduce-grads-in-fp32); else in the 16-bit training type",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.grad_reduce_in_fp32; }, nullptr, {}, &megatron_only},
    {"/training/megatron/tp_across_machines", U::boolean, C::none, P::defaulted, "megatron: allow a tensor group to span machines (its all-reduces then cross the network)",
     [](Scenario& s) -> FieldRef { return &s.training.megatron.tp_across_machines; }, nullptr, {}, &megatron_only},
    {"/training/zero3/prefetch_bucket_size", U::number, C::non_negative, P::defaulted, "parameters gathered ahead of use (DeepSpeed stage3_prefetch_bucket_size; 0: no prefetch)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.prefetch_bucket_size; }},
    {"/training/zero3/param_persistence_threshold", U::number, C::non_negative, P::defaulted, "parameters of at most this many elements stay gathered (stage3_param_persistence_threshold)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.param_persistence_threshold; }},
    {"/training/zero3/max_live_parameters", U::number, C::positive, P::defaulted, "cap on gathered parameters that prefetching respects (stage3_max_live_parameters)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.max_live_parameters; }},
    {"/training/zero3/max_reuse_distance", U::number, C::non_negative, P::defaulted, "a parameter used again within this many parameters stays gathered (stage3_max_reuse_distance)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.max_reuse_distance; }},
    {"/training/zero3/reduce_bucket_size", U::number, C::positive, P::defaulted, "gradient elements per reduce-scatter bucket (reduce_bucket_size)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.reduce_bucket_size; }},
    {"/training/zero3/sub_group_size", U::number, C::positive, P::defaulted, "parameter-partition elements the optimizer steps at once; sizes the step's fp32 gradient copy (sub_group_size)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.sub_group_size; }},
    {"/training/zero3/trace", U::name, C::none, P::defaulted, "DeepSpeed's submodule trace: complete (prefetch; the steady state of a model that runs its submodules in the same order every step) or invalid (recording or invalidated: every gather on demand, every module released after use)",
     [](Scenario& s) -> FieldRef { return &s.training.zero3.trace; }, &zero3_trace_names},
    {"/training/fsdp/sharding_strategy", U::name, C::none, P::defaulted, "FSDP ShardingStrategy: full-shard over every GPU, or hybrid-shard (shard within a machine, replicate across machines)",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.sharding_strategy; }, &fsdp_sharding_names},
    {"/training/fsdp/backward_prefetch", U::name, C::none, P::defaulted, "FSDP BackwardPrefetch: the next unit's all-gather before (backward-pre) or after (backward-post) this unit's gradient computation, or none",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.backward_prefetch; }, &fsdp_backward_prefetch_names},
    {"/training/fsdp/forward_prefetch", U::boolean, C::none, P::defaulted, "FSDP forward_prefetch: issue the next unit's all-gather before this unit's forward",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.forward_prefetch; }},
    {"/training/fsdp/limit_all_gathers", U::boolean, C::none, P::defaulted, "FSDP limit_all_gathers: the host waits for the oldest of 2 queued frees before another all-gather",
     [](Scenario& s) -> FieldRef { return &s.training.fsdp.limit_all_gathers; }},

    {"/strategy/kind", U::name, C::none, P::required, "checkpoint and recovery strategy",
     [](Scenario& s) -> FieldRef { return &s.strategy.kind; }, &strategy_kind_names},
    {"/strategy/replicas", U::integer, C::at_least_one, P::defaulted, "in-memory replicas m, the local one included",
     [](Scenario& s) -> FieldRef { return &s.strategy.replicas; }},
    {"/strategy/placement", U::name, C::none, P::defaulted, "replica placement scheme",
     [](Scenario& s) -> FieldRef { return &s.strategy.placement; }, &placement_names},
    {"/strategy/replication_jump", U::integer, C::at_least_one, P::defaulted, "clique placement: machines between successive holders of a checkpoint (NVIDIA Resiliency Extension's replication_jump over the GPUs per machine; 1 = consecutive machines, as group)",
     [](Scenario& s) -> FieldRef { return &s.strategy.replication_jump; }},
    {"/strategy/every_iterations", U::integer, C::at_least_one, P::defaulted, "in-memory checkpoint every k iterations",
     [](Scenario& s) -> FieldRef { return &s.strategy.every_iterations; }},
    {"/strategy/gpu_buffer", U::bytes, C::positive, P::defaulted, "receiver GPU buffer R for checkpoint chunks",
     [](Scenario& s) -> FieldRef { return &s.strategy.gpu_buffer_bytes; }},
    {"/strategy/sub_buffers", U::integer, C::at_least_one, P::defaulted, "pipelined sub-buffers p of the GPU buffer",
     [](Scenario& s) -> FieldRef { return &s.strategy.sub_buffers; }},
    {"/strategy/span_safety", U::number, C::unit_interval, P::defaulted, "usable share mu of each idle span",
     [](Scenario& s) -> FieldRef { return &s.strategy.span_safety; }},
    {"/strategy/scheduler", U::name, C::none, P::defaulted, "checkpoint traffic scheduler",
     [](Scenario& s) -> FieldRef { return &s.strategy.scheduler; }, &scheduler_names},
    {"/strategy/persistent_interval", U::duration_or_never, C::positive, P::defaulted, "persistent checkpoint interval of in-memory strategies (async-two-phase: of its uploads from the local tier), or \"never\"",
     [](Scenario& s) -> FieldRef { return &s.strategy.persistent_interval; }},
    {"/strategy/interval", U::duration, C::positive, P::defaulted, "remote-periodic checkpoint interval; just-in-time: its periodic fallback checkpoints' interval",
     [](Scenario& s) -> FieldRef { return &s.strategy.interval; }},
    {"/strategy/local_interval", U::duration, C::positive, P::defaulted, "multi-level: level-1 (own CPU memory) checkpoint interval",
     [](Scenario& s) -> FieldRef { return &s.strategy.local_interval; }},
    {"/strategy/partner_interval", U::duration, C::positive, P::defaulted, "multi-level: level-2 (partners' CPU memory) checkpoint interval",
     [](Scenario& s) -> FieldRef { return &s.strategy.partner_interval; }},
    {"/strategy/adaptive_interval", U::boolean, C::none, P::defaulted, "remote-periodic / multi-level (ignored by the others): set the persistent interval by Daly's formula from the failure rate seen so far",
     [](Scenario& s) -> FieldRef { return &s.strategy.adaptive_interval; }},
    {"/strategy/adaptive_prior_mtbf", U::duration, C::positive, P::defaulted, "adaptive interval: prior cluster MTBF (weight of one failure)",
     [](Scenario& s) -> FieldRef { return &s.strategy.adaptive_prior_mtbf; }},
    {"/strategy/checkpoint_stall", U::duration, C::non_negative, P::optional, "explicit training stall per checkpoint",
     [](Scenario& s) -> FieldRef { return &s.strategy.checkpoint_stall; }},
    {"/strategy/checkpoint_duration", U::duration, C::non_negative, P::optional, "explicit time from checkpoint start to completion",
     [](Scenario& s) -> FieldRef { return &s.strategy.checkpoint_duration; }},

    {"/strategy/group_size", U::integer, C::at_least_one, P::defaulted, "erasure-coded: machines per coding group g (must divide the machine count)",
     [](Scenario& s) -> FieldRef { return &s.strategy.group_size; }},
    {"/strategy/parity", U::integer, C::non_negative, P::defaulted, "erasure-coded: parity symbols p per stripe of g; a group survives any p replaced machines (1 <= p < g)",
     [](Scenario& s) -> FieldRef { return &s.strategy.parity; }},
    {"/strategy/encode_bandwidth", U::bandwidth, C::positive, P::defaulted, "erasure-coded: CPU encode/decode bandwidth per machine (GF(2^8) multiply-accumulate input)",
     [](Scenario& s) -> FieldRef { return &s.strategy.encode_bandwidth; }},

    // torchft (run/strategies/torchft.cpp; TorchFT, https://github.com/pytorch/torchft: the
    // README's two-group example, torchft/manager.py's Manager timeout, src/lighthouse.rs's
    // heartbeat_timeout_ms default, torchft/checkpointing/pg_transport.py's heal over the
    // process group).
    {"/strategy/replica_groups", U::integer, C::at_least_one, P::defaulted, "torchft / just-in-time: replica groups G (HSDP: each group of N / G machines holds a whole copy of the model state; at least 2, dividing the machine count; default 2, TorchFT's README example)",
     [](Scenario& s) -> FieldRef { return &s.strategy.replica_groups; }},
    {"/strategy/min_replica_groups", U::integer, C::at_least_one, P::defaulted, "torchft: fewest groups a step needs (TorchFT min_replica_size / lighthouse --min_replicas; at most replica_groups; default 1)",
     [](Scenario& s) -> FieldRef { return &s.strategy.min_replica_groups; }},
    {"/strategy/step_timeout", U::duration, C::positive, P::defaulted, "torchft: the longest the surviving groups wait in a failed step's collective (TorchFT Manager timeout, default 60 s)",
     [](Scenario& s) -> FieldRef { return &s.strategy.step_timeout; }},
    {"/strategy/heartbeat_timeout", U::duration, C::non_negative, P::defaulted, "torchft: time without a heartbeat after which the lighthouse drops a group from the next quorum (TorchFT lighthouse heartbeat_timeout_ms, default 5 s)",
     [](Scenario& s) -> FieldRef { return &s.strategy.heartbeat_timeout; }},
    {"/strategy/heal_bandwidth", U::bandwidth, C::positive, P::optional, "torchft: per-machine bandwidth a recovering group copies its state from a live peer at (default: the achieved point-to-point rate of a machine sending from GPU memory, p2p_efficiency x network_bandwidth, capped by PCIe without GPUDirect RDMA: TorchFT's process-group transport on the NIC)",
     [](Scenario& s) -> FieldRef { return &s.strategy.heal_bandwidth; }},
    // async-two-phase (run/strategies/async_two_phase.cpp): no published per-device figure is a
    // default for either field. A local tier is the user's own disks (FastPersist, DataStates-LLM
    // write to node-local NVMe), so its bandwidth is theirs to give; the background phase's
    // throughput cost is measured as the iteration time with and without a background write.
    {"/strategy/local_bandwidth", U::bandwidth, C::positive, P::optional, "async-two-phase: write and read bandwidth per machine of a local tier (node-local NVMe) that the background phase writes each checkpoint to before storage; absent: no local tier, the background phase writes to storage only",
     [](Scenario& s) -> FieldRef { return &s.strategy.local_bandwidth; }},
    {"/strategy/persist_throughput_cost", U::number, C::probability, P::defaulted, "async-two-phase: share of training throughput lost while the background phase (serialization, local and storage writes) runs, in [0, 1); default 0",
     [](Scenario& s) -> FieldRef { return &s.strategy.persist_throughput_cost; }},

    {"/failures/process", U::name, C::none, P::required, "failure process",
     [](Scenario& s) -> FieldRef { return &s.failures.process; }, &failure_process_names},
    {"/failures/rate", U::failure_rate, C::non_negative, P::when_process, "failures per machine per unit time (exponential): \"1.5%/machine/day\", or of the whole cluster, \"2/cluster/day\" (shared among /cluster/machines)",
     [](Scenario& s) -> FieldRef { return &s.failures.rate; }, nullptr, "exponential"},
    {"/failures/shape", U::number, C::positive, P::when_process, "Weibull shape k (weibull)",
     [](Scenario& s) -> FieldRef { return &s.failures.weibull_shape; }, nullptr, "weibull"},
    {"/failures/scale", U::duration, C::positive, P::when_process, "Weibull scale per machine (weibull)",
     [](Scenario& s) -> FieldRef { return &s.failures.weibull_scale; }, nullptr, "weibull"},
    {"/failures/trace", U::text, C::none, P::when_process, "failure trace CSV, relative to the scenario file (trace)",
     [](Scenario& s) -> FieldRef { return &s.failures.trace_file; }, nullptr, "trace"},
    {"/failures/hardware_fraction", U::fraction, C::none, P::defaulted, "share of failures that are hardware (need a replacement)",
     [](Scenario& s) -> FieldRef { return &s.failures.hardware_fraction; }},
    {"/failures/detection", U::duration, C::non_negative, P::defaulted, "time to detect a failure",
     [](Scenario& s) -> FieldRef { return &s.failures.detection; }},
    {"/failures/restart", U::duration, C::non_negative, P::defaulted, "warm-up after processes restart",
     [](Scenario& s) -> FieldRef { return &s.failures.restart; }},
    {"/failures/replacement/distribution", U::name, C::none, P::defaulted, "machine replacement time distribution (a bare duration = fixed)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.distribution; }, &replacement_distribution_names},
    {"/failures/replacement/value", U::duration, C::non_negative, P::defaulted, "replacement time (fixed)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.fixed; }},
    {"/failures/replacement/low", U::duration, C::non_negative, P::defaulted, "shortest replacement time (uniform)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.low; }},
    {"/failures/replacement/high", U::duration, C::non_negative, P::defaulted, "longest replacement time (uniform)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.high; }},
    {"/failures/replacement/median", U::duration, C::positive, P::defaulted, "median replacement time (lognormal)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.median; }},
    {"/failures/replacement/sigma", U::number, C::non_negative, P::defaulted, "log-space standard deviation (lognormal)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.sigma; }},

    {"/failures/causes", U::cause_table, C::none, P::optional, "cause table: a preset name or [{name, share, outcome, detection, restart}]; sets each failure's outcome instead of hardware_fraction",
     [](Scenario& s) -> FieldRef { return &s.failures.causes; }},
    {"/failures/domains/rack/machines", U::integer, C::non_negative, P::defaulted, "machines per rack (consecutive indices); 0 = no rack failures",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[0].machines; }},
    {"/failures/domains/rack/rate", U::failure_rate, C::non_negative, P::defaulted, "failures per rack per unit time (all its machines at once): \"0.06%/domain/day\", or of all racks together, \"2/cluster/day\" (shared among the racks)",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[0].rate; }},
    {"/failures/domains/rack/hardware_fraction", U::fraction, C::none, P::defaulted, "share of rack failures whose machines lose CPU memory and are replaced",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[0].hardware_fraction; }},
    {"/failures/domains/leaf/machines", U::integer, C::non_negative, P::defaulted, "machines per leaf switch (consecutive indices); 0 = no switch failures",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[1].machines; }},
    {"/failures/domains/leaf/rate", U::failure_rate, C::non_negative, P::defaulted, "failures per leaf switch per unit time (all its machines at once): \"0.06%/domain/day\", or of all leaf switches together, \"2/cluster/day\"",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[1].rate; }},
    {"/failures/domains/leaf/hardware_fraction", U::fraction, C::none, P::defaulted, "share of switch failures whose machines lose CPU memory (a switch failure alone keeps it)",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[1].hardware_fraction; }},
    {"/failures/domains/power/machines", U::integer, C::non_negative, P::defaulted, "machines per power domain (consecutive indices); 0 = no power failures",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[2].machines; }},
    {"/failures/domains/power/rate", U::failure_rate, C::non_negative, P::defaulted, "failures per power domain per unit time (all its machines at once): \"0.06%/domain/day\", or of all power domains together, \"2/cluster/day\"",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[2].rate; }},
    {"/failures/domains/power/hardware_fraction", U::fraction, C::none, P::defaulted, "share of power failures whose machines lose CPU memory and are replaced",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[2].hardware_fraction; }},
    {"/failures/lemons/model", U::name, C::none, P::defaulted, "per-machine rate heterogeneity (exponential and weibull processes)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.model; }, &lemon_model_names},
    {"/failures/lemons/fraction", U::fraction, C::none, P::defaulted, "share of machines that are lemons (fraction model)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.fraction; }},
    {"/failures/lemons/multiple", U::number, C::at_least_one, P::defaulted, "a lemon's failure rate / the base rate (fraction model)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.multiple; }},
    {"/failures/lemons/gamma_shape", U::number, C::positive, P::defaulted, "shape k of the Gamma(k, 1/k) rate multiplier per machine (gamma model)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.gamma_shape; }},
    {"/failures/lemons/quarantine_failures", U::integer, C::non_negative, P::defaulted, "replace a machine by a fresh one (base rate) at its k-th failure within the window; 0 = never",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.quarantine_failures; }},
    {"/failures/lemons/quarantine_window", U::duration, C::positive, P::defaulted, "window of the quarantine rule",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.quarantine_window; }},
    // Fault-model features (failure/fault_model.hpp; defaults and their sources in docs/models.md).
    {"/failures/hangs/fraction", U::fraction, C::none, P::defaulted, "share of failures that hang (processes alive, stuck in a collective) instead of crashing; detected by timeouts",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.fraction; }},
    {"/failures/hangs/collective_timeout", U::duration, C::positive, P::defaulted, "collective watchdog timeout (PyTorch ProcessGroupNCCL default 10 min)",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.collective_timeout; }},
    {"/failures/hangs/heartbeat_safety_factor", U::number, C::positive, P::defaulted, "heartbeat timeout / iteration time (NVIDIA Resiliency Extension safety_factor, heartbeats once per iteration)",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.heartbeat_safety_factor; }},
    {"/failures/hangs/check_interval", U::duration, C::non_negative, P::defaulted, "how often the rank monitor checks its timeouts (NVIDIA Resiliency Extension workload_check_interval)",
     [](Scenario& s) -> FieldRef { return &s.failures.hangs.check_interval; }},
    {"/failures/stragglers/rate", U::failure_rate, C::non_negative, P::defaulted, "fail-slow onsets per machine per unit time (\"/machine/\"), or of the whole cluster (\"/cluster/\"); 0 = none",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.rate; }},
    {"/failures/stragglers/speed", U::fraction, C::positive, P::defaulted, "the synchronous job's throughput while a straggler is present, as a fraction of healthy",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.speed; }},
    {"/failures/stragglers/duration", U::duration, C::positive, P::defaulted, "mean straggler duration (exponential) when not evicted",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.duration; }},
    {"/failures/stragglers/eviction", U::duration_or_never, C::positive, P::defaulted, "from a straggler's onset to its eviction (straggler detection + decision; the machine is replaced as after a hardware failure), or \"never\"",
     [](Scenario& s) -> FieldRef { return &s.failures.stragglers.eviction; }},
    {"/failures/misdiagnosis/fraction", U::fraction, C::none, P::defaulted, "share of hardware failures whose diagnosis evicts a healthy machine (the faulty one fails again)",
     [](Scenario& s) -> FieldRef { return &s.failures.misdiagnosis.fraction; }},
    {"/failures/misdiagnosis/recurrence", U::duration, C::positive, P::defaulted, "mean time (exponential) until a misdiagnosed fault recurs",
     [](Scenario& s) -> FieldRef { return &s.failures.misdiagnosis.recurrence; }},
    {"/failures/silent_corruption/rate", U::failure_rate, C::non_negative, P::defaulted, "silent data corruptions per machine per unit time (\"/machine/\"), or of the whole cluster (\"/cluster/\"); 0 = none",
     [](Scenario& s) -> FieldRef { return &s.failures.silent_corruption.rate; }},
    {"/failures/silent_corruption/detection", U::duration, C::positive, P::defaulted, "from a corruption to its detection (loss spike, checksum); the run rolls back to a state before it",
     [](Scenario& s) -> FieldRef { return &s.failures.silent_corruption.detection; }},
    {"/failures/migration/fraction", U::fraction, C::none, P::defaulted, "share of single-machine hardware failures announced early enough to move the machine's state to a free standby before it fails (0 = no live migration)",
     [](Scenario& s) -> FieldRef { return &s.failures.migration.fraction; }},
    {"/failures/migration/pause", U::duration, C::positive, P::optional, "the job's pause per migration (default: the machine's checkpoint state sent at the achieved point-to-point rate, plus the in-process restart latency)",
     [](Scenario& s) -> FieldRef { return &s.failures.migration.pause; }},
    // Elastic restart (failure/elastic.hpp, docs/models.md "Elastic restart").
    {"/failures/elastic/min_machines", U::integer, C::at_least_one, P::optional, "restart without a lost machine's data-parallel replica when no standby is free, down to this many machines, and grow back when the replacement arrives (torchrun --nnodes MIN; absent = wait for the replacement)",
     [](Scenario& s) -> FieldRef { return &s.failures.elastic.min_machines; }},
    {"/failures/elastic/reshard", U::duration, C::positive, P::optional, "time of one resharding of the training state to a new machine count (default: a machine's new share of the checkpoint state received at the achieved point-to-point rate)",
     [](Scenario& s) -> FieldRef { return &s.failures.elastic.reshard; }},
    // Restart tiers (failure/restart_tiers.hpp; nvidia-resiliency-ext defaults, docs/models.md).
    {"/failures/restart_tiers/enabled", U::boolean, C::none, P::defaulted, "restart through the NVIDIA Resiliency Extension's tiers (in-process, in-job, new job) instead of the cause's flat restart",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.enabled; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/software", U::name, C::none, P::defaulted, "tier that restarts after a crash that leaves the machine intact",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.software; }, &restart_tier_names, {}, &restart_tiers_on},
    {"/failures/restart_tiers/hang", U::name, C::none, P::defaulted, "tier that restarts after a hang (in-process: found by the soft timeout, unless the in-job heartbeat finds it first)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.hang; }, &restart_tier_names, {}, &restart_tiers_on},
    {"/failures/restart_tiers/hardware", U::name, C::none, P::defaulted, "tier that restarts after a lost machine when a standby is free (in-process: a pre-initialized reserve worker); with none free, a new job",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.hardware; }, &restart_tier_names, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_process/latency", U::duration, C::non_negative, P::defaulted, "in-process restart beyond one iteration of pending CUDA kernels (Wrapper: destroy_process_group, last_call_wait, rank_assignment, barrier)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.in_process_latency; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_process/soft_timeout", U::duration, C::positive, P::defaulted, "in-process Wrapper soft_timeout: a rank without progress this long aborts and restarts",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.soft_timeout; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_process/monitor_interval", U::duration, C::non_negative, P::defaulted, "in-process Wrapper monitor_process_interval (a hang is found soft_timeout + this after its last progress)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.monitor_interval; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/in_job/latency", U::duration, C::non_negative, P::optional, "in-job restart: every worker restarts inside the job (default: the failure cause's restart)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.in_job_latency; }, nullptr, {}, &restart_tiers_on},
    {"/failures/restart_tiers/new_job/overhead", U::duration, C::non_negative, P::defaulted, "a new scheduler job's time beyond an in-job restart (allocation, container start; site-specific, default 0)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart_tiers.new_job_overhead; }, nullptr, {}, &restart_tiers_on},

    {"/run/duration", U::duration, C::positive, P::optional, "simulated wall-clock length (give duration or iterations)",
     [](Scenario& s) -> FieldRef { return &s.run.duration; }},
    {"/run/iterations", U::integer, C::at_least_one, P::optional, "training iterations to complete (give duration or iterations)",
     [](Scenario& s) -> FieldRef { return &s.run.iterations; }},
    {"/run/replicas", U::integer, C::at_least_one, P::defaulted, "Monte Carlo replicas",
     [](Scenario& s) -> FieldRef { return &s.run.replicas; }},
    {"/run/seed", U::seed, C::none, P::defaulted, "random seed",
     [](Scenario& s) -> FieldRef { return &s.run.seed; }},
  };
  // clang-format on
}

std::string join_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += " | ";
    out += n;
  }
  return out;
}

std::string unit_label(const Field& f) {
  switch (f.unit) {
    case Unit::text: return "text";
    case Unit::name:
      // Presets are many and listed on their own by `ckptsim list`.
      if (f.choices == &instance_preset_names) return "instance preset name";
      if (f.choices == &model_preset_names) return "model preset name";
      if (f.choices == &gpu_type_names) return "GPU type name";
      return join_names(f.choices());
    case Unit::integer: return "integer";
    case Unit::seed: return "integer 0 .. 2^63-1";
    case Unit::number: return "number";
    case Unit::fraction: return "fraction";
    case Unit::boolean: return "boolean";
    case Unit::duration: return "duration";
    case Unit::duration_or_never: return "duration | never";
    case Unit::bytes: return "bytes";
    case Unit::bandwidth: return "bandwidth";
    case Unit::failure_rate: return "failure rate";
    case Unit::flop_rate: return "FLOP rate";
    case Unit::cause_table: return "cause preset name | array";
  }
  return "";
}

std::string default_label(const Field& f) {
  switch (f.presence) {
    case Presence::required: return "required";
    case Presence::from_instance: return "instance preset";
    case Presence::from_gpu: return "GPU type";
    case Presence::gpu_kernel: return "GPU type";
    case Presence::from_model: return "model preset";
    case Presence::computed: return "architecture";
    case Presence::optional: return "not set";
    case Presence::alias: return "-";
    case Presence::when_process: return "required if " + std::string(f.when);
    case Presence::defaulted: break;
  }
  if (f.pointer == "/name") return "file name";
  Scenario defaults;
  const nlohmann::json value = format_field(f, defaults);
  return value.is_string() ? value.get<std::string>() : value.dump();
}

}  // namespace

const std::vector<Field>& scenario_fields() {
  static const std::vector<Field> fields = make_fields();
  return fields;
}

const Field* find_field(std::string_view pointer) {
  const auto& fields = scenario_fields();
  auto it = std::find_if(fields.begin(), fields.end(), [&](const Field& f) { return f.pointer == pointer; });
  return it == fields.end() ? nullptr : &*it;
}

std::vector<ParameterDoc> scenario_parameters() {
  std::vector<ParameterDoc> out;
  for (const Field& f : scenario_fields())
    out.push_back({std::string(f.pointer), unit_label(f), default_label(f), std::string(f.description)});
  return out;
}

std::string unit_expectation(Unit unit) {
  switch (unit) {
    case Unit::text: return "a string";
    case Unit::name: return "a name";
    case Unit::integer: return "an integer";
    case Unit::seed: return "an integer from 0 to 2^63-1 (9223372036854775807)";
    case Unit::number: return "a number";
    case Unit::fraction: return "a fraction in [0, 1] such as 0.5 or \"50%\"";
    case Unit::boolean: return "true or false";
    case Unit::duration: return "a duration such as \"15s\", \"5min\", \"3h\" or \"30d\" (or a number of seconds)";
    case Unit::duration_or_never: return "a duration such as \"3h\", or \"never\"";
    case Unit::bytes: return "a size such as \"128MiB\" or \"1.2TB\" (or a number of bytes)";
    case Unit::bandwidth: return "a bandwidth such as \"400Gbps\" or \"25GB/s\"";
    case Unit::failure_rate: return "a failure rate such as \"1.5%/machine/day\"";
    case Unit::flop_rate: return "a FLOP rate such as \"312TFLOPS\"";
    case Unit::cause_table:
      return "a cause preset name (" + join_names(cause_preset_names()) +
             ") or an array of {\"name\", \"share\", \"outcome\": \"software\"|\"hardware\", \"detection\", \"restart\"}";
  }
  return "";
}

}  // namespace ckptsim
