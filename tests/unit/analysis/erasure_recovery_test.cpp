// Exact survival of erasure-coded groups (analysis/erasure_recovery.hpp) against brute force.
#include <doctest/doctest.h>

#include <vector>

#include "ckptsim/analysis/erasure_recovery.hpp"
#include "ckptsim/checkpoint/erasure_code.hpp"

using namespace ckptsim;

namespace {

/// Big-integer equality as a plain bool: doctest would otherwise print the counts through
/// cpp_int's string conversion, where GCC 12 raises a false -Wrestrict inside libstdc++.
template <typename T>
bool same(const BigCount& a, const T& b) {
  return a == b;
}

/// Independent count: every subset of the N machines, safe iff no coding group (as built by
/// erasure_groups) has more than p of its members in the subset.
std::vector<long long> enumerate_safe_sets(PlacementScheme scheme, int machines, const ErasureCode& code) {
  const Placement groups = erasure_groups(scheme, machines, code);
  std::vector<long long> safe(static_cast<std::size_t>(machines) + 1, 0);
  for (unsigned mask = 0; mask < (1u << machines); ++mask) {
    bool ok = true;
    for (int i = 0; i < machines && ok; ++i) {
      int lost = 0;
      for (int h : groups.holders[static_cast<std::size_t>(i)]) lost += (mask >> h) & 1u;
      ok = lost <= code.parity;
    }
    if (ok) ++safe[static_cast<std::size_t>(__builtin_popcount(mask))];
  }
  return safe;
}

}  // namespace

TEST_CASE("erasure-coded survival counts equal enumeration of every loss set") {
  struct Case {
    int machines, g, p;
  };
  for (const Case c : {Case{6, 3, 1}, Case{8, 4, 1}, Case{8, 4, 2}, Case{9, 3, 2}, Case{12, 4, 1}, Case{12, 6, 2},
                       Case{12, 12, 5}, Case{16, 8, 3}}) {
    for (const PlacementScheme scheme : {PlacementScheme::group, PlacementScheme::group_spread}) {
      CAPTURE(c.machines);
      CAPTURE(c.g);
      CAPTURE(c.p);
      const ErasureCode code{c.g, c.p};
      const auto expected = enumerate_safe_sets(scheme, c.machines, code);
      const RecoveryCounts counts = erasure_recovery_counts(c.machines, code);
      REQUIRE(counts.recoverable.size() == expected.size());
      for (std::size_t k = 0; k < expected.size(); ++k) {
        CAPTURE(k);
        CHECK(same(counts.recoverable[k], expected[k]));
      }
    }
  }
}

TEST_CASE("erasure-coded survival: hand-worked values") {
  // N = 8, g = 4, p = 1: two losses survive iff they hit different groups, 4 x 4 = 16 of the
  // C(8, 2) = 28 pairs; three losses always put two in one group.
  const auto p = erasure_recovery_probability(8, ErasureCode{4, 1});
  CHECK(p[0] == 1.0);
  CHECK(p[1] == 1.0);
  CHECK(p[2] == doctest::Approx(16.0 / 28.0).epsilon(1e-15));
  CHECK(p[3] == 0.0);
  // p = 2: three losses survive iff split 2 + 1: 2 x C(4,2) x C(4,1) = 48 of C(8,3) = 56.
  const auto p2 = erasure_recovery_probability(8, ErasureCode{4, 2});
  CHECK(p2[2] == 1.0);
  CHECK(p2[3] == doctest::Approx(48.0 / 56.0).epsilon(1e-15));
  // 1,024 machines, g = 8, p = 1, k = 2: the second loss must avoid the first one's 7 group
  // mates among the 1,023 others: 1 - 7/1023.
  const auto big = erasure_recovery_probability(1024, ErasureCode{8, 1}, 3);
  REQUIRE(big.size() == 4);
  CHECK(big[2] == doctest::Approx(1.0 - 7.0 / 1023.0).epsilon(1e-14));
  // k = 3: all three in distinct groups: (1016/1023) x (1008/1022) (the third avoids 14 machines).
  CHECK(big[3] == doctest::Approx(1016.0 / 1023.0 * 1008.0 / 1022.0).epsilon(1e-14));
}

TEST_CASE("erasure-coded groups with g = m, p = m - 1 are GEMINI's group placement") {
  for (const int m : {2, 3, 4}) {
    const RecoveryCounts ec = erasure_recovery_counts(24, ErasureCode{m, m - 1});
    const RecoveryCounts gemini = group_recovery_counts(24, m);
    const bool equal = ec.recoverable == gemini.recoverable;
    CHECK(equal);
  }
}

TEST_CASE("a prefix of the counts equals the full counts") {
  const ErasureCode code{8, 2};
  const RecoveryCounts full = erasure_recovery_counts(64, code);
  const RecoveryCounts prefix = erasure_recovery_counts(64, code, 5);
  REQUIRE(prefix.recoverable.size() == 6);
  for (std::size_t k = 0; k < 6; ++k) CHECK(same(prefix.recoverable[k], full.recoverable[k]));
}

