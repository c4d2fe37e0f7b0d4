#pragma once
// ReferenceFlowSet: ckptsim's FlowSet as it was before the incremental re-solve, kept as the
// oracle of tests and benchmarks (test tooling, not part of the library).
//
// Same contract as network/flow_set.hpp (max-min fair rates, completion at the next whole
// nanosecond, done when less than one nanosecond of work is left), computed the plain way:
// after any arrival or completion it re-solves every alive flow with MaxMinSolver (the full
// progressive filling), and it subtracts rate x elapsed time from every flow at every advance.
// Complexity: O(rounds x uses of all alive flows) per change, so O(F^2) over a run of F flows.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/flow_solver.hpp"

namespace ckptsim::reference {

class ReferenceFlowSet {
 public:
  explicit ReferenceFlowSet(std::vector<double> capacities) : capacities_(std::move(capacities)) {}

  void add(std::span<const ResourceUse> uses, double bytes, std::int64_t tag,
           double rate_cap = std::numeric_limits<double>::infinity());
  [[nodiscard]] std::optional<SimTime> next_completion();
  std::vector<std::int64_t> advance_to(SimTime t);
  [[nodiscard]] std::size_t size() const { return flows_.size(); }
  /// Rates of the alive flows in insertion order (bytes/s).
  [[nodiscard]] const std::vector<double>& rates();

 private:
  struct Flow {
    std::span<const ResourceUse> uses;
    double remaining = 0;
    double rate_cap = 0;
    std::int64_t tag = 0;
  };
  void resolve();

  std::vector<double> capacities_;
  std::vector<Flow> flows_;
  std::vector<FlowDemand> demands_;
  std::vector<double> rates_;
  MaxMinSolver solver_;
  SimTime now_ = SimTime::zero();
  bool dirty_ = false;
};

}  // namespace ckptsim::reference
