// Exact recovery probabilities (include/ckptsim/analysis/recovery_probability.hpp) against
// enumeration, hand counts, independent closed forms, Theorem 1 of GEMINI (SOSP '23) and its
// corollary, Monte Carlo, and the time-window formula.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include <boost/multiprecision/cpp_int.hpp>

#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/placement.hpp"

namespace ckptsim {
namespace {

std::vector<long long> as_ints(const RecoveryCounts& c) {
  std::vector<long long> out;
  for (const auto& x : c.recoverable) out.push_back(x.convert_to<long long>());
  return out;
}

double binomial(int n, int k) {
  if (k < 0 || k > n) return 0;
  double r = 1;
  for (int j = 0; j < k; ++j) r = r * (n - j) / (j + 1);
  return r;
}

/// Every placement in which machine i's holder set is i plus m-1 of the others, visited once.
void for_each_placement(int n, int m, const std::function<void(const Placement&)>& visit) {
  std::vector<std::vector<int>> choices;  // all (m-1)-subsets of 0..n-1, filtered per machine
  std::vector<int> pick(static_cast<std::size_t>(m - 1));
  Placement p;
  p.scheme = "exhaustive";
  p.machines = n;
  p.replicas = m;
  p.holders.resize(static_cast<std::size_t>(n));
  std::vector<std::vector<std::vector<int>>> per_machine(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    // subsets of size m-1 of the other machines, by bitmask
    for (int mask = 0; mask < (1 << n); ++mask) {
      if (mask & (1 << i)) continue;
      if (__builtin_popcount(static_cast<unsigned>(mask)) != m - 1) continue;
      std::vector<int> h{i};
      for (int j = 0; j < n; ++j)
        if (mask & (1 << j)) h.push_back(j);
      std::sort(h.begin(), h.end());
      per_machine[static_cast<std::size_t>(i)].push_back(h);
    }
  }
  std::function<void(int)> rec = [&](int i) {
    if (i == n) {
      visit(p);
      return;
    }
    for (const auto& h : per_machine[static_cast<std::size_t>(i)]) {
      p.holders[static_cast<std::size_t>(i)] = h;
      rec(i + 1);
    }
  };
  rec(0);
}

/// P_m for k = m failures: an m-set of failures loses a checkpoint iff it equals one of the
/// holder sets (all have size m), so P_m = 1 - (#distinct holder sets) / C(N, m).
double probability_at_m(const Placement& p) {
  std::set<std::vector<int>> distinct(p.holders.begin(), p.holders.end());
  return 1.0 - static_cast<double>(distinct.size()) / binomial(p.machines, p.replicas);
}

}  // namespace

TEST_CASE("recovery: hand-computed cases") {
  // N=4, m=2 group {0,1},{2,3}: k=2 loses only the two whole groups, 4 of C(4,2)=6 sets safe;
  // k=3 always contains a whole group; k=1: 4 safe singletons.
  CHECK(as_ints(group_recovery_counts(4, 2)) == std::vector<long long>{1, 4, 4, 0, 0});
  const auto g = recovery_curve(group_recovery_counts(4, 2), group_placement(4, 2));
  CHECK(g.probability[2] == doctest::Approx(4.0 / 6.0).epsilon(1e-15));
  CHECK(g.failure_probability[2] == doctest::Approx(2.0 / 6.0).epsilon(1e-15));

  // Ring N=5, m=2 (sets = edges of a 5-cycle): k=2 safe iff the two failures are not
  // adjacent: 10 - 5 = 5; no 3 of 5 cycle vertices are pairwise non-adjacent.
  CHECK(as_ints(ring_recovery_counts(5, 2)) == std::vector<long long>{1, 5, 5, 0, 0, 0});

  // Ring N=6, m=3: k=3 loses the 6 windows of 3 consecutive machines: 20 - 6 = 14. k=4: the 2
  // survivors must cut the circle into two runs of exactly 2 failures: survivors opposite,
  // 3 ways. k=5: one survivor leaves a run of 5 -> 0.
  CHECK(as_ints(ring_recovery_counts(6, 3)) == std::vector<long long>{1, 6, 15, 14, 3, 0, 0});

  // Mixed N=5, m=2: one group {0,1} and a ring over {2,3,4} ({2,3},{3,4},{2,4}): at k=2 the 4
  // holder pairs are lost, 10 - 4 = 6 safe; k=3 must take one of {0,1} and one... the safe
  // 3-sets pick 1 of {0,1} (2 ways) and 2 of the ring's 3 machines, which always lose a ring
  // pair; so 0.
  CHECK(as_ints(mixed_recovery_counts(5, 2)) == std::vector<long long>{1, 5, 6, 0, 0, 0});

  // m = 1: only k = 0 keeps every checkpoint.
  CHECK(as_ints(ring_recovery_counts(3, 1)) == std::vector<long long>{1, 0, 0, 0});
  CHECK(as_ints(group_recovery_counts(3, 1)) == std::vector<long long>{1, 0, 0, 0});
  // m = N: only k = N loses the single (shared) holder set.
  CHECK(as_ints(ring_recovery_counts(3, 3)) == std::vector<long long>{1, 3, 3, 0});
}

TEST_CASE("recovery: exact methods equal enumeration for every N <= 12, m <= 4, every k, every scheme") {
  int compared = 0;
  for (int n = 1; n <= 12; ++n) {
    for (int m = 1; m <= std::min(4, n); ++m) {
      std::vector<Placement> placements{ring_placement(n, m), mixed_placement(n, m)};
      if (n % m == 0) placements.push_back(group_placement(n, m));
      for (int jump = 2; m * jump <= n; ++jump)
        if (n % (m * jump) == 0) placements.push_back(clique_placement(n, m, jump));
      for (std::uint64_t seed : {1u, 2u, 3u}) placements.push_back(random_placement(n, m, seed));
      for (const auto& p : placements) {
        CAPTURE(n);
        CAPTURE(m);
        CAPTURE(p.scheme);
        const auto brute = enumerate_recovery_counts(p);
        const auto exact = exact_recovery_counts(p);
        REQUIRE(exact.has_value());
        CHECK(exact->recoverable == brute.recoverable);
        CHECK(inclusion_exclusion_recovery_counts(p).recoverable == brute.recoverable);
        ++compared;
      }
      // The closed forms are the ones chosen for the structured schemes.
      CHECK(exact_recovery_counts(ring_placement(n, m))->method ==
            (n % m == 0 && group_placement(n, m).holders == ring_placement(n, m).holders
                 ? RecoveryMethod::group_closed_form
                 : RecoveryMethod::ring_closed_form));
    }
  }
  CHECK(compared > 200);
}

TEST_CASE("recovery: independent closed forms at N = 4096 (weighted sums and small k)") {
  using BigInt = boost::multiprecision::cpp_int;
  const int n = 4096;
  // Group: sum_k G_k x^k = ((1+x)^m - x^m)^(N/m) (each group keeps a survivor), at x = 3;
  // 4096 is not a multiple of 3, so N = 4095.
  {
    const int n3 = 4095;
    const auto counts = group_recovery_counts(n3, 3);
    BigInt lhs = 0, power = 1;
    for (const auto& g : counts.recoverable) {
      lhs += g * power;
      power *= 3;
    }
    BigInt rhs = 1;
    for (int i = 0; i < n3 / 3; ++i) rhs *= 37;  // (1+3)^3 - 3^3 = 37
    CHECK(lhs == rhs);
  }
  // Ring, m = 3: weighted circular strings with no 3 consecutive failures are the power sums
  // of the roots of t^3 = t^2 + x t + x^2 (transfer matrix), s_n = s_{n-1} + x s_{n-2} +
  // x^2 s_{n-3}, s_0 = 3, s_1 = 1, s_2 = 1 + 2x (Newton's identities). At x = 3:
  {
    const auto counts = ring_recovery_counts(n, 3);
    BigInt lhs = 0, power = 1;
    for (const auto& g : counts.recoverable) {
      lhs += g * power;
      power *= 3;
    }
    BigInt s0 = 3, s1 = 1, s2 = 7;
    for (int i = 3; i <= n; ++i) {
      BigInt s3 = s2 + 3 * s1 + 9 * s0;
      s0 = s1;
      s1 = s2;
      s2 = s3;
    }
    CHECK(lhs == s2);
    // k = 3: only the N windows of 3 consecutive machines are lost. k = 4: a lost 4-set is a
    // window plus one of the other N-3 machines, minus the N runs of 4 counted twice: N(N-4).
    const auto curve = recovery_curve(counts, ring_placement(n, 3));
    CHECK(curve.failure_probability[3] == doctest::Approx(n / binomial(n, 3)).epsilon(1e-13));
    CHECK(curve.failure_probability[4] == doctest::Approx(double(n) * (n - 4) / binomial(n, 4)).epsilon(1e-13));
    CHECK(curve.probability[n] == 0.0);
    CHECK(std::isinf(curve.log10_probability[n]));
    // The largest k with any safe set: N-k survivors split the failures into runs of <= 2,
    // so k <= 2(N-k): k <= 2730 safe, k = 2731 never.
    // k = 2730: 1366 gaps with parts <= 2 summing to 2730 are 1365 twos and one 0 (1366 ways)
    // or 1364 twos and two 1s (C(1366, 2) ways): G = 4096 (1366 + C(1366, 2)) / 1366.
    // P ~ 10^-1100, below the double range, so only its log10 is finite.
    CHECK(counts.recoverable[2730] == BigInt(4096) * (1366 + 1366 * 1365 / 2) / 1366);
    CHECK(std::isfinite(curve.log10_probability[2730]));
    CHECK(curve.log10_probability[2730] < -300);
    CHECK(counts.recoverable[2730] > 0);
    CHECK(counts.recoverable[2731] == 0);
  }
  // Ring, m = 2: independent sets of a cycle, summed: the Lucas numbers L_n = L_{n-1} + L_{n-2}.
  {
    const auto counts = ring_recovery_counts(n, 2);
    BigInt lhs = 0;
    for (const auto& g : counts.recoverable) lhs += g;
    BigInt a = 2, b = 1;
    for (int i = 2; i <= n; ++i) {
      BigInt c = a + b;
      a = b;
      b = c;
    }
    CHECK(lhs == b);
  }
}

TEST_CASE("recovery: components are convolved; cycles of pairs use the ring closed form") {
  // Random m = 2 placements are unions of cycles (holder of i is pi(i), a derangement), so they
  // are exact at any N; at N <= 12 they equal enumeration.
  for (int n = 2; n <= 12; ++n) {
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const Placement p = random_placement(n, 2, seed);
      CHECK(exact_recovery_counts(p)->recoverable == enumerate_recovery_counts(p).recoverable);
    }
  }
  // A relabelled mix on 12 machines: machines {0, 5} hold each other (a group of 2), a 4-cycle
  // 1 -> 7 -> 3 -> 10 -> 1, and a ring of triples over {2, 4, 6, 8, 9, 11} in shuffled order.
  Placement p;
  p.scheme = "file";
  p.machines = 12;
  p.replicas = 2;
  p.holders.resize(12);
  p.holders[0] = {0, 5};
  p.holders[5] = {0, 5};
  p.holders[1] = {1, 7};
  p.holders[7] = {3, 7};
  p.holders[3] = {3, 10};
  p.holders[10] = {1, 10};
  const std::vector<int> ring6{4, 9, 2, 11, 6, 8};
  for (std::size_t j = 0; j < 6; ++j) {
    std::vector<int> h{ring6[j], ring6[(j + 1) % 6], ring6[(j + 2) % 6]};
    std::sort(h.begin(), h.end());
    p.holders[static_cast<std::size_t>(ring6[j])] = h;
  }
  const auto exact = exact_recovery_counts(p);
  REQUIRE(exact.has_value());
  CHECK(exact->method == RecoveryMethod::components);
  CHECK(exact->recoverable == enumerate_recovery_counts(p).recoverable);
  // Hand check at k = 2: the lost pairs are {0,5} and the 4 cycle edges: 66 - 5 = 61 safe.
  CHECK(exact->recoverable[2] == 61);

