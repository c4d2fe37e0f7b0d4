#include "ckptsim/checkpoint/placement.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace ckptsim {
namespace {

void check_counts(int machines, int replicas) {
  if (machines < 1) throw PlacementError(fmt::format("at least 1 machine, found {}", machines));
  if (replicas < 1) throw PlacementError(fmt::format("at least 1 replica, found {}", replicas));
  if (replicas > machines)
    throw PlacementError(fmt::format("at most as many replicas as machines ({}), found {}", machines, replicas));
}

Placement empty_placement(std::string scheme, int machines, int replicas) {
  Placement p;
  p.scheme = std::move(scheme);
  p.machines = machines;
  p.replicas = replicas;
  p.holders.resize(static_cast<std::size_t>(machines));
  return p;
}

/// Ring over an explicit list of machines: members[j] is held by members[j..j+m-1 mod size].
void place_ring(Placement& p, const std::vector<int>& members, int replicas) {
  const int n = static_cast<int>(members.size());
  for (int j = 0; j < n; ++j) {
    auto& h = p.holders[static_cast<std::size_t>(members[static_cast<std::size_t>(j)])];
    for (int r = 0; r < replicas; ++r) h.push_back(members[static_cast<std::size_t>((j + r) % n)]);
    std::sort(h.begin(), h.end());
  }
}

}  // namespace

std::vector<std::vector<int>> Placement::stored_on() const {
  std::vector<std::vector<int>> out(holders.size());
  for (std::size_t i = 0; i < holders.size(); ++i)
    for (int h : holders[i]) out[static_cast<std::size_t>(h)].push_back(static_cast<int>(i));
  for (auto& v : out) std::sort(v.begin(), v.end());
  return out;
}

int Placement::max_shards_per_machine() const {
  int best = 0;
  for (const auto& v : stored_on()) best = std::max(best, static_cast<int>(v.size()));
  return best;
}

Placement group_placement(int machines, int replicas) {
  check_counts(machines, replicas);
  if (machines % replicas != 0)
    throw PlacementError(fmt::format("group placement needs the replica count ({}) to divide the machine count ({}); "
                                     "use \"mixed\" otherwise",
                                     replicas, machines));
  Placement p = empty_placement("group", machines, replicas);
  for (int i = 0; i < machines; ++i) {
    const int first = (i / replicas) * replicas;
    for (int r = 0; r < replicas; ++r) p.holders[static_cast<std::size_t>(i)].push_back(first + r);
  }
  return p;
}

Placement ring_placement(int machines, int replicas) {
  check_counts(machines, replicas);
  Placement p = empty_placement("ring", machines, replicas);
  std::vector<int> all(static_cast<std::size_t>(machines));
  for (int i = 0; i < machines; ++i) all[static_cast<std::size_t>(i)] = i;
  place_ring(p, all, replicas);
  return p;
}

Placement mixed_placement(int machines, int replicas) {
  check_counts(machines, replicas);
  if (machines % replicas == 0) {
    Placement p = group_placement(machines, replicas);
    p.scheme = "mixed";
    return p;
  }
  Placement p = empty_placement("mixed", machines, replicas);
  const int groups = machines / replicas - 1;  // floor(N/m) - 1 full groups
  for (int i = 0; i < groups * replicas; ++i) {
    const int first = (i / replicas) * replicas;
    for (int r = 0; r < replicas; ++r) p.holders[static_cast<std::size_t>(i)].push_back(first + r);
  }
  std::vector<int> rest;
  for (int i = groups * replicas; i < machines; ++i) rest.push_back(i);
  place_ring(p, rest, replicas);
  return p;
}

const Registry<PlacementFactory>& placement_registry() {
  static const Registry<PlacementFactory> registry = [] {
    Registry<PlacementFactory> r("placement scheme");
    r.add("group", "groups of m consecutive machines hold each other's checkpoints (m must divide N)",
          [](int n, int m, std::uint64_t) { return group_placement(n, m); });
    r.add("ring", "machine i's checkpoint on machines i..i+m-1 (mod N)",
          [](int n, int m, std::uint64_t) { return ring_placement(n, m); });
    r.add("mixed", "groups for the first floor(N/m)-1 groups, a ring over the rest (GEMINI Algorithm 1)",
          [](int n, int m, std::uint64_t) { return mixed_placement(n, m); });
    return r;
  }();
  return registry;
}

Placement make_placement(const std::string& scheme, int machines, int replicas, std::uint64_t seed) {
  const auto* entry = placement_registry().find(scheme);
  if (entry == nullptr)
    throw PlacementError(fmt::format("unknown placement scheme \"{}\": expected {}", scheme,
                                     placement_registry().names_for_error()));
  return entry->factory(machines, replicas, seed);
}

}  // namespace ckptsim
