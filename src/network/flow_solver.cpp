#include "ckptsim/network/flow_solver.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ckptsim {

void MaxMinSolver::solve(std::span<const double> capacity, std::span<const FlowDemand> flows,
                         std::vector<double>& rates) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  constexpr double kSaturated = 1e-12;  // relative remaining capacity treated as zero
  const std::size_t n_flows = flows.size();
  rates.assign(n_flows, 0.0);
  frozen_.assign(n_flows, 0);
  if (remaining_.size() < capacity.size()) {
    remaining_.resize(capacity.size());
    weight_sum_.resize(capacity.size());
    unfrozen_count_.resize(capacity.size());
    touched_.resize(capacity.size(), 0);
  }
  touched_list_.clear();
  std::size_t unfrozen = 0;
  for (std::size_t f = 0; f < n_flows; ++f) {
    const FlowDemand& d = flows[f];
    if (d.uses.empty() && !std::isfinite(d.rate_cap)) {
      rates[f] = kInf;  // crosses nothing: unconstrained
      frozen_[f] = 1;
      continue;
    }
    ++unfrozen;
    for (const ResourceUse& u : d.uses) {
      assert(u.resource >= 0 && static_cast<std::size_t>(u.resource) < capacity.size());
      assert(u.weight > 0.0);
      if (!touched_[u.resource]) {
        touched_[u.resource] = 1;
        touched_list_.push_back(u.resource);
        remaining_[u.resource] = capacity[u.resource];
        weight_sum_[u.resource] = 0.0;
        unfrozen_count_[u.resource] = 0;
      }
      weight_sum_[u.resource] += u.weight;
      ++unfrozen_count_[u.resource];
    }
  }

  last_rounds_ = 0;
  while (unfrozen > 0) {
    ++last_rounds_;
    double delta = kInf;
    for (int r : touched_list_) {
      if (unfrozen_count_[r] > 0) delta = std::min(delta, remaining_[r] / std::max(weight_sum_[r], 1e-300));
    }
    for (std::size_t f = 0; f < n_flows; ++f) {
      if (!frozen_[f]) delta = std::min(delta, flows[f].rate_cap - rates[f]);
    }
    assert(std::isfinite(delta));
    delta = std::max(delta, 0.0);
    for (int r : touched_list_) {
      if (unfrozen_count_[r] > 0) remaining_[r] -= delta * weight_sum_[r];
    }
    // Raise every unfrozen flow, then freeze those at a cap or on a saturated resource.
    for (std::size_t f = 0; f < n_flows; ++f) {
      if (frozen_[f]) continue;
      rates[f] += delta;
      bool freeze = rates[f] >= flows[f].rate_cap * (1.0 - kSaturated);
      if (!freeze) {
        for (const ResourceUse& u : flows[f].uses) {
          if (remaining_[u.resource] <= kSaturated * capacity[u.resource]) {
            freeze = true;
            break;
          }
        }
      }
      if (freeze) {
        frozen_[f] = 1;
        --unfrozen;
        for (const ResourceUse& u : flows[f].uses) {
          weight_sum_[u.resource] -= u.weight;
          --unfrozen_count_[u.resource];
        }
      }
    }
  }
  for (int r : touched_list_) touched_[r] = 0;
}

}  // namespace ckptsim