  // N = 4096, m = 2 random: exact, and inside a wide Monte Carlo interval at every k.
  const Placement big = random_placement(4096, 2, 3);
  const auto big_exact = exact_recovery_counts(big);
  REQUIRE(big_exact.has_value());
  const auto curve = recovery_curve(*big_exact, big);
  const auto mc = monte_carlo_recovery(big, 2000, 11);
  for (int k = 0; k <= 4096; k += 16) {
    const auto ki = static_cast<std::size_t>(k);
    const auto wide = wilson_interval(static_cast<std::size_t>(std::llround(mc.probability[ki] * 2000)), 2000, 4.5);
    CHECK(curve.probability[ki] >= wide.low - 1e-12);
    CHECK(curve.probability[ki] <= wide.high + 1e-12);
  }
  // k = 2 exactly: the failed pair is lost iff it is one of the distinct holder pairs.
  std::set<std::vector<int>> distinct(big.holders.begin(), big.holders.end());
  CHECK(curve.failure_probability[2] == doctest::Approx(double(distinct.size()) / binomial(4096, 2)).epsilon(1e-13));
}

TEST_CASE("recovery: Theorem 1, group is optimal when m divides N") {
  // Against every placement (holder set = i plus m-1 others) at k = m, the case the paper's
  // proof covers.
  for (const auto& [bound_n, bound_m] : std::vector<std::pair<int, int>>{{4, 2}, {6, 2}, {6, 3}}) {
    const int n = bound_n, m = bound_m;  // copies: clang 14 cannot capture a binding in CAPTURE
    CAPTURE(n);
    CAPTURE(m);
    double best = 0;
    for_each_placement(n, m, [&](const Placement& p) { best = std::max(best, probability_at_m(p)); });
    const auto group = recovery_curve(group_recovery_counts(n, m), group_placement(n, m));
    CHECK(group.probability[static_cast<std::size_t>(m)] == doctest::Approx(best).epsilon(1e-15));
  }
  // Against seeded random placements (each machine storing exactly m shards), at every k.
  for (const auto& [bound_n, bound_m] : std::vector<std::pair<int, int>>{{6, 2}, {8, 2}, {9, 3}, {12, 3}, {12, 4}, {12, 2}}) {
    const int n = bound_n, m = bound_m;  // copies: clang 14 cannot capture a binding in CAPTURE
    const auto group = group_recovery_counts(n, m).recoverable;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const auto other = exact_recovery_counts(random_placement(n, m, seed))->recoverable;
      for (int k = 0; k <= n; ++k) {
        CAPTURE(n);
        CAPTURE(m);
        CAPTURE(k);
        CAPTURE(seed);
        CHECK(group[static_cast<std::size_t>(k)] >= other[static_cast<std::size_t>(k)]);
      }
    }
  }
}

