#pragma once
// Probability of recovering from CPU memory after simultaneous failures, for any placement
// (GEMINI, SOSP '23, Section 4: Problem 1, Theorem 1 and its corollary; docs/models.md).
//
// Model. N machines; machine i's checkpoint is held by the machines of its holder set H_i
// (Placement::holders). k machines fail at once, the failed set F chosen uniformly among the
// C(N, k) sets of size k. Recovery from CPU memory succeeds iff no holder set lies inside F:
//     P_k = G_k / C(N, k),   G_k = #{F : |F| = k, H_i not subset of F for every i}.
// When it fails, GEMINI restarts every machine from persistent storage (GEMINI, SOSP '23, §5).
//
// Exact counts G_k (k = 0..N), by structure:
//   group (g = N/m groups): a failure set is safe iff each group keeps a survivor, so
//       sum_k G_k x^k = Q(x)^g,  Q(x) = (1+x)^m - x^m  (a group loses 0..m-1 members).
//     Coefficients by J.C.P. Miller's recurrence for powers of a polynomial (from P'Q = gQ'P):
//       G_0 = 1,  k G_k = sum_{i=1}^{min(k,m-1)} ((g+1) i - k) C(m,i) G_{k-i}.
//     O(N m) big-integer operations.
//   ring (m < N or m = N): the failed machines form a circular binary string with no run of m
//     consecutive failures. Cutting the circle at its N-k survivors leaves N-k gaps of
//     failures, each of length 0..m-1; marking one survivor gives the bijection
//       (N - k) G_k = N c(N-k, k)   for k < N,  G_N = 0,
//     where c(z, k) = [x^k] (1 + x + ... + x^{m-1})^z counts compositions of k into z parts in
//     [0, m-1]. The c(z, .) rows follow the sliding-window recurrence
//       c(z, k) = c(z, k-1) + c(z-1, k) - c(z-1, k-m),
//     evaluated for z = 1..N over k <= min(N-z, z(m-1)): about N^2/3 entries for m = 3, each an
//     add-and-subtract of fixed-width limb arrays (arithmetic modulo 2^(64w), with w limbs
//     enough for c(z, k) <= min(m^z, C(z+k-1, k)), which is exact because the true value fits).
//     Rows are computed 32 at a time, k outermost, inner rows keeping only a cyclic window of
//     m+1 entries (temporal blocking), so the work stays in cache. Work: sum over entries of
//     their limb counts, 1.7e8 limb steps for N = 4096, m = 3; memory 2 (N+1)(N/64+2) words
//     (4.3 MB at N = 4096). N^2/4 bytes in general, so N is limited to about 90,000.
//   mixed: the floor(N/m)-1 groups and the ring over the remaining r machines are disjoint, so
//     G = Q^(floor(N/m)-1) convolved with the ring counts of (r, m). O(N r) operations.
//   any other holder sets: inclusion-exclusion over the D distinct minimal holder sets,
//       G_k = sum_{T subset of sets} (-1)^|T| C(N - |U_T|, k - |U_T|),  U_T = union of T,
//     in O(2^D N/64) (D <= 22), or enumeration of the 2^N failure sets (N <= 22).
//     Structured placements (identical holders to group/ring/mixed) use the closed forms.
//   components: machines linked by a shared holder set form connected components, and a failure
//     set is safe iff its part in every component is, so G is the convolution of the
//     components' count polynomials. A component whose distinct holder sets are pairs forming a
//     cycle (every machine in exactly two) is a relabelled ring with m = 2 and uses the ring
//     closed form; this makes every load-balanced m = 2 placement (a union of cycles, e.g.
//     random) exact at any N. Other components use inclusion-exclusion or enumeration.
//   Otherwise no exact method is attempted and monte_carlo_recovery() gives estimates.
//
// Arithmetic. Counts are exact integers (boost::multiprecision::cpp_int; C(4096, 2048) is about
// 10^1231). A ratio a/b of counts becomes a double from the top 64 bits of each: relative error
// below 2^-51 (two truncations of 2^-63, three roundings of 2^-53), except that results below
// the smallest normal double (2.2e-308) lose relative precision or become 0; log10 of the
// ratio is returned separately and stays accurate (absolute error below 2^-52 (|log10| + 1))
// for any size.
// The failure probability 1 - P_k is computed as (C(N,k) - G_k) / C(N,k) from the exact
// counts, so it keeps full relative precision when it is tiny.
//
// Bounds shown beside the exact values. The union bound over the distinct holder sets
//     P_k >= max{0, 1 - sum_{distinct H} C(N - |H|, k - |H|) / C(N, k)}
// is the paper's ring figure (N sets) and, for group (N/m sets), the corollary of Theorem 1
// (equality for m <= k < 2m, when no two groups can both be lost).
//
// Time window. Machines fail independently with probability p each during the window:
//     P(recover) = sum_k C(N,k) p^k (1-p)^(N-k) P_k = sum_k G_k p^k (1-p)^(N-k),
// summed term by term in log space (ln G_k + k ln p + (N-k) ln(1-p), each term <= 1), and
// P(not) = sum_k (C(N,k) - G_k) p^k (1-p)^(N-k) likewise; all terms are positive, so the
// relative error is at most 4u(N(|ln p| + |ln(1-p)|) + max_k ln C(N,k) + N) with u = 2^-53;
// WindowRecovery::relative_error_bound carries that number.
// Machines that must read from storage:
//   - GEMINI semantics (GEMINI, SOSP '23, §5: any lost checkpoint restarts every machine from
//     storage): E = N x P(not recoverable);
//   - machines whose every holder failed (the checkpoints actually lost):
//     E = sum_i C(N - |H_i|, k - |H_i|) / C(N, k) for k failures, sum_i p^|H_i| in a window.
//
// Monte Carlo cross-check. Each sample draws a random failure order: machine x gets the key
// (64-bit draw of the mt19937_64 stream (seed, 0, analysis) with its low b bits replaced by x,
// 2^b >= N), machines fail in increasing key order. The order is uniform up to ties among the
// top 64-b random bits (probability below N^2 2^(b-65), about 4e-8 at N = 4096), which are
// broken by index. The first k machines of the order are a uniform k-set, so one sample
// answers every k at once: with T = min_i (position of the last member
// of H_i in the order) + 1, recovery after k failures succeeds iff k < T. Each P_k estimate is
// a binomial proportion; its 95% interval is Wilson's score interval (z = 1.959964).
// O(samples x (N + sum |H_i|)).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "ckptsim/checkpoint/placement.hpp"

