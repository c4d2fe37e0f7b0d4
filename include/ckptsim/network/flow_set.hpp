#pragma once
// FlowSet: the flows alive on a network at one simulated instant, advanced in time.
//
// Each flow has a byte count; between two changes of the flow set, every flow moves at the
// constant max-min fair rate MaxMinSolver gives (flow_solver.hpp), so
//     remaining_f(t + dt) = remaining_f(t) - x_f · dt,
// and the next completion is at t + min_f remaining_f / x_f, rounded up to a whole nanosecond
// (sim_time.hpp). Rates are re-solved lazily: only after flows were added or removed.
// Per-message latency is not part of a flow: callers add a flow once its latency has elapsed.
//
// Complexity: add O(1) amortised; advance O(#flows); a re-solve costs one MaxMinSolver::solve.
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/flow_solver.hpp"

namespace ckptsim {

class FlowSet {
 public:
  explicit FlowSet(std::vector<double> capacities) : capacities_(std::move(capacities)) {}

  /// Starts a flow of `bytes` at the current time; `tag` is returned when it completes.
  /// `uses` is not copied: it must outlive the flow (task graphs keep one pool of use lists).
  void add(std::span<const ResourceUse> uses, double bytes, std::int64_t tag,
           double rate_cap = std::numeric_limits<double>::infinity());

  /// Time of the next completion (nullopt when no flow is alive). Re-solves rates if needed.
  [[nodiscard]] std::optional<SimTime> next_completion();

  /// Moves every flow forward to `t` (>= now) and returns the tags of the flows that are done
  /// at `t` (less than a nanosecond of work left), in the order they were added.
  std::vector<std::int64_t> advance_to(SimTime t);

  [[nodiscard]] SimTime now() const { return now_; }
  [[nodiscard]] std::size_t size() const { return flows_.size(); }
  /// Current rate of each alive flow, in insertion order (bytes/s); re-solves if needed.
  [[nodiscard]] const std::vector<double>& rates();
  [[nodiscard]] const std::vector<double>& capacities() const { return capacities_; }
  /// Number of rate re-solves so far.
  [[nodiscard]] std::int64_t solves() const { return solves_; }

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
  std::int64_t solves_ = 0;
};

}  // namespace ckptsim