TEST_CASE("recovery: Theorem 1, mixed within (2m-3)/C(N,m) of the best when m does not divide N") {
  for (const auto& [bound_n, bound_m] : std::vector<std::pair<int, int>>{{3, 2}, {5, 2}, {7, 2}, {5, 3}, {7, 3}, {5, 4}, {6, 4}}) {
    const int n = bound_n, m = bound_m;  // copies: clang 14 cannot capture a binding in CAPTURE
    CAPTURE(n);
    CAPTURE(m);
    double best = 0;
    if (n <= 7 && !(n == 7 && m == 3))
      for_each_placement(n, m, [&](const Placement& p) { best = std::max(best, probability_at_m(p)); });
    else
      // 15^7 placements is too many: the best is ceil(N/m) distinct sets covering every
      // machine (fewer cannot contain all N machines), and overlapping sets of size m
      // achieve it, so P_best = 1 - ceil(N/m)/C(N,m).
      best = 1.0 - std::ceil(double(n) / m) / binomial(n, m);
    const auto mixed = recovery_curve(mixed_recovery_counts(n, m), mixed_placement(n, m));
    const double p_mixed = mixed.probability[static_cast<std::size_t>(m)];
    CHECK(p_mixed <= best + 1e-15);
    CHECK(best - p_mixed <= (2.0 * m - 3.0) / binomial(n, m) + 1e-15);
  }
}