namespace ckptsim {

using BigCount = boost::multiprecision::cpp_int;

enum class RecoveryMethod {
  group_closed_form,    ///< Miller recurrence for ((1+x)^m - x^m)^(N/m)
  ring_closed_form,     ///< compositions with parts < m around the circle
  mixed_convolution,    ///< group part convolved with the ring part
  inclusion_exclusion,  ///< over distinct minimal holder sets
  enumeration,          ///< every failure set
  components,           ///< convolution over connected components of the holder sets
};

[[nodiscard]] std::string to_string(RecoveryMethod method);

/// Exact numbers of failure sets that keep every checkpoint: recoverable[k] = G_k, k = 0..N.
struct RecoveryCounts {
  int machines = 0;
  RecoveryMethod method = RecoveryMethod::enumeration;
  std::vector<BigCount> recoverable;
};

/// C(n, k) for k = 0..n, exact.
[[nodiscard]] std::vector<BigCount> binomial_row(int n);

// ---- Shared exact-counting routines (used here, by domain_recovery and erasure_recovery) ----
/// Coefficients 0..last of A(x)^power, A(x) = sum_i a_i x^i with a_0 = 1, by J. C. P. Miller's
/// recurrence (Knuth, TAOCP vol. 2, 4.7): k p_k = sum_{i=1..min(k, deg A)} ((power + 1) i - k) a_i
/// p_{k-i}, exact (k divides the sum). Coefficients past power x deg A are 0. Group placement
/// uses A = (1 + x)^m - x^m, erasure-coded groups A = sum_{i <= p} C(g, i) x^i.
[[nodiscard]] std::vector<BigCount> polynomial_power(const std::vector<BigCount>& a, int power, int last);
/// Product of two count polynomials (coefficient lists), exact.
[[nodiscard]] std::vector<BigCount> multiply_counts(const std::vector<BigCount>& a, const std::vector<BigCount>& b);
/// The connected components of the elements 0..n-1 when each set links its members (union-find),
/// each component ascending, components in order of their smallest element. A failure set is
/// safe iff its part in every component is, so the counts of the whole are the product
/// (multiply_counts) of the components' counts.
[[nodiscard]] std::vector<std::vector<int>> linked_components(int n, const std::vector<std::vector<int>>& sets);

[[nodiscard]] RecoveryCounts group_recovery_counts(int machines, int replicas);  ///< throws PlacementError unless m | N
[[nodiscard]] RecoveryCounts ring_recovery_counts(int machines, int replicas);
[[nodiscard]] RecoveryCounts mixed_recovery_counts(int machines, int replicas);
/// Throws LimitError when there are more than 22 distinct minimal holder sets.
[[nodiscard]] RecoveryCounts inclusion_exclusion_recovery_counts(const Placement& placement);
/// Checks all 2^N failure sets; throws LimitError when N > 22.
[[nodiscard]] RecoveryCounts enumerate_recovery_counts(const Placement& placement);

/// The best exact method for this placement (closed forms when the holders are those of
/// group, ring or mixed), or nullopt when none is feasible (including a ring beyond
/// kRingClosedFormMemoryLimit).
[[nodiscard]] std::optional<RecoveryCounts> exact_recovery_counts(const Placement& placement);

/// Probabilities by k = 0..N derived from exact counts (see the header comment for errors).
struct RecoveryCurve {
  int machines = 0;
  std::string method;
  std::vector<double> probability;          ///< P_k
  std::vector<double> failure_probability;  ///< 1 - P_k, from exact counts
  std::vector<double> log10_probability;    ///< log10 P_k; -infinity when P_k = 0
  std::vector<double> union_bound;          ///< max(0, 1 - sum over distinct sets), see above
  std::vector<double> expected_lost_checkpoints;  ///< E[# machines whose every holder failed]
  std::vector<double> expected_storage_machines;  ///< N x (1 - P_k) (GEMINI restarts all)
};

[[nodiscard]] RecoveryCurve recovery_curve(const RecoveryCounts& counts, const Placement& placement);

/// Union bound and expected lost checkpoints by k (no exact counts needed; O(N D) doubles
/// from exact binomials).
[[nodiscard]] std::vector<double> union_bound_curve(const Placement& placement);
[[nodiscard]] std::vector<double> expected_lost_checkpoints_curve(const Placement& placement);

struct MonteCarloRecovery {
  std::size_t samples = 0;
  std::vector<double> probability;  ///< estimate of P_k, k = 0..N
  std::vector<double> ci95_low;     ///< Wilson 95% interval
  std::vector<double> ci95_high;
};

[[nodiscard]] MonteCarloRecovery monte_carlo_recovery(const Placement& placement, std::size_t samples,
                                                      std::uint64_t seed);

/// Monte Carlo estimates of P_k for k = 0..max_failures only (vectors of max_failures + 1):
/// each sample draws the first max_failures machines of a uniform random failure order
/// (partial Fisher-Yates with Boost's uniform_int_distribution on the stream (seed, 0,
/// analysis)) and checks, as each machine fails, the holder sets containing it. T is the
/// position at which a set has entirely failed (max_failures + 1 when none has); P_k =
/// Pr[T > k] with Wilson intervals as above. O(samples x max_failures x m^2): independent of
/// N, so a few failures among 200,000 machines take milliseconds where the whole-order
/// estimator above costs O(samples x N m).
[[nodiscard]] MonteCarloRecovery monte_carlo_recovery_first(const Placement& placement, std::size_t samples,
                                                            std::uint64_t seed, int max_failures);

/// Wilson score interval of a binomial proportion (successes of trials) at z.
struct Interval {
  double low = 0;
  double high = 0;
};
[[nodiscard]] Interval wilson_interval(std::size_t successes, std::size_t trials, double z = 1.959963984540054);

/// Independent failures with probability p per machine over a window.
struct WindowRecovery {
  double failure_probability_per_machine = 0;  ///< p
  double probability = 0;                      ///< P(every checkpoint survives in CPU memory)
  double failure_probability = 0;              ///< P(some machine's holders all failed)
  double expected_storage_machines = 0;        ///< N x failure_probability
  double expected_lost_checkpoints = 0;        ///< sum_i p^|H_i|
  double relative_error_bound = 0;             ///< bound on the relative error of the two probabilities
};

/// Throws ModelError unless 0 <= p <= 1.
[[nodiscard]] WindowRecovery window_recovery(const RecoveryCounts& counts, const Placement& placement, double p);

/// The time-window probabilities from Monte Carlo estimates of every P_k (mc over k = 0..N):
/// P(recover) = sum_k C(N,k) p^k (1-p)^(N-k) P^_k; relative_error_bound is NaN (no bound: the
/// error is the estimates'). Throws ModelError unless 0 <= p <= 1.
[[nodiscard]] WindowRecovery window_recovery_monte_carlo(const MonteCarloRecovery& mc, const Placement& placement,
                                                         double p);

/// C(n, k) p^k (1-p)^(n-k) as a double, through logarithms (lgamma).
[[nodiscard]] double binomial_weight(int n, int k, double p);

/// Working memory of the ring closed form (bytes): 2 (N+1) rows of N/64 + 2 limbs rounded up
/// to a multiple of 4, 8 bytes each (about N^2/4 bytes).
[[nodiscard]] double ring_closed_form_bytes(int machines);
/// The most the ring closed form may use: ring_recovery_counts() throws LimitError above it,
/// exact_recovery_counts() returns nullopt (callers fall back to Monte Carlo). About N = 92,000.
inline constexpr double kRingClosedFormMemoryLimit = 2.0 * 1024 * 1024 * 1024;

/// a / b as a double (see "Arithmetic" above); b > 0.
[[nodiscard]] double ratio_to_double(const BigCount& a, const BigCount& b);
/// log10(a / b); -infinity when a = 0.
[[nodiscard]] double log10_ratio(const BigCount& a, const BigCount& b);
/// Natural logarithm of a > 0 (absolute error below 2^-52 (|ln a| + 1)).
[[nodiscard]] double log_big(const BigCount& a);

}  // namespace ckptsim
