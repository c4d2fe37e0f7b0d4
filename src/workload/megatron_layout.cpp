// Megatron-LM's parallel layout (megatron_layout.hpp).
#include "ckptsim/workload/megatron_layout.hpp"

#include <algorithm>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

MegatronLayout MegatronLayout::from(const Scenario& s) {
  const MegatronSpec& g = s.training.megatron;
  if (!g.dp) throw ModelError("/training/megatron/dp", "the data-parallel size is not set (the loader fills it)");
  return MegatronLayout(g.tp, g.cp, *g.dp, g.pp, g.ep, g.virtual_stages, std::max(1, s.cluster.gpus_per_machine),
                        g.distributed_optimizer);
}

MegatronLayout::MegatronLayout(int tp, int cp, std::int64_t dp, int pp, int ep, int virtual_stages, int gpus_per_machine,
                               bool distributed_optimizer)
    : tp_(tp), cp_(cp), dp_(dp), pp_(pp), ep_(ep), v_(virtual_stages), gpm_(gpus_per_machine),
      distributed_optimizer_(distributed_optimizer) {
  if (tp < 1 || cp < 1 || dp < 1 || pp < 1 || ep < 1 || virtual_stages < 1 || gpus_per_machine < 1)
    throw ModelError("/training/megatron", "every parallel size must be at least 1");
  if (world() % gpm_ != 0)
    throw ModelError("/training/megatron", fmt::format("{} ranks do not fill machines of {} GPUs", world(), gpm_));
}

RankCoordinates MegatronLayout::coordinates(std::int64_t rank) const {
  RankCoordinates c;
  c.tp = static_cast<int>(rank % tp_);
  rank /= tp_;
  c.cp = static_cast<int>(rank % cp_);
  rank /= cp_;
  c.dp = static_cast<int>(rank % dp_);
  c.pp = static_cast<int>(rank / dp_);
  return c;
}

std::int64_t MegatronLayout::rank_of(const RankCoordinates& c) const {
  return c.tp + static_cast<std::int64_t>(tp_) * (c.cp + static_cast<std::int64_t>(cp_) * (c.dp + dp_ * c.pp));
}

std::int64_t MegatronLayout::machines_spanned(std::int64_t size, std::int64_t stride) const {
  // Group 0 (rank 0, stride apart); every group of the kind is a translate of it.
  if (stride >= gpm_) return stride % gpm_ == 0 ? size : std::min<std::int64_t>(size, size * stride / gpm_ + 1);
  const std::int64_t last = (size - 1) * stride;
  return last / gpm_ + 1;
}

std::int64_t MegatronLayout::data_group_machines() const { return machines_spanned(dp_ * cp_, tp_); }
std::int64_t MegatronLayout::expert_group_machines() const { return machines_spanned(ep_, tp_); }

std::int64_t MegatronLayout::model_group_size(bool experts) const {
  return static_cast<std::int64_t>(tp_) * (experts ? ep_ : 1) * pp_;
}

std::int64_t MegatronLayout::model_group_machines(bool experts) const {
  // Blocks of b consecutive ranks (the tensor ranks, with the expert ranks after them), one per
  // pipeline rank, t·c·d apart: the machines each block covers, counted once (ascending).
  const std::int64_t b = static_cast<std::int64_t>(tp_) * (experts ? ep_ : 1);
  const std::int64_t stride = static_cast<std::int64_t>(tp_) * cp_ * dp_;
  std::int64_t count = 0, last = -1;
  for (std::int64_t k = 0; k < pp_; ++k) {
    const std::int64_t first = k * stride / gpm_, end = (k * stride + b - 1) / gpm_;
    count += end - std::max(first, last + 1) + 1;
    last = end;
  }
  return count;
}

