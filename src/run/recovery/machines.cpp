// The memory health and the standby pool of run/recovery/machines.hpp.
#include "ckptsim/run/recovery/machines.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <utility>

#include <boost/random/lognormal_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

#include "ckptsim/core/checked_time.hpp"

namespace ckptsim {

MemoryHealth::MemoryHealth(const HolderIndex* index) : index_(index) {
  if (index_ != nullptr) {
    empty_.assign(index_->offsets.size() - 1, 0);
    lost_holders_.assign(index_->loss_limit.size(), 0);
  }
}

void MemoryHealth::refill_touched() {
  for (int j : touched_) empty_[static_cast<std::size_t>(j)] = 0;
  for (int i : damaged_) lost_holders_[static_cast<std::size_t>(i)] = 0;
  touched_.clear();
  damaged_.clear();
  whole_set_lost_ = false;
}

void MemoryHealth::lose_first(int j) {
  empty_[static_cast<std::size_t>(j)] = 1;
  touched_.push_back(j);
  const auto first = static_cast<std::size_t>(index_->offsets[static_cast<std::size_t>(j)]);
  const auto last = static_cast<std::size_t>(index_->offsets[static_cast<std::size_t>(j) + 1]);
  for (std::size_t k = first; k < last; ++k) {
    const auto i = static_cast<std::size_t>(index_->sets[k]);
    auto& lost = lost_holders_[i];
    if (lost == 0) damaged_.push_back(static_cast<int>(i));
    if (++lost == index_->loss_limit[i]) whole_set_lost_ = true;
  }
}

StandbyPool::StandbyPool(const ReplacementSpec& spec, int standbys, RandomEngine engine)
    : spec_(spec), engine_(std::move(engine)), free_(standbys) {}

SimTime StandbyPool::draw_delay() {
  switch (spec_.distribution) {
    case ReplacementDistribution::fixed: return spec_.fixed;
    case ReplacementDistribution::uniform: {
      // Equal bounds are a fixed delay (boost's distribution requires low < high).
      if (spec_.low >= spec_.high) return spec_.low;
      boost::random::uniform_real_distribution<double> u(spec_.low.seconds(), spec_.high.seconds());
      return SimTime::from_seconds(u(engine_));
    }
    case ReplacementDistribution::lognormal: {
      // boost's lognormal takes the mean and sd of the underlying normal: mu = ln(median).
      boost::random::lognormal_distribution<double> d(std::log(spec_.median.seconds()), spec_.sigma);
      // A sample beyond the clock (heavy tail, huge sigma) saturates: the machine never returns.
      return saturating_seconds(d(engine_));
    }
  }
  throw std::logic_error("replacement distribution outside its enum");
}

void StandbyPool::return_arrived(SimTime at) {
  std::erase_if(returns_, [&](SimTime r) {
    if (r <= at) {
      ++free_;
      return true;
    }
    return false;
  });
}

bool StandbyPool::take(SimTime at) {
  return_arrived(at);
  if (free_ == 0) return false;
  --free_;
  returns_.push_back(saturating_add(at, draw_delay()));
  return true;
}

StandbyPool::Replacement StandbyPool::replace(SimTime failed_at, SimTime detected) {
  // Standby machines come back to the pool once their replacement arrives.
  return_arrived(failed_at);
  // A lognormal delay may be SimTime::max() ("never"): these sums saturate, not overflow.
  const SimTime delay = draw_delay();
  if (free_ > 0) {
    --free_;
    returns_.push_back(saturating_add(detected, delay));
    return {detected, true};
  }
  return {saturating_add(detected, delay), false};
}

}  // namespace ckptsim
