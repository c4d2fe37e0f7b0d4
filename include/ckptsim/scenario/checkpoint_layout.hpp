#pragma once
// What a strategy's fields say about CPU memory: its checkpoint layout.
//
// Each strategy is one unit of the run layer (run/strategy.hpp). Its layout is declared here,
// beside its name (kinds.hpp), because the loader's checks (the replicas or coding groups must
// fit the cluster and its CPU memory), the iteration model (which copies the traffic scheduler
// plans) and the work estimate sit below the run layer, or must not depend on it. Code below the
// run layer asks the layout, never the kind.
#include "ckptsim/scenario/kinds.hpp"

namespace ckptsim {

enum class CheckpointLayout {
  none,              ///< nothing kept in CPU memory across failures (remote-periodic, remote-highfreq, none, shadow)
  replicas,          ///< m whole replicas by the placement, sent by the traffic scheduler (gemini, in-memory-blocking, moe-partial)
  partner_replicas,  ///< m whole replicas by the placement at a partner level (multi-level)
  erasure_code,      ///< shards plus p parity symbols per group of g (erasure-coded)
  replica_groups,    ///< nothing in CPU memory: G groups of N / G machines each train a whole copy of the model in GPU memory (torchft, diloco, just-in-time)
  staged_copy,       ///< one staging copy of the machine's own shard in pinned CPU memory, persisted in the background (async-two-phase)
};

/// Layouts that keep checkpoint copies in CPU memory.
constexpr bool layout_in_cpu_memory(CheckpointLayout layout) {
  return layout == CheckpointLayout::replicas || layout == CheckpointLayout::partner_replicas ||
         layout == CheckpointLayout::erasure_code;
}

constexpr CheckpointLayout checkpoint_layout(StrategyKind kind) {
  switch (kind) {
    case StrategyKind::gemini:
    case StrategyKind::in_memory_blocking:
    case StrategyKind::moe_partial: return CheckpointLayout::replicas;
    case StrategyKind::multi_level: return CheckpointLayout::partner_replicas;
    case StrategyKind::erasure_coded: return CheckpointLayout::erasure_code;
    case StrategyKind::torchft:
    case StrategyKind::diloco:
    case StrategyKind::just_in_time: return CheckpointLayout::replica_groups;
    case StrategyKind::async_two_phase: return CheckpointLayout::staged_copy;
    case StrategyKind::remote_periodic:
    case StrategyKind::remote_highfreq:
    case StrategyKind::none:
    // shadow: the live copy is on the shadow cluster's CPU machines, not the training machines'
    // CPU memory; the gradients it needs are the all-reduce's own (switch multicast).
    case StrategyKind::shadow: return CheckpointLayout::none;
  }
  return CheckpointLayout::none;
}

/// The layout keeps checkpoints in CPU memory (m replicas, or erasure-coded groups; the
/// placement and the GPU buffer of the traffic scheduler apply to them; multi-level: its partner
/// level).
constexpr bool keeps_checkpoints_in_memory(CheckpointLayout layout) { return layout_in_cpu_memory(layout); }

}  // namespace ckptsim
