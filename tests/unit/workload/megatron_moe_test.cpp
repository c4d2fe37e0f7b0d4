// Megatron-core's MoE token dispatch in the megatron iteration model (megatron_iteration.hpp,
// "MoE dispatch"): capacity, dropped and padded rows, the busiest expert, the permutation bytes,
// on a toy router worked by hand.
#include <doctest/doctest.h>

#include <string>

#include <nlohmann/json.hpp>

#include "../common/megatron_documents.hpp"
#include "../common/scenario_documents.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/workload/megatron_iteration.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// One DGX A100 (8 GPUs): tp 1, pp 1, dp 8, ep 2; 2 layers of h 1024, f 4096, 16 heads, 4
/// experts, top-2; one sequence of 1,024 tokens per micro-batch. So T = T' = 1,024, A = T'·k =
/// 2,048 assignments, m = 512 per expert, E/e = 2 local experts, u = 1, w = 2.
json moe_toy_document() {
  return json::parse(R"({
    "cluster": {"instance": "dgx-a100", "machines": 1},
    "storage": {"bandwidth": "20GB/s"},
    "model": {"layers": 2, "hidden": 1024, "ffn": 4096, "heads": 16, "vocabulary": 32000,
              "experts": 4, "experts_per_token": 2},
    "training": {"parallelism": "megatron", "micro_batch": 1, "sequence_length": 1024,
                 "serialization_bandwidth": "2GB/s", "attention": "flash",
                 "megatron": {"tp": 1, "pp": 1, "ep": 2, "micro_batches": 1, "distributed_optimizer": true}},
    "strategy": {"kind": "remote-periodic"},
    "failures": {"process": "none"},
    "run": {"duration": "1d"}
  })");
}

MegatronIteration moe_toy(const json& megatron_extra) {
  json doc = moe_toy_document();
  for (const auto& [k, v] : megatron_extra.items()) doc["training"]["megatron"][k] = v;
  return simulate_megatron_iteration(load_scenario_json(doc, "moe.json", "."));
}

const MegatronCollective* moe_collective(const MegatronIteration& it, const std::string& name) {
  return test::find_named(it.collectives, name);
}

}  // namespace

TEST_CASE("moe dispatch: balanced and dropless, the permutation bytes by hand") {
  const MegatronIteration it = moe_toy(json::object());
  const MegatronMoeDispatch& x = it.moe;
  // R = A = 2,048 rows sent; each local expert gets e·m = 2 x 512 = 1,024 rows (the model
  // before: T·k·e/E = 1,024); the rank N = 2,048.
  CHECK(x.capacity == 0);
  CHECK(x.routed == 2048);
  CHECK(x.busiest_expert == 1024);
  CHECK(x.other_expert == 1024);
  CHECK(x.busiest_rank == 2048);
  CHECK(x.dropped == 0);
  CHECK(x.padding == 0);
  // Rows of h·w = 2,048 B: permute 2R = 8,388,608 B; sort 2N = 8,388,608 B (twice); unpermute
  // 5R + T' rows = 11,264 rows = 23,068,672 B; 48,234,496 B in all.
  CHECK(x.permute == 8'388'608);
  CHECK(x.sort == 8'388'608);
  CHECK(x.unpermute == 23'068'672);
  CHECK(x.permutation_bytes() == 48'234'496);
  // The all-to-all's buffer: max(R, N/u) = 2,048 rows of 2,048 B = T'·k·h·w, as before.
  const MegatronCollective* a2a = moe_collective(it, "expert all-to-all");
  REQUIRE(a2a);
  CHECK(a2a->bytes == 2048.0 * 2048.0);
}

TEST_CASE("moe dispatch: an imbalanced router makes its busiest expert set the step") {
  const MegatronIteration even = moe_toy(json::object());
  const MegatronIteration hot = moe_toy({{"moe_load_imbalance", 1.5}});
  const MegatronMoeDispatch& x = hot.moe;
  // λ = 1.5: the busiest expert 768 of a rank's assignments, the other three (2,048 - 768)/3 =
  // 426.67 each; R is still 2,048 (dropless); the busiest rank: 2 x 768 = 1,536 rows in that
  // expert, 2 x 426.67 = 853.33 in its other one, N = 2,389.33.
  CHECK(x.routed == doctest::Approx(2048));
  CHECK(x.busiest_expert == doctest::Approx(1536));
  CHECK(x.other_expert == doctest::Approx(2 * 1280.0 / 3));
  CHECK(x.busiest_rank == doctest::Approx(1536 + 2 * 1280.0 / 3));
  // The all-to-all waits for the busiest receiver: 2,389.33 rows of 2,048 B.
  CHECK(moe_collective(hot, "expert all-to-all")->bytes == doctest::Approx((1536 + 2 * 1280.0 / 3) * 2048));
  // More rows on the busiest rank: its layer takes longer, and so does the iteration.
  CHECK(hot.layer_forward_compute > even.layer_forward_compute);
  CHECK(hot.iteration_time > even.iteration_time);
}

