#pragma once
// Replica groups out of the quorum, for per-step fault tolerance (TorchFT; docs/models.md,
// "Per-step fault tolerance").
//
// The job trains as G replica groups (HSDP: each group holds a whole copy of the model, sharded
// over its N / G machines). A failed group leaves the quorum at the failure and rejoins once
// healed: over [failed, rejoin) it contributes nothing, and the other groups go on with the same
// step time on their own batches. With k groups out the job progresses at (G - k) / G of its
// healthy rate while G - k >= the quorum's minimum, and not at all below it:
//   work over [a, b) = integral over [a, b) of speed(t) dt,
//   speed(t) = (G - k(t)) / G  if G - k(t) >= min_groups, else 0.
// A second failure of a group already out moves its rejoin to the later of the two. Cost:
// O(groups out) per query; the outages are kept in rejoin order and dropped once passed.
// Source: TorchFT Manager (https://github.com/pytorch/torchft, torchft/manager.py):
// min_replica_size groups per step, a step committed only by the groups in its quorum.
#include <cstdint>
#include <utility>
#include <vector>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

class GroupOutages {
 public:
  GroupOutages(int groups, int min_groups);
  /// Group g is out of the quorum over [from, until) (joined with any outage it already has).
  void take_out(int group, SimTime from, SimTime until);
  /// Healthy-equivalent work over [from, to) (formula above), in whole ns rounded down. `from`
  /// never decreases between calls.
  SimTime work(SimTime from, SimTime to) { return work(from, to, {}, 1.0); }
  /// The same with stragglers: over the `slow` windows (disjoint, in order) the speed is also
  /// multiplied by `slow_speed` (a straggler slows every group of a synchronous step).
  SimTime work(SimTime from, SimTime to, const std::vector<std::pair<SimTime, SimTime>>& slow, double slow_speed);
  /// Groups out at time t.
  [[nodiscard]] int out_at(SimTime t) const;
  [[nodiscard]] int groups() const { return groups_; }

 private:
  struct Outage {
    int group;
    SimTime from;
    SimTime until;
  };
  void drop_before(SimTime t);
  int groups_;
  int min_groups_;
  std::vector<Outage> outages_;  ///< at most one per group
};

}  // namespace ckptsim
