#pragma once
// The machines of one replica as recovery sees them (run_model.hpp, "tiers" and "episode"):
//   MemoryHealth  which holder sets of the in-memory checkpoints lost too many holders since the
//                 latest complete in-memory checkpoint: every holder (m replicas), or p + 1 of a
//                 coding group's g members (erasure-coded). A replaced machine's CPU memory is
//                 empty until the next checkpoint completes.
//   StandbyPool   the standby machines and the replacement delays: a lost machine takes a free
//                 standby at its detection (the pool gets a machine back one replacement delay
//                 later), else its replacement arrives one delay after detection. Delays are drawn
//                 from the stream (seed, replica, replacement): fixed, uniform(low, high), or
//                 lognormal(ln median, sigma), a sample beyond the clock saturating ("never").
// Both are parts of the replica state (replica_state.hpp); no mechanism owns them.
#include <cstddef>
#include <vector>

#include "ckptsim/core/random.hpp"
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Which holder sets each machine's CPU memory serves, flattened once for the replicas (one
/// contiguous walk per replaced machine): machine j's sets are sets[offsets[j] ..
/// offsets[j + 1]); set i is lost after loss_limit[i] of its holders are replaced (all of
/// them for replicas, p + 1 for erasure-coded groups).
struct HolderIndex {
  std::vector<int> offsets;
  std::vector<int> sets;
  std::vector<int> loss_limit;
};

/// Which holder sets lost too many holders since the latest complete in-memory checkpoint.
class MemoryHealth {
 public:
  /// `index` null: no in-memory checkpoints (nothing is tracked).
  explicit MemoryHealth(const HolderIndex* index);
  /// A new checkpoint completed: every holder has every replica again. (The early return is
  /// the common case: the run model asks at every failure, and most find no machine replaced.)
  void refill() {
    if (touched_.empty()) return;  // lose() marks a set damaged only with its machine touched
    refill_touched();
  }
  /// Machine j's CPU memory is gone (it was replaced).
  void lose(int j) {
    if (index_ == nullptr || empty_[static_cast<std::size_t>(j)]) return;
    lose_first(j);
  }
  [[nodiscard]] bool recoverable() const { return !whole_set_lost_; }
  /// Some machine lost its CPU memory since the latest complete checkpoint: a recovery from
  /// memory must fetch that machine's shard from its peers.
  [[nodiscard]] bool some_machine_empty() const { return !touched_.empty(); }

 private:
  void refill_touched();
  void lose_first(int j);
  const HolderIndex* index_;
  std::vector<char> empty_;
  std::vector<int> lost_holders_;
  std::vector<int> touched_;
  std::vector<int> damaged_;
  bool whole_set_lost_ = false;
};

/// The standby pool and the replacement delays of one replica.
class StandbyPool {
 public:
  StandbyPool(const ReplacementSpec& spec, int standbys, RandomEngine engine);
  /// One replacement delay (header); may be SimTime::max() ("never").
  SimTime draw_delay();
  /// Standby machines whose replacement has arrived by `at` go back to the pool.
  void return_arrived(SimTime at);
  /// A free standby takes a machine's place at `at` (a live migration); the pool gets a machine
  /// back one replacement delay later. False when none is free (nothing is drawn then).
  bool take(SimTime at);
  /// A machine failed at `failed_at` and detected at `detected` is replaced: by a free standby
  /// at detection, or by its replacement one delay after detection. Returns when the machine is
  /// back (saturating) and whether a standby took its place.
  struct Replacement {
    SimTime ready;
    bool standby = false;
  };
  Replacement replace(SimTime failed_at, SimTime detected);

 private:
  const ReplacementSpec& spec_;
  RandomEngine engine_;
  int free_ = 0;
  std::vector<SimTime> returns_;
};

}  // namespace ckptsim
