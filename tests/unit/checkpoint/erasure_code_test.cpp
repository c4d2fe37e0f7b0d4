// The erasure-coded layout: memory, traffic, repair and groups (checkpoint/erasure_code.hpp).
#include <doctest/doctest.h>

#include <string>

#include "ckptsim/checkpoint/erasure_code.hpp"

using namespace ckptsim;

TEST_CASE("erasure-coded memory, traffic and repair per machine, hand-worked") {
  const double c = 3.0e9;  // shard bytes
  // g = 8, p = 1: stripes of 7 data + 1 parity symbol, one symbol per machine per stripe:
  // 8 c / 7 per machine; two buffers 16 c / 7.
  const ErasureCode xor8{8, 1};
  CHECK(xor8.shards_per_machine() == doctest::Approx(8.0 / 7.0));
  CHECK(xor8.cpu_memory_bytes(c) == doctest::Approx(2.0 * 8.0 / 7.0 * c));
  // Each machine sends each of its data symbols to the p parity holders of the stripe: p c.
  CHECK(xor8.traffic_bytes(c) == doctest::Approx(c));
  // A replaced machine reads g - p = 7 symbols per symbol of its shard.
  CHECK(xor8.repair_bytes(c) == doctest::Approx(7 * c));
  // g = 8, p = 2: 8 / 6 = 4/3 shards, traffic 2 c, repair 6 c.
  const ErasureCode rs8{8, 2};
  CHECK(rs8.shards_per_machine() == doctest::Approx(4.0 / 3.0));
  CHECK(rs8.traffic_bytes(c) == doctest::Approx(2 * c));
  CHECK(rs8.repair_bytes(c) == doctest::Approx(6 * c));
  // g = 2, p = 1 is mirroring: 2 shards, like GEMINI with m = 2.
  CHECK(ErasureCode{2, 1}.shards_per_machine() == 2.0);
}

TEST_CASE("erasure-coded groups: consecutive and spread") {
  const ErasureCode code{4, 1};
  const Placement consecutive = erasure_groups(PlacementScheme::group, 8, code);
  CHECK(consecutive.holders[1] == std::vector<int>{0, 1, 2, 3});
  CHECK(consecutive.holders[6] == std::vector<int>{4, 5, 6, 7});
  // group-spread: stride N/g = 2, group of machine 1 = {1, 3, 5, 7}.
  const Placement spread = erasure_groups(PlacementScheme::group_spread, 8, code);
  CHECK(spread.holders[1] == std::vector<int>{1, 3, 5, 7});
  CHECK(spread.holders[4] == std::vector<int>{0, 2, 4, 6});
}

TEST_CASE("erasure-coded parameters out of range are refused with their pointer") {
  const auto pointer_of = [](const ErasureCode& code, int machines, PlacementScheme scheme = PlacementScheme::group) {
    try {
      (void)erasure_groups(scheme, machines, code);
    } catch (const PlacementError& e) {
      return e.parameter();
    }
    return std::string("(accepted)");
  };
  CHECK(pointer_of({8, 0}, 16) == "/strategy/parity");      // p = 0: no redundancy, refused
  CHECK(pointer_of({4, 4}, 16) == "/strategy/group_size");  // p >= g
  CHECK(pointer_of({32, 1}, 16) == "/strategy/group_size"); // g > N
  CHECK(pointer_of({6, 1}, 16) == "/strategy/group_size");  // g does not divide N
  CHECK(pointer_of({4, 1}, 16, PlacementScheme::ring) == "/strategy/placement");
  CHECK(pointer_of({4, 1}, 16) == "(accepted)");
}
