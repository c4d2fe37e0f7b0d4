#pragma once
// Recovery from CPU memory when whole failure domains fail (placement under failure domains).
//
// Model. N machines in R = ceil(N/s) domains of s consecutive machines (domain d holds machines
// [d s, min(N, (d+1) s)); racks in the scenario's failures.domains). j whole domains fail at once,
// the failed domain set F chosen uniformly among the C(R, j) sets. Machine i's checkpoint is lost
// iff every holder of it is in a failed domain, i.e. iff D_i subset of F, where
// D_i = {domain(h) : h in H_i} is its holder set projected onto domains. So
//     P_j = G_j / C(R, j),  G_j = #{F : |F| = j, D_i not subset of F for every i},
// the machine-level problem of recovery_probability.hpp with domains as the "machines" and the
// D_i as holder sets. Only the minimal D_i matter (a set containing another is lost only when
// that one is). Exact counts: the distinct minimal D_i link domains into connected
// components; a failure set is safe iff its part in each component is, so
//     sum_j G_j x^j = prod over components of (sum_j G^c_j x^j),
// each component's polynomial by enumeration of its 2^|c| domain subsets (|c| <= 22; components
// larger than that make the count refuse with PlacementError; O(D^2) to find the minimal sets
// among the D distinct ones). Domains no D_i touches contribute
// (1 + x) each. Exact big integers; probabilities as in recovery_probability.hpp.
//
// Domain-aware group placement (spread_group_placement, checkpoint/placement.hpp): groups of m machines N/m apart, group g = {g + t N/m : t < m}.
// When N/m >= s the members of a group lie in m distinct domains, so a group is lost only when
// all m of its domains fail, whereas plain group placement with m dividing s puts whole groups
// inside one domain (any domain failure loses checkpoints).
#include <vector>

#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/placement.hpp"

namespace ckptsim {

/// G_j for j = 0..R (R = ceil(N / domain_size)), exact. Throws PlacementError when domain_size < 1
/// or a component spans more than 22 domains.
[[nodiscard]] std::vector<BigCount> domain_recovery_counts(const Placement& placement, int domain_size);

/// P_j = G_j / C(R, j), j = 0..R.
[[nodiscard]] std::vector<double> domain_recovery_probability(const Placement& placement, int domain_size);

}  // namespace ckptsim
