// Exact recovery probability under whole-domain failures (domain_recovery.hpp) against
// enumeration of every failed-domain set at the machine level.
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/analysis/domain_recovery.hpp"

using namespace ckptsim;

namespace {

/// Independent oracle: for each subset of domains, fail all their machines and check every
/// machine's holders directly; count safe subsets by size.
std::vector<long long> enumerate_domain_failures(const Placement& p, int size) {
  const int domains = (p.machines + size - 1) / size;
  std::vector<long long> safe(static_cast<std::size_t>(domains) + 1, 0);
  for (unsigned f = 0; f < (1u << static_cast<unsigned>(domains)); ++f) {
    bool ok = true;
    for (const auto& holders : p.holders) {
      bool all_failed = true;
      for (int h : holders) all_failed = all_failed && ((f >> static_cast<unsigned>(h / size)) & 1u);
      ok = ok && !all_failed;
    }
    if (ok) ++safe[static_cast<std::size_t>(__builtin_popcount(f))];
  }
  return safe;
}

}  // namespace

TEST_CASE("domain failures: exact counts equal enumeration for every placement on small clusters") {
  for (int machines : {12, 16, 18}) {
    for (int replicas : {2, 3}) {
      for (int size : {1, 2, 3, 4}) {
        std::vector<Placement> placements{ring_placement(machines, replicas), mixed_placement(machines, replicas),
                                          random_placement(machines, replicas, 5)};
        if (machines % replicas == 0) {
          placements.push_back(group_placement(machines, replicas));
          placements.push_back(spread_group_placement(machines, replicas));
        }
        for (const auto& p : placements) {
          CAPTURE(machines);
          CAPTURE(replicas);
          CAPTURE(size);
          const char* scheme = p.scheme.c_str();
          CAPTURE(scheme);
          const auto exact = domain_recovery_counts(p, size);
          const auto oracle = enumerate_domain_failures(p, size);
          REQUIRE(exact.size() == oracle.size());
          for (std::size_t j = 0; j < oracle.size(); ++j) CHECK(static_cast<long long>(exact[j]) == oracle[j]);
        }
      }
    }
  }
}

TEST_CASE("domain-aware group placement survives rack failures that plain group placement cannot") {
  // N = 1024, m = 2, racks of 2 machines (the Llama 3 cluster's racks).
  // Plain group: each group {2g, 2g+1} is one rack: any rack failure loses a checkpoint, P_j = 0
  // for j >= 1. Spread: group g = {g, g + 512} spans racks g/2 and 256 + g/2; the 512 racks form
  // 256 disjoint pairs, and a checkpoint is lost iff both racks of a pair fail:
  //   P_1 = 1,  P_2 = 1 - 256 / C(512, 2) = 1 - 1/511.
  const auto group = domain_recovery_probability(group_placement(1024, 2), 2);
  const auto spread = domain_recovery_probability(spread_group_placement(1024, 2), 2);
  REQUIRE(group.size() == 513);
  CHECK(group[0] == 1.0);
  CHECK(group[1] == 0.0);
  CHECK(spread[1] == 1.0);
  CHECK(spread[2] == doctest::Approx(1.0 - 1.0 / 511.0).epsilon(1e-12));
  // j = 3: lost iff the 3 racks contain a pair: 256 pairs x 510 third racks / C(512, 3).
  CHECK(spread[3] == doctest::Approx(1.0 - 256.0 * 510.0 / (512.0 * 511.0 * 510.0 / 6.0)).epsilon(1e-12));
}

TEST_CASE("spread group placement: members in distinct racks when N/m >= rack size") {
  const Placement p = spread_group_placement(12, 3);
  CHECK(p.holders[0] == std::vector<int>{0, 4, 8});
  CHECK(p.holders[5] == std::vector<int>{1, 5, 9});
  CHECK_THROWS_AS(spread_group_placement(10, 3), PlacementError);
}
