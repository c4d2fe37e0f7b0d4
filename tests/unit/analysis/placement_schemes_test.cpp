// Random and file placements, and the CPU memory a placement costs
// (include/ckptsim/checkpoint/placement.hpp); kept with the placement analysis tests.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/core/error.hpp"

namespace ckptsim {
namespace {

bool has_problem(const InputError& e, const std::string& pointer) {
  return std::any_of(e.problems().begin(), e.problems().end(), [&](const Problem& p) { return p.pointer == pointer; });
}

}  // namespace

TEST_CASE("placement: random stores exactly m distinct shards per machine, reproducibly") {
  // (N, m) pairs cover the permutation-repair construction (2(m-1) <= N) and the cyclic-shift
  // fallback (e.g. N=5, m=4 and N=7, m=6).
  for (const auto& [bound_n, bound_m] : std::vector<std::pair<int, int>>{{1, 1}, {2, 2}, {3, 2}, {5, 3}, {5, 4}, {7, 6}, {8, 8},
                                                                         {12, 4}, {64, 3}, {4096, 3}, {100, 40}}) {
    const int n = bound_n, m = bound_m;  // copies: clang 14 cannot capture a binding in CAPTURE
    for (std::uint64_t seed : {1u, 9u}) {
      CAPTURE(n);
      CAPTURE(m);
      CAPTURE(seed);
      const Placement p = random_placement(n, m, seed);
      REQUIRE(p.holders.size() == static_cast<std::size_t>(n));
      CHECK(p.scheme == "random");
      for (int i = 0; i < n; ++i) {
        const auto& h = p.holders[static_cast<std::size_t>(i)];
        CHECK(static_cast<int>(std::set<int>(h.begin(), h.end()).size()) == m);  // distinct
        CHECK(std::binary_search(h.begin(), h.end(), i));                         // local replica
        CHECK(std::is_sorted(h.begin(), h.end()));
      }
      for (const auto& stored : p.stored_on()) CHECK(static_cast<int>(stored.size()) == m);
      CHECK(p.max_shards_per_machine() == m);
      CHECK(random_placement(n, m, seed).holders == p.holders);
    }
  }
  // Different seeds give different placements (N=64: many possible).
  CHECK(random_placement(64, 3, 1).holders != random_placement(64, 3, 2).holders);
  CHECK(make_placement(PlacementScheme::random, 10, 2, 5).holders == random_placement(10, 2, 5).holders);
  CHECK_THROWS_AS((void)random_placement(3, 4, 1), PlacementError);
}

TEST_CASE("placement: NVRx cliques, worked by hand") {
  // NVRx's docstring example at machine granularity: 8 machines, m = 2, J = 2: blocks of 4
  // machines, in each the machines with the same offset mod 2 pair up: {0,2} {1,3} {4,6} {5,7}.
  const Placement p = clique_placement(8, 2, 2);
  const std::vector<std::vector<int>> expected{{0, 2}, {1, 3}, {0, 2}, {1, 3}, {4, 6}, {5, 7}, {4, 6}, {5, 7}};
  CHECK(p.holders == expected);
  CHECK(p.scheme == "clique");
  // J = 1 (NVRx's default jump, one machine's GPUs) is group placement; J = N / m is group-spread.
  CHECK(clique_placement(12, 3, 1).holders == group_placement(12, 3).holders);
  CHECK(clique_placement(12, 3, 4).holders == spread_group_placement(12, 3).holders);
  CHECK(make_placement(PlacementScheme::clique, 8, 2, 0, 2).holders == expected);
}

TEST_CASE("placement: groups tile the machines when m (group) or m J (clique) divides N") {
  CHECK(groups_tile(PlacementScheme::clique, 8, 2, 2));         // blocks of 4 in 8
  CHECK_FALSE(groups_tile(PlacementScheme::clique, 6, 2, 2));   // 4 does not divide 6
  CHECK_FALSE(groups_tile(PlacementScheme::clique, 6, 2, 4));   // a block of 8 > 6
  CHECK_FALSE(groups_tile(PlacementScheme::clique, 8, 2, 0));   // no jump of 0
  CHECK_FALSE(groups_tile(PlacementScheme::group, 7, 2));       // 2 does not divide 7
  CHECK(groups_tile(PlacementScheme::group_spread, 12, 3));
  CHECK(groups_tile(PlacementScheme::ring, 7, 2));              // no groups to tile
}

TEST_CASE("placement: a clique block that does not divide the machines is refused at the jump") {
  // m J = 2 x 2 = 4 does not divide 6; m J = 2 x 4 = 8 exceeds 6.
  CHECK_THROWS_WITH_AS((void)clique_placement(6, 2, 2), doctest::Contains("/strategy/replication_jump"), PlacementError);
  CHECK_THROWS_AS((void)clique_placement(6, 2, 4), PlacementError);
  CHECK_THROWS_AS((void)clique_placement(6, 2, 0), PlacementError);
}

TEST_CASE("placement: CPU memory is 2 buffers x shards stored x shard bytes") {
  // Every scheme stores m shards per machine: 2 x 3 x 1e9 bytes for m = 3.
  CHECK(placement_cpu_memory_bytes(ring_placement(16, 3), 1e9) == 6e9);
  CHECK(placement_cpu_memory_bytes(group_placement(16, 2), 9.4e9) == doctest::Approx(37.6e9));
  // An unbalanced file placement: machine 0 holds all three checkpoints.
  const Placement p = parse_placement_json(R"({"machines": 3, "holders": [[0, 1], [0, 1], [0, 2]]})", "t.json");
  CHECK(p.max_shards_per_machine() == 3);
  CHECK(placement_cpu_memory_bytes(p, 1.0) == 6.0);
}

TEST_CASE("placement: file placements load and validate") {
  const Placement p = parse_placement_json(R"({"machines": 4, "holders": [[0,1],[1,0],[3,2],[2,3]]})", "p.json");
  CHECK(p.scheme == "file");
  CHECK(p.machines == 4);
  CHECK(p.replicas == 2);
  CHECK(p.holders == group_placement(4, 2).holders);  // sorted on load

  // Every problem at once, each at its JSON pointer.
  try {
    (void)parse_placement_json(R"({"machines": 3, "holders": [[0,1],[1,5],[0],[2,0]], "extra": 1})", "bad.json");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(has_problem(e, "/extra"));       // unknown key
    CHECK(has_problem(e, "/holders"));     // 4 sets for 3 machines
    CHECK(has_problem(e, "/holders/1/1"));  // 5 out of range
    CHECK(has_problem(e, "/holders/2"));   // size 1 instead of 2, and no machine 2
    for (const auto& pr : e.problems()) CHECK(pr.file == "bad.json");
  }
  try {
    (void)parse_placement_json(R"({"holders": [[0,0]]})", "dup.json");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(has_problem(e, "/machines"));
    CHECK(has_problem(e, "/holders/0/1"));  // duplicate
  }
  CHECK_THROWS_AS((void)parse_placement_json("{not json", "x.json"), InputError);
  CHECK_THROWS_AS((void)parse_placement_json("[1, 2]", "x.json"), InputError);
  CHECK_THROWS_AS((void)parse_placement_json(R"({"machines": 0, "holders": []})", "x.json"), InputError);
  CHECK_THROWS_AS((void)parse_placement_json(R"({"machines": 2, "holders": [[1], [0]]})", "x.json"), InputError);

  const auto path = std::filesystem::temp_directory_path() / "ckptsim_placement_schemes_test.json";
  {
    std::ofstream out(path);
    out << R"({"machines": 3, "holders": [[0, 1], [1, 2], [2, 0]]})";
  }
  CHECK(load_placement_file(path).holders == ring_placement(3, 2).holders);
  std::filesystem::remove(path);
  try {
    (void)load_placement_file(path);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.problems().at(0).file == path.string());
  }
}

TEST_CASE("placement: a number beyond double is an InputError, not a parser exception (fuzz finding)") {
  // nlohmann::json reports 1e400 with out_of_range, not parse_error: it escaped the reader as
  // an internal error. Now a problem at the value's pointer.
  try {
    (void)parse_placement_json(R"({"machines": 1e400, "holders": [[0]]})", "big.json");
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.problems().at(0).file == "big.json");
    CHECK(e.problems().at(0).pointer == "/machines");
  }
}

}  // namespace ckptsim