BlastRadius MegatronLayout::machine_failure(std::int64_t machine) const {
  if (machine < 0 || machine >= machines())
    throw ModelError("/cluster/machines", fmt::format("machine {} is not one of the {} machines", machine, machines()));
  BlastRadius b;
  b.machine = static_cast<int>(machine);
  std::set<int> replicas, stages;
  for (std::int64_t r = machine * gpm_; r < (machine + 1) * gpm_; ++r) {
    b.failed_ranks.push_back(r);
    const RankCoordinates c = coordinates(r);
    replicas.insert(c.dp);
    stages.insert(c.pp);
  }
  b.stalled_replicas.assign(replicas.begin(), replicas.end());
  b.stalled_stages.assign(stages.begin(), stages.end());
  b.stalled_replica_ranks = static_cast<std::int64_t>(b.stalled_replicas.size()) * tp_ * cp_ * pp_;
  b.stopped_ranks = world();
  // A rank's data peers share (i_t, i_p) and differ in (i_c, i_d). They all sit on the failed
  // machine only when the whole data group does.
  const bool peers_elsewhere = dp_ * cp_ > 1 && data_group_machines() > 1;
  b.parameters_replicated = peers_elsewhere;
  b.optimizer_replicated = peers_elsewhere && !distributed_optimizer_;
  return b;
}

bool MegatronLayout::data_peer_machines(std::int64_t a, std::int64_t b) const {
  if (a == b || a < 0 || b < 0 || a >= machines() || b >= machines()) return false;
  auto slices = [&](std::int64_t machine) {
    std::set<std::pair<int, int>> out;
    for (std::int64_t r = machine * gpm_; r < (machine + 1) * gpm_; ++r) {
      const RankCoordinates c = coordinates(r);
      out.insert({c.tp, c.pp});
    }
    return out;
  };
  return slices(a) == slices(b);
}

std::vector<int> MegatronLayout::replica_units() const {
  // Union-find over machines: every machine joins the first machine seen holding each of its
  // replicas. The union is by smaller index, so a root is its unit's first machine.
  const auto n = static_cast<std::size_t>(machines());
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  const auto root = [&](std::size_t m) {
    while (parent[m] != m) m = parent[m] = parent[parent[m]];
    return m;
  };
  std::vector<std::int64_t> first_holder(static_cast<std::size_t>(dp_), -1);
  for (std::size_t m = 0; m < n; ++m) {
    for (std::int64_t r = static_cast<std::int64_t>(m) * gpm_; r < static_cast<std::int64_t>(m + 1) * gpm_; ++r) {
      auto& holder = first_holder[static_cast<std::size_t>(coordinates(r).dp)];
      if (holder < 0) {
        holder = static_cast<std::int64_t>(m);
        continue;
      }
      const std::size_t a = root(m), b = root(static_cast<std::size_t>(holder));
      if (a != b) parent[std::max(a, b)] = std::min(a, b);
    }
  }
  std::vector<int> unit(n, -1);
  std::vector<int> index_of_root(n, -1);
  int next = 0;
  for (std::size_t m = 0; m < n; ++m) {
    auto& id = index_of_root[root(m)];
    if (id < 0) id = next++;
    unit[m] = id;
  }
  return unit;
}

std::vector<int> virtual_stage_layers(const Scenario& s) {
  const MegatronSpec& g = s.training.megatron;
  const int chunks = g.pp * g.virtual_stages;
  std::vector<int> out(static_cast<std::size_t>(chunks), 0);
  int fixed = 0, even = chunks;
  if (g.first_stage_layers) {
    out.front() = static_cast<int>(*g.first_stage_layers);
    fixed += out.front();
    --even;
  }
  if (g.last_stage_layers) {
    out.back() = static_cast<int>(*g.last_stage_layers);
    fixed += out.back();
    --even;
  }
  const int rest = s.model.layers - fixed;
  if (rest < 0 || (even == 0 && rest != 0) || (even > 0 && rest % even != 0))
    throw ModelError("/model/layers", fmt::format("{} layers do not split over {} pipeline stages as given", s.model.layers, chunks));
  for (int k = 0; k < chunks; ++k) {
    const bool is_fixed = (k == 0 && g.first_stage_layers) || (k == chunks - 1 && g.last_stage_layers);
    if (!is_fixed) out[static_cast<std::size_t>(k)] = even > 0 ? rest / even : 0;
  }
  return out;
}

}  // namespace ckptsim
