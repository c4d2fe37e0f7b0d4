// A checkpoint's load from storage when every machine reads its shard at once
// (run/strategy_table.cpp, storage_transfer_time): max(C / B_agg, c / B_client), so the time is
// flat while each client's own limit binds and grows with the readers once the aggregate does.
#include <doctest/doctest.h>

#include "ckptsim/run/strategy.hpp"
#include "../common/test_scenarios.hpp"

using namespace ckptsim;

namespace {

/// The small scenario (tests/unit/common/test_scenarios.hpp: 12 bytes per parameter) on
/// `machines` machines with the model grown with them, so that every machine's shard stays
/// c = 0.75 GB; storage 6 GB/s in all, 0.75 GB/s per client. The time storage alone takes:
/// the storage retrieval minus the shard's reload (c / B_ser), which the local one is.
SimTime storage_part(int machines) {
  Scenario s = test::small_scenario(StrategyKind::remote_periodic);
  s.cluster.machines = machines;
  s.model.parameters = 1e9 * machines / 16.0;
  s.storage.bandwidth = 6e9;
  s.storage.client_bandwidth = 0.75e9;
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  return c.retrieval_storage - c.retrieval_local;
}

}  // namespace

TEST_CASE("storage load: flat while the per-client limit binds, doubling with the readers past the aggregate") {
  // c / B_client = 0.75 / 0.75 = 1 s per machine; C / B_agg = N x 0.75 GB / 6 GB/s = N / 8 s.
  // 4 machines: max(0.5, 1) = 1 s; 8: max(1, 1) = 1 s (the crossover, B_agg / B_client = 8
  // readers); 16: 2 s; 32: 4 s: twice the readers, twice the time, past the aggregate limit.
  CHECK(storage_part(4) == seconds(1));
  CHECK(storage_part(8) == seconds(1));
  CHECK(storage_part(16) == seconds(2));
  CHECK(storage_part(32) == seconds(4));
  // Without the per-client figure the aggregate alone: 4 machines read 3 GB in 0.5 s.
  Scenario s = test::small_scenario(StrategyKind::remote_periodic);
  s.cluster.machines = 4;
  s.model.parameters = 0.25e9;
  s.storage.bandwidth = 6e9;
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.retrieval_storage - c.retrieval_local == milliseconds(500));
}