TEST_CASE("recovery: group corollary bound, with equality for m <= k < 2m") {
  for (int m = 2; m <= 4; ++m) {
    for (int n : {m * 2, m * 5, m * 17, m * 100}) {
      const auto curve = recovery_curve(group_recovery_counts(n, m), group_placement(n, m));
      for (int k = 0; k <= n; ++k) {
        CAPTURE(n);
        CAPTURE(m);
        CAPTURE(k);
        const auto ki = static_cast<std::size_t>(k);
        // Corollary (GEMINI, SOSP '23, §3): P = 1 for k < m; P >= max{0, 1 - (N/m) C(N-m,k-m)/C(N,k)}.
        const double bound = k < m ? 1.0 : std::max(0.0, 1.0 - (n / m) * binomial(n - m, k - m) / binomial(n, k));
        CHECK(curve.union_bound[ki] == doctest::Approx(bound).epsilon(1e-12));
        CHECK(curve.probability[ki] >= curve.union_bound[ki] - 1e-14);
        if (k < m) CHECK(curve.probability[ki] == 1.0);
        // Two whole groups need 2m failures, so below 2m the union bound is exact.
        if (k >= m && k < 2 * m) CHECK(curve.probability[ki] == doctest::Approx(bound).epsilon(1e-12));
      }
    }
  }
}

