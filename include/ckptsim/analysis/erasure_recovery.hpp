#pragma once
// Probability that erasure-coded in-memory checkpoints survive simultaneous machine losses
// (checkpoint/erasure_code.hpp; docs/models.md, "Erasure-coded checkpoints").
//
// Model. N machines in n = N/g coding groups of g; a group keeps its checkpoint iff at most p of
// its machines are lost (replaced). k machines are lost at once, uniformly among the C(N, k) sets.
// The groups are disjoint, so the number of safe loss sets is a product of per-group choices:
//     sum_k G_k x^k = Q(x)^n,   Q(x) = sum_{i=0}^{p} C(g, i) x^i,
//     P_k = G_k / C(N, k)   (G_k = 0 for k > n p).
// The layout of the groups (consecutive or spread) does not matter for uniformly random losses.
// Coefficients by J.C.P. Miller's recurrence for a power of a polynomial with Q_0 = 1 (from
// P' Q = n Q' P):  G_0 = 1,  k G_k = sum_{i=1}^{min(k,p)} ((n+1) i - k) C(g, i) G_{k-i}.
// O(N p) exact big-integer operations. GEMINI's group placement with m replicas is the case
// g = m, p = m - 1 (Q = (1+x)^m - x^m), which recovery_probability.hpp computes the same way.
//
// Whole domains (racks of s consecutive machines, s | N, R = N/s) failing, j of them uniformly
// among the C(R, j) sets. Let u be the members a group has in each domain it touches:
//   group (consecutive):  u = min(g, s)        (needs s | g or g | s)
//   group-spread (stride d = N/g):  u = max(1, s/d)  (needs s | d or d | s)
// Then every group touches g/u domains, the groups' domain sets are equal or disjoint and
// partition the R domains into R u / g blocks of g/u, and a group loses more than p machines
// iff more than p' = floor(p/u) of its block's domains fail. So the domain problem is the
// machine problem on R "machines" in blocks of g/u with tolerance p':
//     P_j = [x^j] (sum_{i<=p'} C(g/u, i) x^i)^(R u/g) / C(R, j).
// (Consecutive groups inside one rack, g | s, give p' = 0: any rack failure loses a group. Spread
// groups one member per rack, s | N/g, keep p' = p: a rack failure costs each of its groups one
// member.) Other sizes are refused (PlacementError at /failures/domains/rack/machines).
//
// Time window (machines lost independently with probability q each):
//     P(every group keeps its checkpoint) = (sum_{i<=p} C(g, i) q^i (1-q)^{g-i})^n.
#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/erasure_code.hpp"

namespace ckptsim {

/// G_k for k = 0..K, K = N or max_failures when that is in [0, N) (the recurrence needs only
/// the p previous terms, so a prefix is exact). Method group_closed_form. Throws
/// PlacementError when check_erasure_code does.
[[nodiscard]] RecoveryCounts erasure_recovery_counts(int machines, const ErasureCode& code, int max_failures = -1);

/// P_k = G_k / C(N, k) for k = 0..K (K as above).
[[nodiscard]] std::vector<double> erasure_recovery_probability(int machines, const ErasureCode& code,
                                                               int max_failures = -1);

/// P_j for j = 0..K (K = R or max_failures when in [0, R)) when j whole domains of
/// `domain_size` consecutive machines fail (see above). Throws PlacementError when the layout
/// has no such reduction or the code is invalid.
[[nodiscard]] std::vector<double> erasure_domain_recovery_probability(PlacementScheme scheme, int machines,
                                                                      const ErasureCode& code, int domain_size,
                                                                      int max_failures = -1);

/// P(every group keeps its checkpoint) when each machine is lost independently with probability
/// q in [0, 1] (throws ModelError otherwise).
[[nodiscard]] double erasure_window_recovery(int machines, const ErasureCode& code, double q);

}  // namespace ckptsim
