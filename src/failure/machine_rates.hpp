#pragma once
// Per-machine failure rate multipliers for lemon nodes, and the quarantine rule (private to the
// failure layer; the model is described in failure_process.hpp).
#include <cstdint>
#include <vector>

#include "ckptsim/core/random.hpp"
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Multipliers x_i of the base rate, drawn once per replica from stream (seed, replica, lemons).
std::vector<double> draw_rate_multipliers(const LemonSpec& spec, int machines, std::uint64_t seed,
                                          std::uint64_t replica);

/// Sums of non-negative weights with O(log N) update and weighted pick (a Fenwick tree).
class WeightTree {
 public:
  explicit WeightTree(const std::vector<double>& weights);
  void set(int index, double weight);
  [[nodiscard]] double total() const { return total_; }
  /// The index i with prefix(i) <= target < prefix(i+1), for target in [0, total).
  [[nodiscard]] int pick(double target) const;

 private:
  std::vector<double> tree_;     ///< 1-based Fenwick array
  std::vector<double> weights_;
  double total_ = 0;
  int top_bit_ = 1;
};

/// The quarantine rule: a machine's k-th failure within the window (the failure included) sends
/// it to quarantine; its replacement starts with no failure history.
class Quarantine {
 public:
  Quarantine(const LemonSpec& spec, int machines);
  /// Records a failure of `machine` at `t`; true when it triggers the quarantine. Inline for
  /// the common case without a quarantine rule, which the run model asks at every failure.
  bool record(int machine, SimTime t) { return enabled() && record_enabled(machine, t); }
  [[nodiscard]] bool enabled() const { return k_ > 0; }

 private:
  bool record_enabled(int machine, SimTime t);
  int k_;
  SimTime window_;
  std::vector<std::vector<SimTime>> recent_;
};

}  // namespace ckptsim