TEST_CASE("recovery: the union bound (the paper's ring figure) never exceeds the exact value") {
  for (int n : {10, 31, 200}) {
    for (int m = 2; m <= 4; ++m) {
      for (const auto& p : {ring_placement(n, m), mixed_placement(n, m)}) {
        const auto curve = recovery_curve(*exact_recovery_counts(p), p);
        for (int k = 0; k <= n; ++k) CHECK(curve.probability[static_cast<std::size_t>(k)] >= curve.union_bound[static_cast<std::size_t>(k)] - 1e-14);
      }
    }
  }
  // The ring's bound is not exact: at N=6, m=3, k=4, exact 3/15 but bound 1 - 6 * 3/15 < 0 -> 0.
  const auto ring = recovery_curve(ring_recovery_counts(6, 3), ring_placement(6, 3));
  CHECK(ring.probability[4] == doctest::Approx(0.2));
  CHECK(ring.union_bound[4] == 0.0);
}

TEST_CASE("recovery: Monte Carlo intervals contain the exact values") {
  for (const auto& p : {mixed_placement(40, 3), ring_placement(30, 2), group_placement(24, 4)}) {
    CAPTURE(p.scheme);
    const auto exact = recovery_curve(*exact_recovery_counts(p), p);
    const auto mc = monte_carlo_recovery(p, 20000, 7);
    int outside95 = 0;
    for (int k = 0; k <= p.machines; ++k) {
      const auto ki = static_cast<std::size_t>(k);
      CAPTURE(k);
      // 95% intervals miss 5% of the time; over ~40 k's allow a few, and check a wide
      // (z = 4.5, miss ~7e-6) interval strictly.
      if (exact.probability[ki] < mc.ci95_low[ki] || exact.probability[ki] > mc.ci95_high[ki]) ++outside95;
      const auto wide = wilson_interval(static_cast<std::size_t>(std::llround(mc.probability[ki] * 20000)), 20000, 4.5);
      CHECK(exact.probability[ki] >= wide.low - 1e-12);
      CHECK(exact.probability[ki] <= wide.high + 1e-12);
    }
    CHECK(outside95 <= 6);
  }
  // Same seed, same estimate.
  const auto a = monte_carlo_recovery(ring_placement(20, 2), 500, 3);
  const auto b = monte_carlo_recovery(ring_placement(20, 2), 500, 3);
  CHECK(a.probability == b.probability);
}

TEST_CASE("recovery: probability over a window with independent failures") {
  // Group N=4, m=2: each group is lost only if both its machines fail: P = (1 - p^2)^2.
  const double p = 0.1;
  const auto w = window_recovery(group_recovery_counts(4, 2), group_placement(4, 2), p);
  CHECK(w.probability == doctest::Approx(0.99 * 0.99).epsilon(1e-14));
  CHECK(w.failure_probability == doctest::Approx(1 - 0.99 * 0.99).epsilon(1e-14));
  CHECK(w.expected_storage_machines == doctest::Approx(4 * (1 - 0.99 * 0.99)).epsilon(1e-14));
  // Each of the 4 machines loses its checkpoint with probability p^2.
  CHECK(w.expected_lost_checkpoints == doctest::Approx(4 * 0.01).epsilon(1e-14));
  CHECK(w.relative_error_bound > 0);
  CHECK(w.relative_error_bound < 1e-12);
  // Ring N=3, m=2: every pair is a holder set, so recovery needs at most one failure.
  const auto r = window_recovery(ring_recovery_counts(3, 2), ring_placement(3, 2), 0.2);
  CHECK(r.probability == doctest::Approx(0.8 * 0.8 * 0.8 + 3 * 0.2 * 0.8 * 0.8).epsilon(1e-14));
  // Edges.
  CHECK(window_recovery(ring_recovery_counts(5, 2), ring_placement(5, 2), 0.0).probability == 1.0);
  CHECK(window_recovery(ring_recovery_counts(5, 2), ring_placement(5, 2), 1.0).probability == 0.0);
  CHECK_THROWS_AS((void)window_recovery(ring_recovery_counts(5, 2), ring_placement(5, 2), 1.5), ModelError);
  // Large N: the tiny loss probability keeps its precision. Group N=4095, m=3, p=1e-4:
  // P(lost) = 1 - (1 - p^3)^1365 ~= 1365 p^3 = 1.365e-9 (second order 1e-24).
  const auto big = window_recovery(group_recovery_counts(4095, 3), group_placement(4095, 3), 1e-4);
  CHECK(big.failure_probability == doctest::Approx(-std::expm1(1365 * std::log1p(-1e-12))).epsilon(1e-10));
  CHECK(big.probability + big.failure_probability == doctest::Approx(1.0).epsilon(1e-12));
}

