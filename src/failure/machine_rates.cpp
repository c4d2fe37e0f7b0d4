// Lemon-node rate multipliers, the weight tree and the quarantine rule (machine_rates.hpp).
#include "machine_rates.hpp"

#include <algorithm>

#include <boost/random/gamma_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>

namespace ckptsim {

std::vector<double> draw_rate_multipliers(const LemonSpec& spec, int machines, std::uint64_t seed,
                                          std::uint64_t replica) {
  std::vector<double> x(static_cast<std::size_t>(machines), 1.0);
  RandomEngine engine = make_stream(seed, replica, RandomComponent::lemons);
  if (spec.model == LemonModel::fraction) {
    // Exactly round(fraction x N) lemons, chosen uniformly (a partial Fisher-Yates shuffle).
    const auto lemons = static_cast<int>(std::llround(spec.fraction * machines));
    std::vector<int> order(static_cast<std::size_t>(machines));
    for (int i = 0; i < machines; ++i) order[static_cast<std::size_t>(i)] = i;
    for (int i = 0; i < lemons; ++i) {
      boost::random::uniform_int_distribution<int> pick(i, machines - 1);
      std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(pick(engine))]);
      x[static_cast<std::size_t>(order[static_cast<std::size_t>(i)])] = spec.multiple;
    }
  } else if (spec.model == LemonModel::gamma) {
    // Gamma(k, theta = 1/k): mean 1, variance 1/k.
    boost::random::gamma_distribution<double> gamma(spec.gamma_shape, 1.0 / spec.gamma_shape);
    for (auto& v : x) v = gamma(engine);
  }
  return x;
}

WeightTree::WeightTree(const std::vector<double>& weights)
    : tree_(weights.size() + 1, 0.0), weights_(weights) {
  const std::size_t n = weights.size();
  for (std::size_t i = 1; i <= n; ++i) {
    tree_[i] += weights[i - 1];
    const std::size_t parent = i + (i & (~i + 1));
    if (parent <= n) tree_[parent] += tree_[i];
    total_ += weights[i - 1];
  }
  while (static_cast<std::size_t>(top_bit_) * 2 <= n) top_bit_ *= 2;
}

void WeightTree::set(int index, double weight) {
  const double delta = weight - weights_[static_cast<std::size_t>(index)];
  weights_[static_cast<std::size_t>(index)] = weight;
  total_ += delta;
  for (std::size_t i = static_cast<std::size_t>(index) + 1; i < tree_.size(); i += i & (~i + 1)) tree_[i] += delta;
}

int WeightTree::pick(double target) const {
  // Descend the implicit tree: the largest position whose prefix sum is <= target.
  std::size_t pos = 0;
  for (std::size_t step = static_cast<std::size_t>(top_bit_); step > 0; step /= 2) {
    const std::size_t next = pos + step;
    if (next < tree_.size() && tree_[next] <= target) {
      pos = next;
      target -= tree_[next];
    }
  }
  // pos machines have prefix <= target; skip zero-weight machines rounding may land on.
  auto index = static_cast<int>(std::min(pos, weights_.size() - 1));
  while (weights_[static_cast<std::size_t>(index)] <= 0 && index + 1 < static_cast<int>(weights_.size())) ++index;
  while (weights_[static_cast<std::size_t>(index)] <= 0 && index > 0) --index;
  return index;
}

Quarantine::Quarantine(const LemonSpec& spec, int machines)
    : k_(spec.quarantine_failures), window_(spec.quarantine_window) {
  if (k_ > 0) recent_.resize(static_cast<std::size_t>(machines));
}

bool Quarantine::record_enabled(int machine, SimTime t) {
  auto& times = recent_[static_cast<std::size_t>(machine)];
  std::erase_if(times, [&](SimTime past) { return t - past >= window_; });
  times.push_back(t);
  if (static_cast<int>(times.size()) < k_) return false;
  times.clear();  // the replacement machine starts with no history
  return true;
}

}  // namespace ckptsim
