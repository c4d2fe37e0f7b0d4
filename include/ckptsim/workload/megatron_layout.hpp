#pragma once
// Megatron-LM's parallel layout: which GPU holds which part of the model, which groups it
// communicates in, and what a machine failure takes with it.
//
// Source: Megatron-LM, megatron/core/parallel_state.py (initialize_model_parallel, the default
// order "tp-cp-ep-dp-pp": tensor ranks vary fastest, then context, data, and pipeline slowest),
// megatron/training/arguments.py (the checks the scenario loader restates, scenario/checks.cpp).
// Symbols: t = tp, c = cp, d = dp, p = pp, e = ep, G GPUs per machine, rank n in [0, t·c·d·p):
//   n = i_t + t·(i_c + c·(i_d + d·i_p))
//   tensor group: the t ranks sharing (i_c, i_d, i_p)       (consecutive: one NVLink domain when t | G)
//   context group: the c ranks sharing (i_t, i_d, i_p)
//   data group of the dense parameters: the d·c ranks sharing (i_t, i_p) (Megatron reduces
//     gradients over data x context; the distributed optimizer shards over it)
//   expert-data group: d·c / e ranks (the expert parameters' replicas)
//   pipeline group: the p ranks sharing (i_t, i_c, i_d); a model replica is the t·c·p ranks of
//     one i_d
//   machine of rank n: n div G
// Layers: the L layers run through the v·p virtual stages in order (virtual stage k = chunk·p +
// pipeline rank); the first and last virtual stages may hold fixed counts
// (--decoder-first/last-pipeline-num-layers), the others split the rest evenly.
// Blast radius of a machine failure: the G ranks on it stop; each belongs to a tensor group and a
// pipeline, so the model replicas (data-parallel indices) it holds parts of cannot step; and
// because the data-parallel gradient reduction is synchronous, every rank of the job waits.
// The 16-bit parameters of a failed rank have d·c - 1 copies on its data group (when d·c > 1);
// under the distributed optimizer its fp32 main parameters and Adam moments are one shard of d·c
// and exist nowhere else (Megatron's distributed optimizer, docs/source/distrib_optimizer.md).
#include <cstdint>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct RankCoordinates {
  int tp = 0, cp = 0, dp = 0, pp = 0;
};

/// The ranks a machine failure touches.
struct BlastRadius {
  int machine = 0;
  std::vector<std::int64_t> failed_ranks;       ///< the ranks on the machine
  std::vector<int> stalled_replicas;            ///< data-parallel indices whose model replica lost a part
  std::vector<int> stalled_stages;              ///< pipeline ranks with a failed member
  std::int64_t stalled_replica_ranks = 0;       ///< ranks of those replicas (t·c·p each)
  std::int64_t stopped_ranks = 0;               ///< every rank: the data-parallel reduce is synchronous
  bool parameters_replicated = false;           ///< every failed rank's 16-bit parameters live on a data peer
  bool optimizer_replicated = false;            ///< ... and its optimizer state (not under the distributed optimizer)
};

class MegatronLayout {
 public:
  /// The scenario's layout (the loader has checked it; throws ModelError on one it did not).
  static MegatronLayout from(const Scenario& scenario);
  MegatronLayout(int tp, int cp, std::int64_t dp, int pp, int ep, int virtual_stages, int gpus_per_machine,
                 bool distributed_optimizer);

  [[nodiscard]] int tp() const { return tp_; }
  [[nodiscard]] int cp() const { return cp_; }
  [[nodiscard]] int dp() const { return static_cast<int>(dp_); }
  [[nodiscard]] int pp() const { return pp_; }
  [[nodiscard]] int ep() const { return ep_; }
  [[nodiscard]] int virtual_stages() const { return v_; }
  [[nodiscard]] int gpus_per_machine() const { return gpm_; }
  [[nodiscard]] std::int64_t world() const { return static_cast<std::int64_t>(tp_) * cp_ * dp_ * pp_; }
  [[nodiscard]] std::int64_t machines() const { return world() / gpm_; }

  [[nodiscard]] RankCoordinates coordinates(std::int64_t rank) const;
  [[nodiscard]] std::int64_t rank_of(const RankCoordinates& c) const;
  [[nodiscard]] std::int64_t machine_of(std::int64_t rank) const { return rank / gpm_; }
  /// Machines a group of `size` ranks spaced `stride` apart spans (1: one NVLink domain).
  [[nodiscard]] std::int64_t machines_spanned(std::int64_t size, std::int64_t stride) const;
  /// Machines spanned by each kind of group (the same for every group of a kind, by symmetry).
  [[nodiscard]] std::int64_t tensor_group_machines() const { return machines_spanned(tp_, 1); }
  [[nodiscard]] std::int64_t context_group_machines() const { return machines_spanned(cp_, tp_); }
  [[nodiscard]] std::int64_t data_group_machines() const;  ///< the d·c ranks of the dense gradients
  [[nodiscard]] std::int64_t expert_group_machines() const;  ///< the e ranks of an all-to-all
  /// Ranks and machines of the gradient-statistics groups of the non-distributed optimizer:
  /// Megatron's model-parallel group ("tp-pp": the t·p ranks sharing (i_c, i_d)) or, for the
  /// expert optimizer, the expert tensor-model-pipeline group ("tp-ep-pp": t·e·p ranks, the
  /// expert ranks consecutive after the tensor ranks).
  [[nodiscard]] std::int64_t model_group_size(bool experts) const;
  [[nodiscard]] std::int64_t model_group_machines(bool experts) const;
  /// True when pipeline neighbours sit on different machines.
  [[nodiscard]] bool pipeline_crosses_machines() const { return static_cast<std::int64_t>(tp_) * cp_ * dp_ >= gpm_; }

  [[nodiscard]] BlastRadius machine_failure(std::int64_t machine) const;
  /// True when machine `b` (not `a`) holds the same model slices as `a`: the (tensor, pipeline)
  /// indices of its ranks are those of a's, so its ranks are data-parallel peers of a's. A
  /// checkpoint copy placed there sits beside GPUs that hold the same 16-bit parameters (only
  /// the distributed optimizer's shards differ); a copy on any other machine holds state that
  /// machine's GPUs do not.
  [[nodiscard]] bool data_peer_machines(std::int64_t a, std::int64_t b) const;
  /// For each machine, its unit: machines are in one unit when they hold ranks of a common model
  /// replica, directly or through other machines (the sets a data-parallel shrink removes whole),
  /// numbered 0, 1, ... in order of their first machine. With t·c ≥ G a unit is the t·c·p / G
  /// machines of one replica; with t·c < G, the p machines of G / (t·c) replicas.
  [[nodiscard]] std::vector<int> replica_units() const;

 private:
  int tp_ = 1, cp_ = 1;
  std::int64_t dp_ = 1;
  int pp_ = 1, ep_ = 1, v_ = 1, gpm_ = 1;
  bool distributed_optimizer_ = false;
};

/// Layers of each virtual stage, in model order (virtual stage k = chunk·p + pipeline rank).
/// Throws ModelError when they do not split as the scenario says (the loader checks it first).
std::vector<int> virtual_stage_layers(const Scenario& scenario);

}  // namespace ckptsim