TEST_CASE("erasure-coded window probability") {
  // N = 8, g = 4, p = 1, q = 0.1: a group survives with 0.9^4 + 4 x 0.1 x 0.9^3 = 0.9477;
  // both groups 0.9477^2 = 0.89813529.
  CHECK(erasure_window_recovery(8, ErasureCode{4, 1}, 0.1) == doctest::Approx(0.89813529).epsilon(1e-12));
  CHECK(erasure_window_recovery(8, ErasureCode{4, 1}, 0.0) == 1.0);
  CHECK(erasure_window_recovery(8, ErasureCode{4, 1}, 1.0) == 0.0);
  CHECK_THROWS_AS((void)erasure_window_recovery(8, ErasureCode{4, 1}, 1.5), ModelError);
}

namespace {

/// Independent count over whole-domain failures: every subset of the N/s domains, safe iff no
/// coding group has more than p members in the failed domains; P_j = safe_j / C(R, j).
std::vector<double> enumerate_domain_probability(PlacementScheme scheme, int machines, const ErasureCode& code,
                                                 int domain_size) {
  const Placement groups = erasure_groups(scheme, machines, code);
  const int domains = machines / domain_size;
  std::vector<double> safe(static_cast<std::size_t>(domains) + 1, 0), all(safe.size(), 0);
  for (unsigned mask = 0; mask < (1u << domains); ++mask) {
    bool ok = true;
    for (int i = 0; i < machines && ok; ++i) {
      int lost = 0;
      for (int h : groups.holders[static_cast<std::size_t>(i)]) lost += (mask >> (h / domain_size)) & 1u;
      ok = lost <= code.parity;
    }
    const auto j = static_cast<std::size_t>(__builtin_popcount(mask));
    all[j] += 1;
    if (ok) safe[j] += 1;
  }
  for (std::size_t j = 0; j < safe.size(); ++j) safe[j] /= all[j];
  return safe;
}

}  // namespace

TEST_CASE("erasure-coded survival under whole-rack failures equals enumeration of every rack set") {
  struct Case {
    PlacementScheme scheme;
    int machines, g, p, rack;
  };
  const PlacementScheme group = PlacementScheme::group, spread = PlacementScheme::group_spread;
  for (const Case c : {Case{group, 16, 4, 1, 2}, Case{group, 16, 4, 2, 2}, Case{group, 16, 8, 3, 2}, Case{group, 16, 2, 1, 4},
                       Case{group, 24, 6, 2, 3}, Case{spread, 16, 4, 1, 2}, Case{spread, 16, 4, 2, 4},
                       Case{spread, 32, 4, 1, 8}, Case{spread, 32, 4, 2, 16}, Case{spread, 24, 4, 1, 2},
                       Case{spread, 32, 8, 2, 2}}) {
    CAPTURE(static_cast<int>(c.scheme));
    CAPTURE(c.machines);
    CAPTURE(c.g);
    CAPTURE(c.p);
    CAPTURE(c.rack);
    const ErasureCode code{c.g, c.p};
    const auto expected = enumerate_domain_probability(c.scheme, c.machines, code, c.rack);
    const auto got = erasure_domain_recovery_probability(c.scheme, c.machines, code, c.rack);
    REQUIRE(got.size() == expected.size());
    for (std::size_t j = 0; j < got.size(); ++j) CHECK(got[j] == doctest::Approx(expected[j]).epsilon(1e-14));
  }
}

TEST_CASE("erasure-coded survival under rack failures: hand-worked values and refusals") {
  // 1,024 machines, racks of 2, g = 8: consecutive groups span 4 racks with 2 members each, so
  // p = 1 loses a group at the first rack failure and p = 2 only when 2 of a group's 4 racks
  // fail: P_2 = 1 - 128 C(4,2) / C(512,2) (the second rack is one of the first's 3 partners).
  const auto p1 = erasure_domain_recovery_probability(PlacementScheme::group, 1024, ErasureCode{8, 1}, 2, 3);
  CHECK(p1[1] == 0.0);
  const auto p2 = erasure_domain_recovery_probability(PlacementScheme::group, 1024, ErasureCode{8, 2}, 2, 3);
  CHECK(p2[1] == 1.0);
  CHECK(p2[2] == doctest::Approx(1.0 - 3.0 / 511.0).epsilon(1e-14));
  // Spread groups (stride 128) put one member per rack: p = 1 survives any single rack, and two
  // racks are fatal iff they are in the same block of 8 racks 64 apart: 1 - 7/511.
  const auto s1 = erasure_domain_recovery_probability(PlacementScheme::group_spread, 1024, ErasureCode{8, 1}, 2, 3);
  CHECK(s1[1] == 1.0);
  CHECK(s1[2] == doctest::Approx(1.0 - 7.0 / 511.0).epsilon(1e-14));
  // Racks of 3 divide neither 1,024 nor the group: refused with the rack pointer.
  try {
    (void)erasure_domain_recovery_probability(PlacementScheme::group, 1024, ErasureCode{8, 1}, 3);
    FAIL("accepted");
  } catch (const PlacementError& e) {
    CHECK(e.parameter() == "/failures/domains/rack/machines");
  }
  CHECK_THROWS_AS((void)erasure_domain_recovery_probability(PlacementScheme::group, 24, ErasureCode{8, 1}, 3),
                  PlacementError);
}