TEST_CASE("moe dispatch: a capacity factor drops, and padding fills every expert to capacity") {
  // Factor 1.25: c = ceil(2,048 / 4 x 1.25) = 640. With λ = 1.5 the busiest expert's 768 rows
  // keep 640 and drop 128 = 6.25% of 2,048; R = 640 + 3 x 426.67 = 1,920.
  const MegatronIteration drop = moe_toy({{"moe_load_imbalance", 1.5}, {"moe_capacity_factor", 1.25}});
  CHECK(drop.moe.capacity == 640);
  CHECK(drop.moe.routed == doctest::Approx(1920));
  CHECK(drop.moe.dropped == doctest::Approx(0.0625));
  CHECK(drop.moe.padding == 0);
  CHECK(drop.moe.busiest_expert == doctest::Approx(1280));
  // Padded: every expert gets 640 rows, R = 2,560, of which 2,560 - 1,920 = 640 are padding
  // (25%); both local experts of the busiest rank compute 2 x 640 = 1,280 rows, N = 2,560.
  const MegatronIteration pad =
      moe_toy({{"moe_load_imbalance", 1.5}, {"moe_capacity_factor", 1.25}, {"moe_pad_to_capacity", true}});
  CHECK(pad.moe.routed == 2560);
  CHECK(pad.moe.dropped == doctest::Approx(0.0625));
  CHECK(pad.moe.padding == doctest::Approx(0.25));
  CHECK(pad.moe.busiest_rank == 2560);
  CHECK(pad.moe.permute == 2 * 2560.0 * 2048);
  // Balanced load under the same capacity: m = 512 < 640, nothing dropped, and padding fills
  // every expert from 512 to 640 rows: 4 x 128 = 512 of 2,560 rows (20%).
  const MegatronIteration even_pad = moe_toy({{"moe_capacity_factor", 1.25}, {"moe_pad_to_capacity", true}});
  CHECK(even_pad.moe.dropped == 0);
  CHECK(even_pad.moe.padding == doctest::Approx(0.2));
}

TEST_CASE("moe dispatch: under sequence parallelism the FFN half's tensor collectives carry the expert rows") {
  // tp 2 with sequence parallelism (dp 4, ep 2): T = 1,024, T' = 512, A = 1,024, m = 256, u = 2;
  // each local expert of the busiest rank 2 x 2 x 256 = 1,024 rows, N = 2,048. The attention's
  // all-gather / reduce-scatter stay at S = T·h·w = 2,097,152 B; the dispatcher's gather over
  // the tensor group and its reduce-scatter move S_e = N·h·w = 4,194,304 B.
  const MegatronIteration it = moe_toy({{"tp", 2}, {"sequence_parallel", true}});
  CHECK(it.moe.busiest_rank == 2048);
  const MegatronCollective* attention = moe_collective(it, "tensor all-gather / reduce-scatter");
  const MegatronCollective* experts = moe_collective(it, "tensor all-gather / RS (expert rows)");
  REQUIRE(attention);
  REQUIRE(experts);
  CHECK(attention->bytes == 2'097'152);
  CHECK(experts->bytes == 4'194'304);
  // Two calls of each per layer and direction, 2 layers, 1 micro-batch: 8 each.
  CHECK(attention->calls == 8);
  CHECK(experts->calls == 8);
  // Sent per rank forward: 2 x (1/2) x S + 2 x (1/2) x S_e = 6,291,456 B.
  CHECK(it.tp_sent_bytes_per_layer == 6'291'456);
  CHECK(it.layer_tp_forward == 2 * attention->time + 2 * experts->time);
}

TEST_CASE("moe dispatch: bad inputs are refused with their pointers") {
  auto problems_with = [](const json& extra, bool dense = false) {
    json doc = moe_toy_document();
    if (dense) {
      doc["model"].erase("experts");
      doc["model"].erase("experts_per_token");
      doc["training"]["megatron"]["ep"] = 1;
    }
    for (const auto& [k, v] : extra.items()) doc["training"]["megatron"][k] = v;
    return test::scenario_problems(doc);
  };
  CHECK(test::has_problem_at(problems_with({{"moe_pad_to_capacity", true}}), "/training/megatron/moe_pad_to_capacity"));
  CHECK(test::has_problem_at(problems_with({{"moe_load_imbalance", 0.5}}), "/training/megatron/moe_load_imbalance"));
  // E / k = 4 / 2 = 2 at most.
  CHECK(test::has_problem_at(problems_with({{"moe_load_imbalance", 2.5}}), "/training/megatron/moe_load_imbalance"));
  CHECK(test::scenario_problems(moe_toy_document()).empty());
  CHECK(problems_with({{"moe_load_imbalance", 2.0}}).empty());
  CHECK(test::has_problem_at(problems_with({{"moe_capacity_factor", 0}}), "/training/megatron/moe_capacity_factor"));
  // Megatron-LM refuses fp16 with expert parallelism (ep 2 here).
  CHECK(test::has_problem_at(problems_with({{"fp16", true}}), "/training/megatron/fp16"));
  CHECK(test::has_problem_at(problems_with({{"moe_capacity_factor", 1.25}}, true), "/training/megatron/moe_capacity_factor"));
}
