#pragma once
// Replica placement schemes (GEMINI, SOSP '23, Section 4: Problem 1, Algorithm 1, Theorem 1).
//
// N machines each keep m replicas of their checkpoint shard in CPU memory, one of them local.
// A placement is, for every machine i, the set of machines holding i's checkpoint (holder set,
// always containing i). Recovery from CPU memory fails exactly when every holder of some
// machine's checkpoint failed.
//   group (m | N): groups of m consecutive machines {gm, ..., gm+m-1}; each member holds every
//                  member's checkpoint.
//   group-spread (m | N): groups of m machines N/m apart {a + t N/m : t < m}; the same
//                  protection against independent failures as group, but a group spans m
//                  consecutive-machine domains (racks) when N/m >= the domain size.
//   ring:          machine i's checkpoint lives on i, i+1, ..., i+m-1 (mod N).
//   mixed:         group placement for the first floor(N/m)-1 groups, ring among the remaining
//                  N - m(floor(N/m)-1) machines; equals group when m | N.
//   random:        seeded random Latin-rectangle placement. Row 0 is the identity; each of the
//                  rows r = 1..m-1 is a permutation pi_r of the machines, and machine i's holder
//                  set is {i, pi_1(i), ..., pi_{m-1}(i)}. Every pi_r is a Fisher-Yates shuffle
//                  (Boost.Random, stream (seed, 0, placement)) repaired by swaps: while pi_r(i)
//                  is already a holder of i, swap pi_r(i) with pi_r(j) for a random j such that
//                  both positions become valid. Because every row is a permutation, machine j is
//                  a holder of exactly one set per row, so every machine stores exactly m
//                  shards, and the m holders of a set are distinct. A valid j always exists when
//                  2(m-1) <= N (at least N - 2r + 1 of them for row r); for larger m (m-1 > N/2)
//                  the rows are random distinct cyclic shifts of a random relabelling instead:
//                  holders of sigma(j) = {sigma(j + d_r) mod N}, d_0 = 0 < d_1..d_{m-1} < N
//                  distinct. Cost O(N m) expected for the shuffles plus O(m) per repaired entry.
//   clique (m J | N): the NVIDIA Resiliency Extension's local-checkpoint cliques
//                  (CliqueReplicationStrategy, checkpointing/local/replication/strategies.py) at
//                  machine granularity: blocks of m J consecutive machines, and in each block the
//                  machines with the same offset mod J form a group {a m J + b + t J : t < m}, each
//                  member holding every member's checkpoint. J = strategy.replication_jump, NVRx's
//                  replication_jump divided by the GPUs per machine (its default, the GPUs per
//                  machine, is J = 1: group placement; J = N/m is group-spread).
//   file:          an explicit list of holder sets read from JSON (load_placement_file):
//                  {"machines": N, "holders": [[0, 1], [1, 0], ...]}; holders[i] must list m
//                  distinct machines in [0, N) including i, with the same m for every i.
// CPU memory per machine: every scheme above stores exactly m shards per machine (each machine
// is a holder of exactly m holder sets). GEMINI keeps two CPU buffers per stored shard, the last
// complete checkpoint and the one in progress (SOSP '23, Section 6), so a machine needs
//     cpu_bytes = 2 x shards_stored x shard_bytes,
// where shards_stored is the largest number of shards any machine stores (= m for the schemes
// above; a file placement may be unbalanced).
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/registry.hpp"
#include "ckptsim/scenario/kinds.hpp"

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

/// A scheme cannot place the replicas on the machines; `parameter` names the input at fault
/// (/strategy/replicas, /strategy/placement, /cluster/machines).
class PlacementError : public ModelError {
 public:
  using ModelError::ModelError;
};

/// Builds a named scheme. Throws PlacementError when the scheme cannot place m replicas on N
/// machines (m < 1, m > N, group with m not dividing N, clique with m J not dividing N). `seed` is
/// used by random schemes, `jump` (J) by clique.
Placement make_placement(PlacementScheme scheme, int machines, int replicas, std::uint64_t seed = 0, int jump = 1);

/// Whether a scheme's groups tile the machines: m | N for group and group-spread, m J | N for
/// clique (J >= 1), always for the others. The one statement of the rule the builders enforce.
[[nodiscard]] bool groups_tile(PlacementScheme scheme, int machines, int replicas, int jump = 1);

Placement group_placement(int machines, int replicas);
/// Groups of m machines N/m apart ("group-spread"); throws PlacementError unless m divides N.
Placement spread_group_placement(int machines, int replicas);
/// NVRx cliques of m machines J apart in blocks of m J ("clique"); throws PlacementError unless
/// J >= 1 and m J divides N.
Placement clique_placement(int machines, int replicas, int jump);
Placement ring_placement(int machines, int replicas);
Placement mixed_placement(int machines, int replicas);
/// Seeded random placement (construction above); the same seed gives the same holders.
Placement random_placement(int machines, int replicas, std::uint64_t seed);

/// Reads an explicit placement from JSON {"machines": N, "holders": [[...], ...]} (scheme
/// "file"). Throws InputError listing every problem (file, JSON pointer, expected, found):
/// unreadable file or invalid JSON, unknown keys, N not a positive integer, holders not an array
/// of N arrays, entries not integers in [0, N), duplicates, a set without its own machine, or
/// sets of different sizes. Holder sets are stored sorted.
Placement load_placement_file(const std::filesystem::path& path);
/// The same from JSON text; `file` names the source in problems.
Placement parse_placement_json(const std::string& text, const std::string& file);

/// CPU memory one machine needs (bytes): 2 x max_shards_per_machine() x shard_bytes.
[[nodiscard]] double placement_cpu_memory_bytes(const Placement& placement, double shard_bytes);

/// The schemes, named and ordered as PlacementScheme's name table (scenario/kinds.hpp).
using PlacementFactory = Placement (*)(int machines, int replicas, std::uint64_t seed, int jump);
const Registry<PlacementFactory>& placement_registry();

}  // namespace ckptsim
