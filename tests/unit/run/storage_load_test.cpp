// A checkpoint's load from storage when every machine reads its shard at once
// (run/strategy_table.cpp, storage_transfer_time): max(C / B_agg, c / B_client), so the time is
// flat while each client's own limit binds and grows with the readers once the aggregate does;
// and what a load reads (workload/parallelism_model.hpp, storage_bytes): Megatron's ranks each
// read what they hold unless the load is fully parallel.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include "../common/megatron_documents.hpp"
#include "../common/test_scenarios.hpp"
#include "ckptsim/run/strategy.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/loader.hpp"

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

namespace {

/// A toy Megatron model with hand-counted parameters (tests/unit/workload/megatron_test.cpp,
/// "the parameter count equals the per-rank sum"): 358,464 parameters, at t = 1, p = 2 the first
/// stage's ranks hold 179,200 and the last's 179,264; with e = 2 experts. 2 DGX A100 = 16 GPUs,
/// bf16 (w = 2), c = 12 bytes per parameter, storage 20 GB/s.
Scenario megatron_toy(int tp, int ep, bool distributed_optimizer, bool fully_parallel_load) {
  nlohmann::json doc = test::small_megatron_document();
  doc["model"] = nlohmann::json::parse(R"({"layers": 4, "hidden": 64, "ffn": 96, "heads": 4, "kv_heads": 2, "vocabulary": 100,
                                           "gated_ffn": true, "tied_embeddings": false, "experts": 4, "experts_per_token": 2})");
  doc["training"]["megatron"] = {{"tp", tp}, {"pp", 2}, {"ep", ep}, {"micro_batches", 4},
                                 {"distributed_optimizer", distributed_optimizer}, {"fully_parallel_load", fully_parallel_load}};
  return load_scenario_json(doc, "toy.json", ".");
}

}  // namespace

TEST_CASE("storage load: Megatron's data-parallel ranks each read their copy unless the load is fully parallel (issue 39)") {
  // What storage holds, S = Φ (c + w) = 358,464 x 14 = 5,018,496 B, whatever the load does.
  // t = 1, p = 2: d = 16 / 2 = 8, each stage 8 ranks, each holding its stage's experts (e = 1).
  // Without the distributed optimizer a rank reads Φ_r (w + c) = 14 Φ_r:
  //   L = 8 x 14 x (179,200 + 179,264) = 40,147,968 B, 8x S (each data-parallel rank its copy).
  const StrategyCosts plain = compute_strategy_costs(megatron_toy(1, 1, false, false), nullptr);
  CHECK(plain.storage_save_bytes == doctest::Approx(5'018'496.0));
  CHECK(plain.storage_load_bytes == doctest::Approx(40'147'968.0));
  // The load from storage alone (the retrieval less the shard's reload) at 20 GB/s: 2.0074 ms.
  CHECK((plain.retrieval_storage - plain.retrieval_local).seconds() == doctest::Approx(40'147'968.0 / 20e9).epsilon(1e-6));
  // Distributed optimizer: the rank's optimizer shard is c Φ_r / 8 = 1.5 Φ_r, its 16-bit
  // parameters still 2 Φ_r: L = 8 x 3.5 x 358,464 = 10,036,992 B.
  CHECK(compute_strategy_costs(megatron_toy(1, 1, true, false), nullptr).storage_load_bytes == doctest::Approx(10'036'992.0));
  // t = 2, e = 2, distributed: d = 4, each stage 2 x 4 = 8 ranks. First stage, per rank: dense
  // 2 x 6,528 + 6,400 / 2 = 16,256, experts 2 x 18,432 = 36,864 (Φ_r 53,120); shard
  // 12 x (16,256 / 4 + 36,864 / (4 / 2)) = 269,952; 2 x 53,120 + 269,952 = 376,192. Last stage:
  // dense 13,056 + 3,200 + 64 = 16,320, experts 36,864 (Φ_r 53,184); 12 x (4,080 + 18,432) =
  // 270,144; 106,368 + 270,144 = 376,512. L = 8 x (376,192 + 376,512) = 6,021,632 B.
  CHECK(compute_strategy_costs(megatron_toy(2, 2, true, false), nullptr).storage_load_bytes == doctest::Approx(6'021'632.0));
  // Fully parallel load: the data group splits the reads, so the job reads S once, and the load
  // takes S / 20 GB/s = 0.2509 ms.
  const StrategyCosts once = compute_strategy_costs(megatron_toy(1, 1, false, true), nullptr);
  CHECK(once.storage_load_bytes == doctest::Approx(5'018'496.0));
  CHECK((once.retrieval_storage - once.retrieval_local).seconds() == doctest::Approx(5'018'496.0 / 20e9).epsilon(1e-6));
}

TEST_CASE("storage load: ZeRO-3 saves and reads C, each rank its own shard") {
  // The small scenario: C = Φ x 12 both ways, nothing read twice.
  const Scenario s = test::small_scenario(StrategyKind::remote_periodic);
  const StrategyCosts c = compute_strategy_costs(s, nullptr);
  CHECK(c.storage_save_bytes == doctest::Approx(s.model.parameters * 12));
  CHECK(c.storage_load_bytes == c.storage_save_bytes);
}
