#pragma once
// Erasure-coded in-memory checkpoints (strategy "erasure-coded"; docs/models.md, "Erasure-coded
// checkpoints").
//
// Groups. The N machines form N/g coding groups of g machines (g must divide N): "group" takes
// g consecutive machines {a g, ..., a g + g - 1}; "group-spread" takes g machines N/g apart
// {a + t N/g : t < g}, so that a group spans g racks when N/g >= the rack size.
//
// Layout (parity inside the group, rotated as in RAID 5/6). The g shards of a group (c bytes
// each, c = C/N) are cut into symbols of s bytes and arranged in stripes of g symbols: g - p data
// symbols and p parity symbols of an MDS code (XOR for p = 1, Reed-Solomon over GF(2^8) for
// p > 1), one symbol per machine per stripe, the parity positions rotating over the g machines.
// Every machine is a data holder in g - p of every g consecutive stripes and a parity holder in
// p of them; the data symbols it holds are its own shard, so its own shard stays whole in its
// CPU memory (a software failure reloads it locally, as with GEMINI's local replica).
//   Survival: a machine holds at most one symbol of each stripe, and any g - p symbols of a
//   stripe determine it (MDS), so a group loses its checkpoint iff MORE THAN p of its machines
//   lose their CPU memory (are replaced) before the next checkpoint completes.
//   Why not 1 + p/g: p parity shards of size c spread over the same g machines would put a
//   parity symbol on a machine that also holds a data symbol of the same stripe; losing it loses
//   two symbols of that stripe, so the group would not survive every set of p losses. 1 + p/g is
//   reachable only with the parity on machines outside the group (groups then depend on each
//   other's machines); this model does not do that.
// CPU memory per machine (one checkpoint): stripes = g c / ((g - p) s), one symbol each:
//     g c / (g - p) = c g / (g - p)   (= c + p c / (g - p): own shard + parity)
//   e.g. g = 8: p = 1 -> 8/7 c = 1.143 c; p = 2 -> 4/3 c = 1.333 c; GEMINI's m replicas keep m c.
//   Two buffers (last complete checkpoint, the one in progress) as GEMINI: 2 c g / (g - p).
// Network traffic per checkpoint (linear code: parity_j = sum_i a_ji d_i). For each stripe, each
//   of its g - p data holders sends its symbol (or its product a_ji d_i) to each of the p parity
//   holders, which accumulate: a machine holds c/s data symbols and sends each p times, so it
//   sends p c and (as parity holder of p c / ((g - p) s) symbols, g - p contributions each)
//   receives p c. Per machine and direction: p c, the volume of GEMINI with m = p + 1 replicas
//   ((m - 1) c), interleaved into the idle spans of training in the same way (the iteration
//   model plans it as p copies of the shard; the real destinations are spread over the g - 1
//   other members, which moves the same bytes through each NIC).
// Encode (CPU, on the parity holder as the contributions arrive): p c bytes of GF(2^8)
//   multiply-accumulate (XOR for p = 1) per machine, E = p c / B_enc. B_enc default 10 GB/s per
//   machine: Intel ISA-L's Reed-Solomon runs at "tens of gigabytes per second" on a single Xeon
//   core (https://software.intel.com/content/www/us/en/develop/articles/intel-isa-l-erasure-code-and-recovery.html).
//   The checkpoint is complete when both its traffic and its encode are done:
//     completion = max(k T, E) + S   (GEMINI: k T + S).
// Repair (a replaced machine rebuilds its own shard before training restarts): each of its c/s
//   data symbols needs g - p other symbols of its stripe, so it receives (g - p) c bytes and
//   decodes them at B_enc:  retrieval_peer = (g - p) c / B_n + (g - p) c / B_enc + c / B_ser
//   (GEMINI: c / B_n + c / B_ser). Repair pipelining could bring the inbound bytes to c; not modelled.
// Recovery probability (analysis/erasure_recovery.hpp): k machines replaced at once, uniformly,
//   P_k = [x^k] (sum_{i<=p} C(g, i) x^i)^(N/g) / C(N, k).
#include "ckptsim/checkpoint/placement.hpp"

namespace ckptsim {

struct ErasureCode {
  int group_size = 8;  ///< g
  int parity = 1;      ///< p, 1 <= p < g

  /// Shard sizes of CPU memory per machine for one checkpoint: g / (g - p).
  [[nodiscard]] double shards_per_machine() const {
    return static_cast<double>(group_size) / static_cast<double>(group_size - parity);
  }
  /// CPU memory per machine (bytes), two buffers: 2 c g / (g - p).
  [[nodiscard]] double cpu_memory_bytes(double shard_bytes) const { return 2.0 * shards_per_machine() * shard_bytes; }
  /// Bytes each machine sends (and receives) per checkpoint: p c.
  [[nodiscard]] double traffic_bytes(double shard_bytes) const { return parity * shard_bytes; }
  /// Bytes each machine encodes per checkpoint: p c.
  [[nodiscard]] double encode_bytes(double shard_bytes) const { return parity * shard_bytes; }
  /// Bytes a replaced machine receives (and decodes) to rebuild its shard: (g - p) c.
  [[nodiscard]] double repair_bytes(double shard_bytes) const { return (group_size - parity) * shard_bytes; }
};

/// Checks g and p against N: 1 <= p < g <= N and g divides N. Throws PlacementError naming
/// /strategy/parity, /strategy/group_size or /cluster/machines.
void check_erasure_code(const ErasureCode& code, int machines);

/// The coding groups as a Placement: holders[i] = the g members of i's group (group: consecutive,
/// group-spread: N/g apart). Throws PlacementError for any other scheme or a code that
/// check_erasure_code refuses.
[[nodiscard]] Placement erasure_groups(PlacementScheme scheme, int machines, const ErasureCode& code);

}  // namespace ckptsim