TEST_CASE("recovery: ratios of huge counts") {
  const auto row = binomial_row(4096);
  // C(4096, 2048) has 1232 decimal digits: log10 = 1231.xx
  const double digits = log10_ratio(row[2048], BigCount(1));
  CHECK(digits > 1231.0);
  CHECK(digits < 1232.0);
  CHECK(static_cast<double>(row[2048].str().size()) == doctest::Approx(std::floor(digits) + 1));
  CHECK(ratio_to_double(row[2048], row[2048]) == 1.0);
  CHECK(ratio_to_double(row[1], row[2]) == doctest::Approx(4096.0 / (4096.0 * 4095 / 2)).epsilon(1e-15));
  CHECK(ratio_to_double(BigCount(1), row[2048]) == 0.0);  // below the double range
  CHECK(log10_ratio(BigCount(1), row[2048]) < -1231);
}

}  // namespace ckptsim

namespace ckptsim {

TEST_CASE("recovery: the first-failures Monte Carlo estimator agrees with the exact values for small k") {
  // Only k = 0..6 are estimated (vectors of 7); each must lie in the z = 4.5 Wilson interval
  // of its estimate (miss ~7e-6 per k), and k = 0, 1 are exactly 1 (no set of 2 or more fails).
  for (const auto& p : {ring_placement(30, 3), group_placement(24, 2), mixed_placement(40, 3)}) {
    CAPTURE(p.scheme);
    const auto exact = recovery_curve(*exact_recovery_counts(p), p);
    const auto mc = monte_carlo_recovery_first(p, 20000, 5, 6);
    REQUIRE(mc.probability.size() == 7);
    CHECK(mc.probability[0] == 1.0);
    CHECK(mc.probability[1] == 1.0);
    for (std::size_t k = 0; k <= 6; ++k) {
      CAPTURE(k);
      const auto wide = wilson_interval(static_cast<std::size_t>(std::llround(mc.probability[k] * 20000)), 20000, 4.5);
      CHECK(exact.probability[k] >= wide.low - 1e-12);
      CHECK(exact.probability[k] <= wide.high + 1e-12);
    }
  }
  // Independent of N: 200,000 machines, 3 failures, in a blink. A ring with m = 3 loses a
  // checkpoint at k = 3 only when the 3 failures are 3 consecutive machines: N of the C(N, 3)
  // sets, P_3 = 1 - N / C(N, 3) = 1 - 6 / ((N-1)(N-2)) = 1 - 1.5e-10, so every sample recovers.
  const auto big = monte_carlo_recovery_first(ring_placement(200000, 3), 1000, 1, 3);
  REQUIRE(big.probability.size() == 4);
  CHECK(big.probability[3] == 1.0);
}

TEST_CASE("recovery: the Monte Carlo window estimate weighs the estimates binomially") {
  // Group N = 12, m = 3 with p = 0.2: exact window probability from the counts, against the
  // same weights over whole-order Monte Carlo estimates of every P_k (20,000 samples: each
  // P_k has sd <= 0.0035, and the weighted sum no more than that).
  const Placement p = group_placement(12, 3);
  const auto counts = *exact_recovery_counts(p);
  const WindowRecovery exact = window_recovery(counts, p, 0.2);
  const auto mc = monte_carlo_recovery(p, 20000, 9);
  const WindowRecovery estimate = window_recovery_monte_carlo(mc, p, 0.2);
  // By hand: a group survives unless all 3 fail (0.2^3 = 0.008); 4 groups: 0.992^4 = 0.968382.
  CHECK(exact.probability == doctest::Approx(0.968382).epsilon(1e-5));
  CHECK(std::fabs(estimate.probability - exact.probability) <= 4 * 0.0035);
  CHECK(estimate.failure_probability == doctest::Approx(1.0 - estimate.probability));
  CHECK(estimate.expected_storage_machines == doctest::Approx(12 * estimate.failure_probability));
  // sum_i p^|H_i| = 12 x 0.008 = 0.096, the same with or without counts.
  CHECK(estimate.expected_lost_checkpoints == doctest::Approx(0.096));
  CHECK(std::isnan(estimate.relative_error_bound));
  // The binomial weights sum to 1 and match C(n, k) p^k (1-p)^(n-k) by hand: C(12, 2) 0.04 0.8^10.
  double total = 0;
  for (int k = 0; k <= 12; ++k) total += binomial_weight(12, k, 0.2);
  CHECK(total == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(binomial_weight(12, 2, 0.2) == doctest::Approx(66 * 0.04 * std::pow(0.8, 10)).epsilon(1e-12));
  CHECK_THROWS_AS((void)window_recovery_monte_carlo(mc, p, 1.5), ModelError);
}

TEST_CASE("recovery: a ring beyond the closed form's memory limit has no exact counts") {
  // ring_closed_form_bytes ~ N^2 / 4: 2 GiB at about N = 92,000. 4096 is exact; 200,000 is not.
  CHECK(ring_closed_form_bytes(4096) < kRingClosedFormMemoryLimit);
  CHECK(ring_closed_form_bytes(200000) > kRingClosedFormMemoryLimit);
  CHECK_FALSE(exact_recovery_counts(ring_placement(200000, 3)).has_value());
  CHECK_THROWS_AS((void)ring_recovery_counts(200000, 3), LimitError);
}

}  // namespace ckptsim

namespace ckptsim {
namespace {

/// Failure sets of `machines` machines in consecutive blocks of `block` (by size k) with at most
/// `tolerated` failed machines in every block, by enumeration of all 2^machines sets.
std::vector<long long> enumerate_blocks(int machines, int block, int tolerated) {
  std::vector<long long> out(static_cast<std::size_t>(machines) + 1, 0);
  for (unsigned f = 0; f < (1u << machines); ++f) {
    bool ok = true;
    for (int b = 0; b < machines / block && ok; ++b)
      ok = std::popcount((f >> (b * block)) & ((1u << block) - 1)) <= tolerated;
    if (ok) ++out[static_cast<std::size_t>(std::popcount(f))];
  }
  return out;
}

}  // namespace

TEST_CASE("shared exact counting: polynomial_power against enumeration of the failure sets") {
  // Group placement, 4 groups of 3 (12 machines): a set keeps every checkpoint iff no group is
  // wholly failed, i.e. at most 2 per group: A = (1 + x)^3 - x^3 = 1 + 3x + 3x^2, A^4.
  {
    const auto p = polynomial_power({1, 3, 3}, 4, 12);
    const auto want = enumerate_blocks(12, 3, 2);
    REQUIRE(p.size() == want.size());
    for (std::size_t k = 0; k < want.size(); ++k) CHECK(p[k].convert_to<long long>() == want[k]);
  }
  // Erasure code with groups of 4 and p = 1 (16 machines): at most one failure per group:
  // A = 1 + 4x, A^4; truncated at k = 3 (the last index asked for).
  {
    const auto p = polynomial_power({1, 4}, 4, 3);
    const auto want = enumerate_blocks(16, 4, 1);
    REQUIRE(p.size() == 4);
    for (std::size_t k = 0; k < 4; ++k) CHECK(p[k].convert_to<long long>() == want[k]);
    // By hand: C(4, 3) 4^3 = 256 sets of 3 failures in 3 distinct groups.
    CHECK(p[3] == 256);
  }
}

TEST_CASE("shared exact counting: linked_components and multiply_counts") {
  // Sets {0,1}, {1,2}, {4,5} link 0-1-2 and 4-5; 3 and 6 stand alone.
  const auto c = linked_components(7, {{0, 1}, {1, 2}, {4, 5}});
  REQUIRE(c.size() == 4);
  CHECK(c[0] == std::vector<int>{0, 1, 2});
  CHECK(c[1] == std::vector<int>{3});
  CHECK(c[2] == std::vector<int>{4, 5});
  CHECK(c[3] == std::vector<int>{6});
  // (1 + x)(1 + 2x + x^2) = 1 + 3x + 3x^2 + x^3.
  const auto m = multiply_counts({1, 1}, {1, 2, 1});
  REQUIRE(m.size() == 4);
  CHECK(m[0] == 1);
  CHECK(m[1] == 3);
  CHECK(m[2] == 3);
  CHECK(m[3] == 1);
}

}  // namespace ckptsim
