#pragma once
// Max-min fair bandwidth sharing by progressive filling (weighted), the flow-level network
// model of SimGrid's LMM solver (Casanova, Legrand, Quinson, "SimGrid: a Generic Framework for
// Large-Scale Distributed Experiments", UKSim 2008; Bertsekas & Gallager, "Data Networks",
// Section 6.5.2, for max-min fairness and progressive filling).
//
// Resources r have capacities C_r (bytes/s). A flow f has a rate x_f (bytes/s) and uses each
// resource r it crosses with a weight a_{f,r} > 0: it consumes a_{f,r}·x_f of C_r. A weight
// above 1 stands for several identical streams of one symmetric pattern crossing the same link
// (e.g. the 8 GPUs of a machine each sending one chunk through the machine's NIC), so a whole
// collective can be one flow instead of one flow per GPU pair. A flow may also have a rate cap.
//
// The allocation x is max-min fair:  for every r:  sum_f a_{f,r}·x_f <= C_r  (feasible), and no
// x_f can grow without shrinking some x_g <= x_f. Progressive filling computes it: all unfrozen
// flows grow at one common level; in each round the increment is
//     delta = min( min_{r: W_r > 0} R_r / W_r ,  min_{f unfrozen} cap_f - x_f ),
//     W_r = sum_{f unfrozen} a_{f,r},  R_r = C_r - sum_f a_{f,r}·x_f  (remaining capacity),
// then every flow crossing a saturated resource (R_r <= eps·C_r) or at its cap is frozen.
// Flows that cross no resource and have no cap get an infinite rate.
//
// Complexity: O(rounds x (sum_f |resources of f|)), rounds <= number of distinct bottlenecks
// <= min(#flows, #resources). Memory: O(#resources) scratch, reused across calls.
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

namespace ckptsim {

struct ResourceUse {
  int resource = 0;
  double weight = 1.0;  ///< a_{f,r}: bytes consumed on the resource per byte of the flow
};

struct FlowDemand {
  std::span<const ResourceUse> uses;
  double rate_cap = std::numeric_limits<double>::infinity();  ///< bytes/s
};

class MaxMinSolver {
 public:
  /// Computes max-min fair rates (bytes/s) of `flows` over resources of `capacity` (bytes/s);
  /// rates.size() becomes flows.size(). Every resource index must be < capacity.size().
  void solve(std::span<const double> capacity, std::span<const FlowDemand> flows, std::vector<double>& rates);

  /// Rounds used by the last solve (for tests and benchmarks).
  [[nodiscard]] int last_rounds() const { return last_rounds_; }

 private:
  std::vector<double> remaining_;       // R_r
  std::vector<double> weight_sum_;      // W_r of unfrozen flows
  std::vector<int> unfrozen_count_;     // unfrozen flows crossing r (W_r is exactly 0 at 0)
  std::vector<std::uint8_t> touched_;   // resource seen in this solve
  std::vector<int> touched_list_;
  std::vector<std::uint8_t> frozen_;
  int last_rounds_ = 0;
};

}  // namespace ckptsim
