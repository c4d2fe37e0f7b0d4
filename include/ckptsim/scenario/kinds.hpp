#pragma once
// The names a scenario chooses its models by, parsed once (by the loader) into enums.
//
// Each enum has one table of {value, name} below: the only list of its names. The loader
// parses a name into the enum, writers print name_of(value), the parameter listing and the
// registries of the layers above (strategy_registry(), placement_registry(),
// scheduler_registry(), failure_process_registry()) take their names from the same table, and
// model code switches on the enum (with -Wswitch a new value must be handled everywhere).
// Adding a model: add the value here with its name, then its registry entry (a test keeps the
// registries and these tables equal, in order).
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckptsim {

/// Checkpoint and recovery strategy (strategy.kind).
enum class StrategyKind {
  gemini,
  remote_periodic,
  remote_highfreq,
  in_memory_blocking,
  erasure_coded,
  multi_level,
  torchft,
  just_in_time,
  async_two_phase,
  diloco,
  none,
  moe_partial,
  shadow
};
/// Where the in-memory replicas of each machine's shard are kept (strategy.placement).
enum class PlacementScheme { group, ring, mixed, random, group_spread, clique };
/// How checkpoint traffic is laid into an iteration (strategy.scheduler).
enum class SchedulerKind { blocking, naive, single_buffer, gemini };
/// Failure process (failures.process).
enum class FailureProcessKind { exponential, weibull, trace, none };
/// Replacement-time distribution (failures.replacement.distribution).
enum class ReplacementDistribution { fixed, uniform, lognormal };
/// Heterogeneous per-machine failure rates, "lemon nodes" (failures.lemons.model).
enum class LemonModel { none, fraction, gamma };
/// The library that runs sharded data parallelism (training.engine; workload/engine.hpp).
enum class EngineKind { deepspeed_zero3, fsdp };
/// DeepSpeed ZeRO-3's parameter-coordinator trace state (training.zero3.trace).
enum class Zero3Trace { complete, invalid };
/// FSDP's sharding strategy (training.fsdp.sharding_strategy).
enum class FsdpSharding { full_shard, hybrid_shard };
/// FSDP's backward prefetch (training.fsdp.backward_prefetch).
enum class FsdpBackwardPrefetch { backward_pre, backward_post, none };
/// How attention is computed (training.attention; workload/kernels.hpp): separate score and
/// value GEMMs with masking, softmax and dropout kernels between them, or one fused kernel
/// (FlashAttention-2).
enum class AttentionKind { unfused, flash };
/// How the loss is computed (training.cross_entropy; workload/kernels.hpp, caching_allocator.hpp):
/// Megatron-LM's over fp32 logits, PyTorch's cross_entropy on the 16-bit logits (log_softmax and
/// nll_loss), or flash-attn's fused cross-entropy kernel.
enum class CrossEntropyKind { megatron_fp32, torch, fused };
/// How the GeLU after FC1 is computed (training.gelu; workload/kernels.hpp, caching_allocator.hpp):
/// one fused kernel that keeps its input for the backward (Megatron-LM's bias_gelu, PyTorch's
/// F.gelu), or the tanh approximation written as eight PyTorch operations (Hugging Face's
/// NewGELUActivation, "gelu_new", GPT-2's activation in transformers), which keep three more
/// tensors of the FFN's width for the backward.
enum class GeluKind { fused, unfused };
/// How the model is split over the GPUs (training.parallelism): ZeRO-3 sharded data parallelism
/// (training.engine runs it), or Megatron-LM's tensor, pipeline, data, context and expert
/// parallelism (training.megatron; workload/megatron_layout.hpp).
enum class Parallelism { zero3, megatron };
/// The network between the machines (cluster.network.topology; network/topology.hpp): every
/// NIC on one switch, or leaves of machines_per_leaf machines under a spine.
enum class NetworkTopology { single_switch, leaf_spine, fat_tree };
/// NCCL's collective algorithm in the iteration model (cluster.network.collective;
/// network/collectives.hpp): one ring over every GPU, or rings within and across machines.
enum class CollectiveAlgorithm { ring, hierarchical };
/// Megatron-LM's activation recomputation (--recompute-granularity; Korthikanti et al. 2022):
/// none, selective (the attention core only), or full (every layer from its input).
enum class Recomputation { none, selective, full };
/// The transport of TorchFT's all-reduce across replica groups (strategy.ft_transport;
/// run/strategies/torchft.cpp): NCCL on GPU tensors, or Gloo over TCP on CPU copies of them.
enum class FtTransport { nccl, gloo };
/// The restart tiers of the NVIDIA Resiliency Extension (failures.restart_tiers;
/// failure/restart_tiers.hpp): in-process (the wrapped training function restarts inside the
/// surviving processes), in-job (the launcher restarts every worker inside the same scheduler
/// job), new job (the scheduler starts the job again). Ordered: a later tier does more.
enum class RestartTier { in_process, in_job, new_job };

template <typename Enum>
struct EnumName {
  Enum value;
  std::string_view name;
};

/// The name table of each enum (specialised below).
template <typename Enum>
struct EnumNames;

template <>
struct EnumNames<StrategyKind> {
  static constexpr std::array<EnumName<StrategyKind>, 13> table{{{StrategyKind::gemini, "gemini"},
                                                                 {StrategyKind::remote_periodic, "remote-periodic"},
                                                                 {StrategyKind::remote_highfreq, "remote-highfreq"},
                                                                 {StrategyKind::in_memory_blocking, "in-memory-blocking"},
                                                                 {StrategyKind::erasure_coded, "erasure-coded"},
                                                                 {StrategyKind::multi_level, "multi-level"},
                                                                 {StrategyKind::torchft, "torchft"},
                                                                 {StrategyKind::just_in_time, "just-in-time"},
                                                                 {StrategyKind::async_two_phase, "async-two-phase"},
                                                                 {StrategyKind::diloco, "diloco"},
                                                                 {StrategyKind::none, "none"},
                                                                 {StrategyKind::moe_partial, "moe-partial"},
                                                                 {StrategyKind::shadow, "shadow"}}};
};

template <>
struct EnumNames<PlacementScheme> {
  static constexpr std::array<EnumName<PlacementScheme>, 6> table{{{PlacementScheme::group, "group"},
                                                                    {PlacementScheme::ring, "ring"},
                                                                    {PlacementScheme::mixed, "mixed"},
                                                                    {PlacementScheme::random, "random"},
                                                                    {PlacementScheme::group_spread, "group-spread"},
                                                                    {PlacementScheme::clique, "clique"}}};
};

template <>
struct EnumNames<SchedulerKind> {
  static constexpr std::array<EnumName<SchedulerKind>, 4> table{{{SchedulerKind::blocking, "blocking"},
                                                                  {SchedulerKind::naive, "naive"},
                                                                  {SchedulerKind::single_buffer, "single-buffer"},
                                                                  {SchedulerKind::gemini, "gemini"}}};
};

template <>
struct EnumNames<FailureProcessKind> {
  static constexpr std::array<EnumName<FailureProcessKind>, 4> table{{{FailureProcessKind::exponential, "exponential"},
                                                                       {FailureProcessKind::weibull, "weibull"},
                                                                       {FailureProcessKind::trace, "trace"},
                                                                       {FailureProcessKind::none, "none"}}};
};

template <>
struct EnumNames<ReplacementDistribution> {
  static constexpr std::array<EnumName<ReplacementDistribution>, 3> table{
      {{ReplacementDistribution::fixed, "fixed"},
       {ReplacementDistribution::uniform, "uniform"},
       {ReplacementDistribution::lognormal, "lognormal"}}};
};

template <>
struct EnumNames<RestartTier> {
  static constexpr std::array<EnumName<RestartTier>, 3> table{
      {{RestartTier::in_process, "in-process"}, {RestartTier::in_job, "in-job"}, {RestartTier::new_job, "new-job"}}};
};

template <>
struct EnumNames<LemonModel> {
  static constexpr std::array<EnumName<LemonModel>, 3> table{
      {{LemonModel::none, "none"}, {LemonModel::fraction, "fraction"}, {LemonModel::gamma, "gamma"}}};
};

template <>
struct EnumNames<EngineKind> {
  static constexpr std::array<EnumName<EngineKind>, 2> table{
      {{EngineKind::deepspeed_zero3, "deepspeed-zero3"}, {EngineKind::fsdp, "fsdp"}}};
};

template <>
struct EnumNames<Zero3Trace> {
  static constexpr std::array<EnumName<Zero3Trace>, 2> table{{{Zero3Trace::complete, "complete"}, {Zero3Trace::invalid, "invalid"}}};
};

template <>
struct EnumNames<FsdpSharding> {
  static constexpr std::array<EnumName<FsdpSharding>, 2> table{
      {{FsdpSharding::full_shard, "full-shard"}, {FsdpSharding::hybrid_shard, "hybrid-shard"}}};
};

template <>
struct EnumNames<FsdpBackwardPrefetch> {
  static constexpr std::array<EnumName<FsdpBackwardPrefetch>, 3> table{
      {{FsdpBackwardPrefetch::backward_pre, "backward-pre"},
       {FsdpBackwardPrefetch::backward_post, "backward-post"},
       {FsdpBackwardPrefetch::none, "none"}}};
};

template <>
struct EnumNames<AttentionKind> {
  static constexpr std::array<EnumName<AttentionKind>, 2> table{
      {{AttentionKind::unfused, "unfused"}, {AttentionKind::flash, "flash"}}};
};

template <>
struct EnumNames<CrossEntropyKind> {
  static constexpr std::array<EnumName<CrossEntropyKind>, 3> table{
      {{CrossEntropyKind::megatron_fp32, "megatron-fp32"}, {CrossEntropyKind::torch, "torch"}, {CrossEntropyKind::fused, "fused"}}};
};

template <>
struct EnumNames<GeluKind> {
  static constexpr std::array<EnumName<GeluKind>, 2> table{{{GeluKind::fused, "fused"}, {GeluKind::unfused, "unfused"}}};
};

template <>
struct EnumNames<Parallelism> {
  static constexpr std::array<EnumName<Parallelism>, 2> table{
      {{Parallelism::zero3, "zero3"}, {Parallelism::megatron, "megatron"}}};
};

template <>
struct EnumNames<Recomputation> {
  static constexpr std::array<EnumName<Recomputation>, 3> table{
      {{Recomputation::none, "none"}, {Recomputation::selective, "selective"}, {Recomputation::full, "full"}}};
};

template <>
struct EnumNames<FtTransport> {
  static constexpr std::array<EnumName<FtTransport>, 2> table{{{FtTransport::nccl, "nccl"}, {FtTransport::gloo, "gloo"}}};
};

template <>
struct EnumNames<NetworkTopology> {
  static constexpr std::array<EnumName<NetworkTopology>, 3> table{{{NetworkTopology::single_switch, "single-switch"},
                                                                      {NetworkTopology::leaf_spine, "leaf-spine"},
                                                                      {NetworkTopology::fat_tree, "fat-tree"}}};
};

template <>
struct EnumNames<CollectiveAlgorithm> {
  static constexpr std::array<EnumName<CollectiveAlgorithm>, 2> table{
      {{CollectiveAlgorithm::ring, "ring"}, {CollectiveAlgorithm::hierarchical, "hierarchical"}}};
};

/// The name of a value ("" cannot happen for a value of the enum: every value is in its table).
template <typename Enum>
constexpr std::string_view name_of(Enum value) {
  for (const auto& e : EnumNames<Enum>::table)
    if (e.value == value) return e.name;
  return {};
}

/// The value named `name`; nullopt for a name not in the table.
template <typename Enum>
constexpr std::optional<Enum> parse_name(std::string_view name) {
  for (const auto& e : EnumNames<Enum>::table)
    if (e.name == name) return e.value;
  return std::nullopt;
}

/// Every name of the enum, in table order.
template <typename Enum>
std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& e : EnumNames<Enum>::table) out.emplace_back(e.name);
  return out;
}

/// Group placements: groups of a fixed size that must divide the machine count.
constexpr bool is_group_placement(PlacementScheme scheme) {
  return scheme == PlacementScheme::group || scheme == PlacementScheme::group_spread;
}

}  // namespace ckptsim
