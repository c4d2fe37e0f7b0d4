// Exact recovery probability under whole-domain failures (domain_recovery.hpp).
#include "ckptsim/analysis/domain_recovery.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace ckptsim {
namespace {

constexpr int kMaxComponentDomains = 22;

/// The distinct minimal domain holder sets D_i, as sorted domain lists.
std::vector<std::vector<int>> domain_sets(const Placement& p, int size) {
  std::set<std::vector<int>> sets;
  for (const auto& holders : p.holders) {
    std::vector<int> d;
    for (int h : holders) d.push_back(h / size);
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    sets.insert(d);
  }
  // Only minimal sets matter (a superset is lost only when a subset of it is); dropping the
  // others also splits components (ring, m = 2, racks of 2: every pair contains a whole rack).
  std::vector<std::vector<int>> all(sets.begin(), sets.end());
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.size() < b.size(); });
  std::vector<std::vector<int>> minimal;
  for (const auto& s : all) {
    const bool has_subset = std::any_of(minimal.begin(), minimal.end(), [&](const std::vector<int>& m) {
      return std::includes(s.begin(), s.end(), m.begin(), m.end());
    });
    if (!has_subset) minimal.push_back(s);
  }
  return minimal;
}

/// Safe-subset counts by size of one component (domains listed in `domains`).
std::vector<BigCount> domain_component_counts(const std::vector<int>& domains, const std::vector<std::vector<int>>& sets) {
  const auto n = static_cast<int>(domains.size());
  std::vector<std::uint32_t> masks;
  for (const auto& s : sets) {
    std::uint32_t m = 0;
    for (int d : s) {
      const auto it = std::lower_bound(domains.begin(), domains.end(), d);
      m |= 1u << static_cast<unsigned>(it - domains.begin());
    }
    masks.push_back(m);
  }
  std::vector<BigCount> counts(static_cast<std::size_t>(n) + 1, 0);
  for (std::uint32_t f = 0; f < (1u << static_cast<unsigned>(n)); ++f) {
    const bool safe = std::none_of(masks.begin(), masks.end(), [f](std::uint32_t m) { return (m & f) == m; });
    if (safe) counts[static_cast<std::size_t>(__builtin_popcount(f))] += 1;
  }
  return counts;
}

}  // namespace

std::vector<BigCount> domain_recovery_counts(const Placement& placement, int domain_size) {
  if (domain_size < 1) throw PlacementError("--domain-size", fmt::format("domain size must be at least 1, found {}", domain_size));
  const int domains = (placement.machines + domain_size - 1) / domain_size;
  const auto sets = domain_sets(placement, domain_size);
  // Components of the domains linked by the minimal D_i (recovery_probability.hpp).
  std::vector<BigCount> total{1};
  for (const auto& c : linked_components(domains, sets)) {
    if (static_cast<int>(c.size()) > kMaxComponentDomains)
      throw PlacementError("--domain-size", fmt::format("the holder sets link {} domains into one component; exact counting stops at {}",
                                       c.size(), kMaxComponentDomains));
    std::vector<std::vector<int>> inside;
    for (const auto& s : sets)
      if (std::binary_search(c.begin(), c.end(), s.front())) inside.push_back(s);
    total = multiply_counts(total, domain_component_counts(c, inside));
  }
  return total;
}

std::vector<double> domain_recovery_probability(const Placement& placement, int domain_size) {
  const auto counts = domain_recovery_counts(placement, domain_size);
  const auto domains = static_cast<int>(counts.size()) - 1;
  const auto binomials = binomial_row(domains);
  std::vector<double> p;
  for (int j = 0; j <= domains; ++j)
    p.push_back(ratio_to_double(counts[static_cast<std::size_t>(j)], binomials[static_cast<std::size_t>(j)]));
  return p;
}

}  // namespace ckptsim
