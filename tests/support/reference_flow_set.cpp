// The pre-incremental FlowSet, kept as an oracle (reference_flow_set.hpp).
#include "reference_flow_set.hpp"

#include <cassert>
#include <cmath>

namespace ckptsim::reference {

void ReferenceFlowSet::add(std::span<const ResourceUse> uses, double bytes, std::int64_t tag, double rate_cap) {
  flows_.push_back(Flow{uses, bytes, rate_cap, tag});
  dirty_ = true;
}

void ReferenceFlowSet::resolve() {
  demands_.clear();
  demands_.reserve(flows_.size());
  for (const Flow& f : flows_) demands_.push_back(FlowDemand{f.uses, f.rate_cap});
  solver_.solve(capacities_, demands_, rates_);
  dirty_ = false;
}

const std::vector<double>& ReferenceFlowSet::rates() {
  if (dirty_) resolve();
  return rates_;
}

std::optional<SimTime> ReferenceFlowSet::next_completion() {
  if (flows_.empty()) return std::nullopt;
  if (dirty_) resolve();
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    const double seconds = flows_[f].remaining <= 0 ? 0.0 : flows_[f].remaining / rates_[f];
    best = std::min(best, seconds);
  }
  assert(std::isfinite(best));  // every alive flow crosses a finite-capacity resource
  return now_ + SimTime::from_ns(static_cast<std::int64_t>(std::ceil(best * 1e9)));
}

std::vector<std::int64_t> ReferenceFlowSet::advance_to(SimTime t) {
  assert(t >= now_);
  std::vector<std::int64_t> done;
  if (flows_.empty()) {
    now_ = t;
    return done;
  }
  if (dirty_) resolve();
  const double dt = (t - now_).seconds();
  std::size_t kept = 0;
  for (std::size_t f = 0; f < flows_.size(); ++f) {
    Flow& flow = flows_[f];
    flow.remaining -= rates_[f] * dt;
    // Done when less than one nanosecond of work is left at the current rate.
    if (flow.remaining <= rates_[f] * 1e-9 || flow.remaining <= 0) {
      done.push_back(flow.tag);
      dirty_ = true;
      continue;
    }
    if (kept != f) {
      flows_[kept] = std::move(flow);
      rates_[kept] = rates_[f];
    }
    ++kept;
  }
  flows_.resize(kept);
  rates_.resize(kept);
  now_ = t;
  return done;
}

}  // namespace ckptsim::reference
