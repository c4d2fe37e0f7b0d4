// Exact recovery probability under whole-domain failures (domain_recovery.hpp).
#include "ckptsim/analysis/domain_recovery.hpp"
#include "union_find.hpp"

#include <algorithm>
#include <numeric>
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

std::vector<BigCount> multiply(const std::vector<BigCount>& a, const std::vector<BigCount>& b) {
  std::vector<BigCount> out(a.size() + b.size() - 1, 0);
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) out[i + j] += a[i] * b[j];
  return out;
}

/// Safe-subset counts by size of one component (domains listed in `domains`).
std::vector<BigCount> component_counts(const std::vector<int>& domains, const std::vector<std::vector<int>>& sets) {
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
  std::vector<int> parent(static_cast<std::size_t>(domains));
  std::iota(parent.begin(), parent.end(), 0);
  for (const auto& s : sets)
    for (int d : s) parent[static_cast<std::size_t>(detail::union_find_root(parent, d))] = detail::union_find_root(parent, s.front());
  std::vector<std::vector<int>> members(static_cast<std::size_t>(domains));
  for (int d = 0; d < domains; ++d) members[static_cast<std::size_t>(detail::union_find_root(parent, d))].push_back(d);
  std::vector<std::vector<std::vector<int>>> component_sets(static_cast<std::size_t>(domains));
  for (const auto& s : sets) component_sets[static_cast<std::size_t>(detail::union_find_root(parent, s.front()))].push_back(s);
  std::vector<BigCount> total{1};
  for (int root = 0; root < domains; ++root) {
    const auto& c = members[static_cast<std::size_t>(root)];
    if (c.empty()) continue;
    if (static_cast<int>(c.size()) > kMaxComponentDomains)
      throw PlacementError("--domain-size", fmt::format("the holder sets link {} domains into one component; exact counting stops at {}",
                                       c.size(), kMaxComponentDomains));
    total = multiply(total, component_counts(c, component_sets[static_cast<std::size_t>(root)]));
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
