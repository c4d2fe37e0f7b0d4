#pragma once
// Replica placement schemes (GEMINI, SOSP '23, Section 4: Problem 1, Algorithm 1, Theorem 1).
//
// N machines each keep m replicas of their checkpoint shard in CPU memory, one of them local.
// A placement is, for every machine i, the set of machines holding i's checkpoint (holder set,
// always containing i). Recovery from CPU memory fails exactly when every holder of some
// machine's checkpoint failed.
//   group (m | N): groups of m consecutive machines {gm, ..., gm+m-1}; each member holds every
//                  member's checkpoint.
//   ring:          machine i's checkpoint lives on i, i+1, ..., i+m-1 (mod N).
//   mixed:         group placement for the first floor(N/m)-1 groups, ring among the remaining
//                  N - m(floor(N/m)-1) machines; equals group when m | N.
// CPU memory per machine: every scheme above stores exactly m shards per machine (each machine
// is a holder of exactly m holder sets), i.e. m x shard bytes, plus the in-progress buffer.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "ckptsim/core/registry.hpp"

namespace ckptsim {

struct Placement {
  std::string scheme;
  int machines = 0;
  int replicas = 0;
  /// holders[i]: sorted machine indices storing machine i's checkpoint (contains i).
  std::vector<std::vector<int>> holders;

  /// stored_on[j]: machines whose checkpoints machine j stores (contains j).
  [[nodiscard]] std::vector<std::vector<int>> stored_on() const;
  /// Largest number of shards any machine stores.
  [[nodiscard]] int max_shards_per_machine() const;
};

class PlacementError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

/// Builds a named scheme. Throws PlacementError when the scheme cannot place m replicas on N
/// machines (m < 1, m > N, or group with m not dividing N). `seed` is used by random schemes.
Placement make_placement(const std::string& scheme, int machines, int replicas, std::uint64_t seed = 0);

Placement group_placement(int machines, int replicas);
Placement ring_placement(int machines, int replicas);
Placement mixed_placement(int machines, int replicas);

using PlacementFactory = Placement (*)(int machines, int replicas, std::uint64_t seed);
const Registry<PlacementFactory>& placement_registry();

}  // namespace ckptsim
