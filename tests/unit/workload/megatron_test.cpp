// The megatron layout and iteration model (workload/megatron_layout.hpp, megatron_iteration.hpp)
// and its scenario fields, on cases worked by hand.
#include <doctest/doctest.h>

#include <cmath>
#include <string>

#include <nlohmann/json.hpp>

#include "../common/scenario_documents.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "../common/megatron_documents.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "ckptsim/workload/megatron_iteration.hpp"
#include "ckptsim/workload/megatron_layout.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// GPT-3 175B as Korthikanti et al. 2022 train it (Table 3: t = 8, p = 8, s = 2048, b = 1), on
/// 8 DGX A100 (64 GPUs, so d = 1).
json gpt3_korthikanti() {
  return json::parse(R"({
    "cluster": {"instance": "dgx-a100", "machines": 8},
    "storage": {"bandwidth": "20GB/s"},
    "model": {"preset": "gpt3-175b"},
    "training": {"parallelism": "megatron", "micro_batch": 1, "sequence_length": 2048,
                 "serialization_bandwidth": "2GB/s",
                 "megatron": {"tp": 8, "pp": 8, "micro_batches": 8, "sequence_parallel": true,
                              "recomputation": "selective"}},
    "strategy": {"kind": "remote-periodic"},
    "failures": {"process": "none"},
    "run": {"duration": "1d"}
  })");
}

json small_megatron() { return test::small_megatron_document(); }

Scenario load(const json& doc) { return load_scenario_json(doc, "test.json", "."); }

}  // namespace

TEST_CASE("megatron: the data-parallel size is what the GPUs leave, and the product must match") {
  // 64 GPUs / (8 x 1 x 8) = 1.
  CHECK(load(gpt3_korthikanti()).training.megatron.dp == 1);
  json doc = gpt3_korthikanti();
  doc["training"]["megatron"]["dp"] = 2;  // 8 x 1 x 2 x 8 = 128 != 64
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/dp"));
  doc = gpt3_korthikanti();
  doc["training"]["megatron"]["pp"] = 3;  // 8 x 3 = 24 does not divide 64
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/tp"));
}

TEST_CASE("megatron: layout rules are refused with their pointers") {
  json doc = small_megatron();
  doc["training"]["megatron"]["tp"] = 16;  // 16 GPUs in one tensor group: wider than a machine of 8
  doc["training"]["megatron"]["pp"] = 1;
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/tp"));
  doc["training"]["megatron"]["tp_across_machines"] = true;  // allowed when asked; 16 heads split by 16
  CHECK(test::scenario_problems(doc).empty());

  doc = small_megatron();
  doc["training"]["megatron"]["pp"] = 4;  // 4 layers over 4 stages fine; 2 x 4 x 2 = 16
  doc["training"]["megatron"]["virtual_stages"] = 2;  // 8 virtual stages for 4 layers
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/model/layers"));

  doc = small_megatron();
  doc["training"]["megatron"]["virtual_stages"] = 2;  // 4 virtual stages, 1 layer each
  doc["training"]["megatron"]["micro_batches"] = 3;   // not a multiple of pp = 2
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/micro_batches"));

  doc = small_megatron();
  doc["training"]["megatron"]["distributed_optimizer"] = false;
  doc["training"]["megatron"]["overlap_param_gather"] = true;
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/overlap_param_gather"));

  doc = small_megatron();
  doc["model"]["ffn"] = 4095;  // does not split over tp = 2
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/tp"));
  doc = small_megatron();
  doc["model"]["kv_heads"] = 3;  // does not divide the 16 heads
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/model/kv_heads"));

  doc = small_megatron();
  doc["training"]["megatron"]["cp"] = 3;  // 2 x 3 x 2 = 12 does not divide 16
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/tp"));

  doc = small_megatron();
  doc["training"]["megatron"]["ep"] = 2;  // a dense model has 1 expert
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/ep"));
}

TEST_CASE("megatron: the fields stay out of a zero3 scenario's effective form") {
  // A ZeRO-3 scenario's effective scenario (and its hash) must not change with this feature.
  const json eff = effective_scenario_json(load(test::minimal_scenario_document()));
  CHECK_FALSE(eff["training"].contains("megatron"));
  CHECK_FALSE(eff["model"].contains("kv_heads"));
  const json mg = effective_scenario_json(load(small_megatron()));
  CHECK(mg["training"]["megatron"]["dp"] == 4);
  CHECK(mg["model"]["kv_heads"] == 16);
  // The effective form loads back to the same effective form.
  CHECK(effective_scenario_json(load(mg)) == mg);
}

TEST_CASE("megatron: rank coordinates and groups follow the tp-cp-dp-pp order") {
  // t = 8, c = 1, d = 128, p = 16 on machines of 8 (Llama 3 405B): rank n = i_t + 8(i_d + 128 i_p).
  const MegatronLayout L(8, 1, 128, 16, 1, 1, 8, true);
  CHECK(L.world() == 16'384);
  const RankCoordinates c = L.coordinates(8 * (5 + 128 * 3) + 2);
  CHECK((c.tp == 2 && c.dp == 5 && c.pp == 3 && c.cp == 0));
  CHECK(L.rank_of(c) == 8 * (5 + 128 * 3) + 2);
  CHECK(L.tensor_group_machines() == 1);   // 8 consecutive ranks: one machine
  CHECK(L.data_group_machines() == 128);   // stride 8: one rank per machine
  CHECK(L.pipeline_crosses_machines());
}

TEST_CASE("megatron: a node failure's blast radius") {
  // Llama 3 405B layout: machine 0 holds ranks 0..7, the tensor group of (d 0, p 0). Its model
  // replica (d = 0: 8 x 16 = 128 ranks) cannot step, and every one of the 16,384 ranks waits at the
  // synchronous data-parallel reduce. The 16-bit parameters have 127 copies on the other
  // replicas; the distributed optimizer's shard exists only on the failed ranks.
  const MegatronLayout L(8, 1, 128, 16, 1, 1, 8, true);
  const BlastRadius b = L.machine_failure(0);
  CHECK(b.failed_ranks.size() == 8);
  CHECK(b.stalled_replicas == std::vector<int>{0});
  CHECK(b.stalled_stages == std::vector<int>{0});
  CHECK(b.stalled_replica_ranks == 128);
  CHECK(b.stopped_ranks == 16'384);
  CHECK(b.parameters_replicated);
  CHECK_FALSE(b.optimizer_replicated);

  // t = 2, d = 4, p = 2 on 2 machines of 8: machine 1 holds ranks 8..15 = i_t + 2(i_d + 4 i_p):
  // i_p = 1, i_d = 0..3: four replicas lose their stage 1. Each rank's data peers (stride 2,
  // 4 of them) are all on the same machine: nothing of it survives there.
  const MegatronLayout S(2, 1, 4, 2, 1, 1, 8, false);
  const BlastRadius s = S.machine_failure(1);
  CHECK(s.stalled_replicas == std::vector<int>{0, 1, 2, 3});
  CHECK(s.stalled_stages == std::vector<int>{1});
  CHECK(s.stalled_replica_ranks == 16);
  CHECK_FALSE(s.parameters_replicated);
  CHECK_FALSE(s.optimizer_replicated);
  CHECK_THROWS_AS(static_cast<void>(S.machine_failure(2)), ModelError);
}

TEST_CASE("megatron: layer parameters match the hand counts") {
  // GPT-style layer: 4h^2 + 2hf + 9h + f = 4,194,304 + 8,388,608 + 9,216 + 4,096 = 12,596,224.
  const Scenario small = load(small_megatron());
  CHECK(megatron_layer_parameters(small, false) == doctest::Approx(12'596'224.0));
  // Per rank at t = 2: matrices 12,582,912 / 2 = 6,291,456; column-parallel biases (3h + f)/2 =
  // 3,584; row-parallel biases 2h = 2,048 and norms 4h = 4,096 replicated -> 6,301,184.
  CHECK(megatron_layer_parameters(small, true) == doctest::Approx(6'301'184.0));
  // Llama 3 405B (presets.cpp's hand count): 3,187,703,808 per layer.
  json llama = small_megatron();
  llama["model"] = {{"preset", "llama3-405b"}};
  llama["cluster"]["machines"] = 16;
  llama["training"]["megatron"] = {{"tp", 8}, {"pp", 2}};
  CHECK(megatron_layer_parameters(load(llama), false) == doctest::Approx(3'187'703'808.0));
}

TEST_CASE("megatron: the parameter count equals the per-rank sum, by hand for a toy (issue 38, item 4)") {
  // A toy with every architecture feature the count reads: h = 64, a = 4 heads of d = 16 with
  // k = 2 key/value heads (GQA), f = 96 gated (SwiGLU, so no biases and RMSNorms), E = 4 experts
  // (top 2), untied embeddings, V = 100, L = 4. By hand, one layer:
  //   Q 64·64 = 4,096; K, V 64·(2·16) = 2,048 each; O 64·64 = 4,096      -> 12,288
  //   two RMSNorms 2·64 = 128; router 64·4 = 256
  //   experts 4 x 3·64·96 = 4 x 18,432 = 73,728
  //   layer 12,288 + 128 + 256 + 73,728 = 86,400; 4 layers 345,600
  // input embedding 100·64 = 6,400; output projection (untied) 6,400; final RMSNorm 64
  //   model 345,600 + 6,400 + 6,400 + 64 = 358,464.
  json toy = small_megatron();
  toy["model"] = json::parse(R"({"layers": 4, "hidden": 64, "ffn": 96, "heads": 4, "kv_heads": 2, "vocabulary": 100,
                                  "gated_ffn": true, "tied_embeddings": false, "experts": 4, "experts_per_token": 2})");
  toy["training"]["megatron"] = {{"tp", 1}, {"pp", 2}, {"micro_batches", 4}};
  const Scenario s = load(toy);
  CHECK(s.model.parameters == 358'464.0);
  // The megatron model's stages at t = 1, e = 1, p = 2 (2 layers each): the first holds the
  // embedding, 2 x 86,400 + 6,400 = 179,200; the last the output projection and the final norm,
  // 172,800 + 6,400 + 64 = 179,264. Their sum is the model's count.
  const MegatronIteration whole = simulate_megatron_iteration(s);
  REQUIRE(whole.stages.size() == 2);
  CHECK(whole.stages[0].parameters == 179'200.0);
  CHECK(whole.stages[1].parameters == 179'264.0);
  CHECK(whole.stages[0].parameters + whole.stages[1].parameters == s.model.parameters);
  // At t = 2, e = 2 a rank holds half of each split part and of the experts, the norms and the
  // router whole: per layer 12,288 / 2 + 128 + 256 = 6,528 dense and 4 / 2 experts of 18,432 / 2
  // = 18,432; first stage 2 x (6,528 + 18,432) + 6,400 / 2 = 53,120.
  toy["training"]["megatron"] = {{"tp", 2}, {"pp", 2}, {"ep", 2}, {"micro_batches", 4}};
  CHECK(simulate_megatron_iteration(load(toy)).stages[0].parameters == 53'120.0);
}

TEST_CASE("megatron: tensor-parallel bytes per layer and data-parallel bytes per step") {
  const MegatronIteration g = simulate_megatron_iteration(load(gpt3_korthikanti()));
  // S = b s h w = 2048 x 12288 x 2 = 50,331,648 B; two all-reduces (or their reduce-scatter /
  // all-gather halves) of 2(t-1)/t S each per layer forward: 4 x 7/8 x S = 176,160,768 B.
  CHECK(g.tp_sent_bytes_per_layer == doctest::Approx(176'160'768.0));
  // d = 1: no data-parallel traffic.
  CHECK(g.dp_sent_bytes_per_step == 0.0);

  // Small model, stage 0: 2 layers x 6,301,184 + the embedding 32000 x 1024 / 2 = 16,384,000 ->
  // 28,986,368 parameters. Distributed optimizer, 16-bit gradients: reduce-scatter 3/4 x 2 B and
  // all-gather 3/4 x 2 B per parameter -> 3 B x 28,986,368 = 86,959,104 B.
  const MegatronIteration s = simulate_megatron_iteration(load(small_megatron()));
  CHECK(s.stages[0].parameters == doctest::Approx(28'986'368.0));
  CHECK(s.dp_sent_bytes_per_step == doctest::Approx(86'959'104.0));
  // Its checkpoint shard: 12 B per parameter (training.checkpoint_bytes_per_parameter) split over
  // the 4 data-parallel ranks: 28,986,368 x 12 / 4 = 86,959,104 B; its parameters have 4 copies.
  CHECK(s.stages[0].checkpoint_shard == doctest::Approx(86'959'104.0));
  CHECK(s.stages[0].parameter_copies == 4);
}

TEST_CASE("megatron: activation memory per rank on Korthikanti et al.'s GPT-3 175B example") {
  // sbh = 2048 x 12288 = 25,165,824; a s / h = 96 x 2048 / 12288 = 16; t = 8 (Table 2):
  //   tensor parallel only:            sbh (10 + 24/t + 5 a s/(h t)) = 23 sbh = 578,813,952 B
  //   tensor + sequence parallel:      sbh (34/t + 5 a s/(h t)) = 14.25 sbh = 358,612,992 B
  //   + selective recomputation:       34/t sbh = 4.25 sbh = 106,954,752 B
  //   full recomputation:              2 sbh = 50,331,648 B
  json doc = gpt3_korthikanti();
  auto per_layer = [&](bool sp, const char* recompute) {
    doc["training"]["megatron"]["sequence_parallel"] = sp;
    doc["training"]["megatron"]["recomputation"] = recompute;
    return megatron_layer_activation_bytes(load(doc));
  };
  CHECK(per_layer(false, "none") == doctest::Approx(578'813'952.0));
  CHECK(per_layer(true, "none") == doctest::Approx(358'612'992.0));
  CHECK(per_layer(true, "selective") == doctest::Approx(106'954'752.0));
  CHECK(per_layer(true, "full") == doctest::Approx(50'331'648.0));
  // The first stage holds p = 8 micro-batches of L/p = 12 layers: L = 96 layers' worth
  // (§4.2.3): 96 x 106,954,752 = 10,267,656,192 B with sequence parallelism and selective.
  const MegatronIteration g = simulate_megatron_iteration(load(gpt3_korthikanti()));
  CHECK(g.stages[0].memory.activations == doctest::Approx(10'267'656'192.0));
  // The last stage holds one micro-batch: 12 layers' worth.
  CHECK(g.stages[7].memory.activations == doctest::Approx(12 * 106'954'752.0));
}

TEST_CASE("megatron: model states under the distributed optimizer are 6 + 12/d bytes per parameter") {
  // bf16 parameters (2), fp32 gradients (4), fp32 main copy and Adam moments (12) sharded over
  // d = 4: 2 + 4 + 3 = 9 B per parameter (Megatron's distributed optimizer table); without it 18.
  json doc = small_megatron();
  doc["training"]["megatron"]["grad_reduce_in_fp32"] = true;
  const MegatronIteration it = simulate_megatron_iteration(load(doc));
  const MegatronMemory& m = it.stages[1].memory;
  CHECK((m.parameters + m.gradients + m.optimizer) / it.stages[1].parameters == doctest::Approx(9.0));
  doc["training"]["megatron"]["distributed_optimizer"] = false;
  const MegatronIteration plain = simulate_megatron_iteration(load(doc));
  const MegatronMemory& p = plain.stages[1].memory;
  CHECK((p.parameters + p.gradients + p.optimizer) / plain.stages[1].parameters == doctest::Approx(18.0));
}

TEST_CASE("megatron: the iteration is the schedule plus what the step adds, and overlap only hides") {
  const Scenario s = load(small_megatron());
  const MegatronIteration it = simulate_megatron_iteration(s);
  // The step cannot end before the pipeline schedule has.
  CHECK(it.iteration_time > it.schedule_time);
  CHECK(it.bubble_fraction() > 0.0);
  // Overlapping the gradient reduce and the parameter gather can only shorten the step.
  json doc = small_megatron();
  doc["training"]["megatron"]["overlap_grad_reduce"] = true;
  doc["training"]["megatron"]["overlap_param_gather"] = true;
  const MegatronIteration over = simulate_megatron_iteration(load(doc));
  CHECK(over.iteration_time <= it.iteration_time);
  CHECK(over.schedule_time == it.schedule_time);
  // Every stage's idle spans lie inside the iteration and do not overlap its busy intervals.
  for (const MegatronStage& st : it.stages) {
    SimTime last;
    for (const PipelineSpan& span : st.idle_spans) {
      CHECK(span.from >= last);
      CHECK(span.to <= it.iteration_time);
      last = span.to;
    }
  }
}

TEST_CASE("megatron: the ZeRO-3 iteration model refuses a megatron scenario rather than guess") {
  CHECK_THROWS_AS(simulate_megatron_iteration(load(test::minimal_scenario_document())), ModelError);
}

namespace {

/// Llama 3 405B on 16,384 H100 (Dubey et al. 2024, Table 4): t = 8, p = 16, d = 128, 2 chunks per
/// rank, one layer fewer on the first and last stage, the distributed optimizer.
json llama3_405b() {
  return json::parse(R"({
    "cluster": {"instance": "dgx-h100", "machines": 2048},
    "storage": {"bandwidth": "200GB/s"},
    "model": {"preset": "llama3-405b"},
    "training": {"parallelism": "megatron", "micro_batch": 1, "sequence_length": 8192, "attention": "flash",
                 "checkpoint_bytes_per_parameter": 12, "serialization_bandwidth": "2GB/s",
                 "megatron": {"tp": 8, "pp": 16, "dp": 128, "virtual_stages": 2, "micro_batches": 16,
                              "first_stage_layers": 3, "last_stage_layers": 3, "sequence_parallel": true,
                              "distributed_optimizer": true, "grad_reduce_in_fp32": true}},
    "strategy": {"kind": "gemini", "replicas": 2, "placement": "group"},
    "failures": {"process": "none"},
    "run": {"duration": "1d"}
  })");
}

}  // namespace

TEST_CASE("megatron: Llama 3 405B's checkpoint shard per rank under TP 8, PP 16, DP 128") {
  const MegatronIteration it = simulate_megatron_iteration(load(llama3_405b()));
  // One layer (h 16384, f 53248, 128 heads, 8 KV heads of 128, SwiGLU, RMSNorm, no biases):
  // QKV 16384 x (128 + 2 x 8) x 128 = 301,989,888; projection 16384^2 = 268,435,456; FFN
  // 3 x 16384 x 53248 = 2,617,245,696; together 3,187,671,040, over t = 8: 398,458,880, plus the
  // two norms' 2 x 16384 = 32,768 kept whole: 398,491,648 per rank. A middle stage holds 2 chunks
  // of 4 layers: 3,187,933,184 parameters.
  const MegatronStage& middle = it.stages[1];
  CHECK(middle.layers == 8);
  CHECK(middle.parameters == doctest::Approx(3'187'933'184.0));
  // Its shard: 12 B per parameter over the d = 128 data-parallel ranks (distributed optimizer):
  // 3,187,933,184 x 12 / 128 = 298,868,736 B (285.02 MiB); its 16-bit parameters have 128 copies.
  CHECK(middle.checkpoint_shard == doctest::Approx(298'868'736.0));
  CHECK(middle.parameter_copies == 128);
  // Without the distributed optimizer every data-parallel rank holds the stage's whole state:
  // 3,187,933,184 x 12 = 38,255,198,208 B.
  json doc = llama3_405b();
  doc["training"]["megatron"]["distributed_optimizer"] = false;
  CHECK(simulate_megatron_iteration(load(doc)).stages[1].checkpoint_shard == doctest::Approx(38'255'198'208.0));
}

TEST_CASE("megatron: data-parallel peer machines hold the same model slices") {
  const MegatronLayout L = MegatronLayout::from(load(llama3_405b()));
  // G = t = 8: machine n holds the tensor group of (i_d, i_p) = (n mod 128, n div 128). Machines 0
  // and 1 are data-parallel replicas 0 and 1 of stage 0, so peers; machine 128 is replica 0 of
  // stage 1 (other layers), machine 129 replica 1 of stage 1; a machine is not its own peer.
  CHECK(L.data_peer_machines(0, 1));
  CHECK(L.data_peer_machines(0, 127));
  CHECK_FALSE(L.data_peer_machines(0, 128));
  CHECK_FALSE(L.data_peer_machines(1, 129));
  CHECK(L.data_peer_machines(128, 129));
  CHECK_FALSE(L.data_peer_machines(5, 5));
  // Blast radius of machine 130 (replica 2 of stage 1): its 8 ranks 1040..1047 stop, one model
  // replica of t x p = 128 ranks loses stage 1, and all 16,384 ranks wait at the synchronous reduce.
  const BlastRadius b = L.machine_failure(130);
  CHECK(b.failed_ranks.front() == 1040);
  CHECK(b.failed_ranks.back() == 1047);
  CHECK(b.stalled_replicas == std::vector<int>{2});
  CHECK(b.stalled_stages == std::vector<int>{1});
  CHECK(b.stalled_replica_ranks == 128);
  CHECK(b.stopped_ranks == 16384);
}

TEST_CASE("megatron: Llama 3 405B's fullest stage fits 80 GiB under 1F1B and not under an all-warm-up interleave") {
  // Per layer and micro-batch, sequence parallelism and FlashAttention (Korthikanti et al. 2022,
  // Table 2, generalised): 8 sbh kept whole (two norm inputs, the QKV and FFN inputs) + 4 sbh (Q,
  // projection input) + 0.25 sbh (K, V of 8 heads of 128 = h/16) + 6 sbf = 19.5 sbh (SwiGLU: FC1's
  // two halves and the activation), all over t: 31.75 x 8192 x 16384 / 8 = 532,676,608 B.
  // States of rank 1 (3,187,933,184 parameters): 2 + 4 (fp32 gradients) + 12 / 128 bytes each.
  const double layer = 532'676'608.0;
  const double states = 3'187'933'184.0 * (2 + 4 + 12.0 / 128);
  constexpr double kGiB80 = 80.0 * 1024 * 1024 * 1024;
  // 1F1B (v = 1, 7 layers on the first and last stage): rank 1 holds p - 1 = 15 micro-batches of
  // its 8 layers: 120 layer-micro-batches, 77.62 GiB in all.
  json flat = llama3_405b();
  flat["training"]["megatron"]["virtual_stages"] = 1;
  flat["training"]["megatron"]["first_stage_layers"] = 7;
  flat["training"]["megatron"]["last_stage_layers"] = 7;
  const MegatronStage one = simulate_megatron_iteration(load(flat)).stages[1];
  CHECK(one.memory.activations == doctest::Approx(120 * layer));
  CHECK(one.memory.total() == doctest::Approx(120 * layer + states));
  CHECK(one.memory.total() < kGiB80);
  // Interleaved, v = 2, m = p = 16: warm-up 2(p - 2) + p = 44 >= m·v = 32 chunk-micro-batches, so
  // every forward runs first and rank 1 holds all 16 x 8 = 128 layer-micro-batches: 81.59 GiB.
  const MegatronStage two = simulate_megatron_iteration(load(llama3_405b())).stages[1];
  CHECK(two.memory.activations == doctest::Approx(128 * layer));
  CHECK(two.memory.total() > kGiB80);
}

TEST_CASE("megatron: the last virtual stage keeps the loss's logits per micro-batch in flight, rank-dependent warm-up") {
  // Llama 3 405B (T = 8192 tokens, h = 16384, V = 128,256, t = 8, sequence parallelism: T' =
  // 1024). The output layer and loss keep per micro-batch (Megatron-LM cross_entropy.py): the
  // final norm's and the output projection's inputs 2 x T' h w = 2 x 1024 x 16384 x 2 =
  // 67,108,864 B, the fp32 softmax over V/t = 16,032 columns 4 x 8192 x 16,032 = 525,336,576 B
  // and 9 T = 73,728 B of targets: 592,519,168 B.
  const double layer = 532'676'608.0, edge = 592'519'168.0;
  // 1F1B: the last rank has no warm-up (F0 B0 F1 B1 ...): one micro-batch of its 7 layers.
  json flat = llama3_405b();
  flat["training"]["megatron"]["virtual_stages"] = 1;
  flat["training"]["megatron"]["first_stage_layers"] = 7;
  flat["training"]["megatron"]["last_stage_layers"] = 7;
  const MegatronIteration one = simulate_megatron_iteration(load(flat));
  CHECK(one.stages[15].memory.activations == doctest::Approx(7 * layer));
  CHECK(one.stages[15].memory.pipeline_edges == doctest::Approx(edge));
  // A middle rank's output tensor is freed after its send (deallocate_pipeline_outputs, on by
  // default): nothing else at its edges. Off, each of its p - 1 = 15 micro-batches in flight
  // keeps T' h w = 33,554,432 B.
  CHECK(one.stages[1].memory.pipeline_edges == 0.0);
  flat["training"]["megatron"]["deallocate_pipeline_outputs"] = false;
  CHECK(simulate_megatron_iteration(load(flat)).stages[1].memory.pipeline_edges == doctest::Approx(15 * 33'554'432.0));
  // Interleaved, v = 2, m = p = 16: rank 15's warm-up is 2(p - 16) + (v - 1)p = 16 < m v = 32
  // (Megatron's get_pp_rank_microbatches; not "every forward" as on ranks 0..7): chunk 0's 16
  // micro-batches of 4 layers, then one micro-batch of chunk 1 (3 layers, the output layer)
  // before its backward: 16 x 4 + 3 = 67 layer-micro-batches and one logits.
  const MegatronIteration two = simulate_megatron_iteration(load(llama3_405b()));
  CHECK(two.stages[15].memory.activations == doctest::Approx(67 * layer));
  CHECK(two.stages[15].memory.pipeline_edges == doctest::Approx(edge));
}

TEST_CASE("megatron: the interleaved micro-batch group size is checked as Megatron-LM checks it") {
  // Megatron's forward_backward_pipelining_with_interleaving: N in [pp, micro_batches], and the
  // last group 0 or >= pp micro-batches. pp = 16, m = 16: N = 17 > m; m = 40, N = 16 leaves 8.
  json doc = llama3_405b();
  doc["training"]["megatron"]["microbatch_group_size"] = 17;
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/microbatch_group_size"));
  doc["training"]["megatron"]["microbatch_group_size"] = 16;
  doc["training"]["megatron"]["micro_batches"] = 40;
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/micro_batches"));
  // m = 40, N = 20: two groups of 20, accepted; rank 1 warm-up 2 x 14 + 20 = 48 < 80, so 49
  // chunk-micro-batches of 4 layers held at most: 196 layer-micro-batches.
  doc["training"]["megatron"]["microbatch_group_size"] = 20;
  const MegatronIteration it = simulate_megatron_iteration(load(doc));
  CHECK(it.stages[1].memory.activations == doctest::Approx(49 * 4 * 532'676'608.0));
  // A group size needs the interleaved schedule.
  doc["training"]["megatron"]["virtual_stages"] = 1;
  doc["training"]["megatron"]["first_stage_layers"] = 7;
  doc["training"]["megatron"]["last_stage_layers"] = 7;
  CHECK(test::has_problem_at(test::scenario_problems(doc), "/training/megatron/microbatch_group_size"));
}

TEST_CASE("megatron layout: the units an elastic shrink removes are the machines of whole model replicas") {
  // tp 2, pp 2, dp 4 on machines of 4 GPUs: rank n = i_t + 2 (i_d + 4 i_p), machine n div 4.
  // Machine 0 holds replicas 0 and 1 of stage 0, machine 1 replicas 2 and 3 of stage 0, machine 2
  // replicas 0 and 1 of stage 1, machine 3 replicas 2 and 3 of stage 1: units {0, 2} and {1, 3}.
  CHECK(MegatronLayout(2, 1, 4, 2, 1, 1, 4, false).replica_units() == std::vector<int>{0, 1, 0, 1});
  // tp 8 = G, pp 2, dp 2: machine m holds replica m mod 2 of stage m div 2: the same two units.
  CHECK(MegatronLayout(8, 1, 2, 2, 1, 1, 8, false).replica_units() == std::vector<int>{0, 1, 0, 1});
  // tp 4, pp 1, dp 4 on 8 GPUs: each machine holds two whole replicas, its own unit.
  CHECK(MegatronLayout(4, 1, 4, 1, 1, 1, 8, false).replica_units() == std::vector<int>{0, 1});
  // tp 8, cp 2 on 8 GPUs, pp 1, dp 2: a replica's 16 ranks span two machines: {0, 1}, {2, 3}.
  CHECK(MegatronLayout(8, 2, 2, 1, 1, 1, 8, false).replica_units() == std::vector<int>{0, 0, 1, 1});
}

TEST_CASE("megatron: tensor-parallel collectives inside an H100 machine by the measured curves, RS + AG against NVLS") {
  // GPT-3 175B's layout on 8 DGX H100, t = 8 inside each machine; b = 4, s = 2048 so that S =
  // 4 x 2048 x 12288 x 2 B = 192 MiB per call. With sequence parallelism a layer's forward runs
  // 4 ring calls (2 all-gathers, 2 reduce-scatters) of 7/8 S at the ring curve (nccl issue 1047:
  // 128 MiB 311.34, 256 MiB 330.94 GB/s; 192 MiB is log2-fraction 0.58496 of the way: 322.807
  // GB/s); without it 2 all-reduces of 7/4 S at the NVLS curve (Azure ND H100 v5: 128 MiB 400.61,
  // 256 MiB 423.38: 413.929 GB/s). Same bytes moved, so SP / no SP = 413.929 / 322.807 = 1.28228.
  json doc = gpt3_korthikanti();
  doc["cluster"]["instance"] = "dgx-h100";
  doc["training"]["micro_batch"] = 4;
  const Scenario with_sp = load(doc);
  REQUIRE(nvlink_curves_apply(with_sp));
  const MegatronIteration sp = simulate_megatron_iteration(with_sp);
  doc["training"]["megatron"]["sequence_parallel"] = false;
  const MegatronIteration plain = simulate_megatron_iteration(load(doc));
  const double S = 4.0 * 2048 * 12288 * 2;
  const double x = std::log2(S / (128.0 * 1024 * 1024));  // 0.58496
  const double ring = 311.34e9 + x * (330.94e9 - 311.34e9);
  const double nvls = 400.61e9 + x * (423.38e9 - 400.61e9);
  CHECK(sp.layer_tp_forward.seconds() == doctest::Approx(4 * 7.0 / 8 * S / ring).epsilon(1e-6));
  CHECK(plain.layer_tp_forward.seconds() == doctest::Approx(2 * 7.0 / 4 * S / nvls).epsilon(1e-6));
  CHECK(sp.layer_tp_forward.seconds() / plain.layer_tp_forward.seconds() == doctest::Approx(1.28228).epsilon(1e-4));
  CHECK(sp.nvlink_collectives.find("measured nccl-tests curves") != std::string::npos);

  // NVLink figures of a user's own (a step latency other than the 3.4 us default) or
  // nvlink_curves false return the ring at nvlink_bandwidth: 4 x (7 x 3.5 us + 7/8 S / 450
  // GB/s) with SP, and the line says why.
  doc["training"]["megatron"]["sequence_parallel"] = true;
  doc["cluster"]["nvlink_latency"] = "3.5us";
  const Scenario own = load(doc);
  CHECK_FALSE(nvlink_curves_apply(own));
  const MegatronIteration ring_model = simulate_megatron_iteration(own);
  CHECK(ring_model.layer_tp_forward.seconds() == doctest::Approx(4 * (7 * 3.5e-6 + 7.0 / 8 * S / 450e9)).epsilon(1e-6));
  CHECK(ring_model.nvlink_collectives.find("differs from the GPU type's") != std::string::npos);
  // Written with the values the scenario has anyway (the type's 450 GB/s, the 3.4 us default),
  // nothing changes: the choice follows the values, which the sweep's cache key holds, never
  // which keys a file wrote.
  doc["cluster"]["nvlink_latency"] = "3.4us";
  doc["cluster"]["nvlink_bandwidth"] = "450GB/s";
  CHECK(nvlink_curves_apply(load(doc)));
  CHECK(simulate_megatron_iteration(load(doc)).layer_tp_forward == sp.layer_tp_forward);
  doc["cluster"].erase("nvlink_latency");
  doc["cluster"].erase("nvlink_bandwidth");
  doc["cluster"]["nvlink_curves"] = false;
  CHECK_FALSE(nvlink_curves_apply(load(doc)));
  CHECK(simulate_megatron_iteration(load(doc)).layer_tp_forward.seconds() ==
        doctest::Approx(4 * (7 * 3.4e-6 + 7.0 / 8 * S / 450e9)).epsilon(1e-6));

  // A user's own curve (what `import nccl-tests` writes from a single-machine log) is used even
  // beside a written nvlink_bandwidth: a flat 200 GB/s ring curve gives 4 x 7/8 S / 200 GB/s.
  doc["cluster"].erase("nvlink_curves");
  doc["cluster"]["nvlink_bandwidth"] = "450GB/s";
  doc["cluster"]["nvlink_ring_curve"] = json::array({{{"size", "1MiB"}, {"bus_bandwidth", "200GB/s"}},
                                                     {{"size", "1GiB"}, {"bus_bandwidth", "200GB/s"}}});
  const Scenario mine = load(doc);
  REQUIRE(nvlink_curves_apply(mine));
  const MegatronIteration measured = simulate_megatron_iteration(mine);
  CHECK(measured.layer_tp_forward.seconds() == doctest::Approx(4 * 7.0 / 8 * S / 200e9).epsilon(1e-6));
  CHECK(measured.nvlink_collectives.find("scenario file") != std::string::npos);
}

TEST_CASE("megatron: a written NVLink curve is refused with the failing point's pointer") {
  // Sizes must ascend: the second point's size is below the first's.
  json doc = gpt3_korthikanti();
  doc["cluster"]["nvlink_ring_curve"] = json::array({{{"size", "1GiB"}, {"bus_bandwidth", "200GB/s"}},
                                                     {{"size", "1MiB"}, {"bus_bandwidth", "100GB/s"}}});
  try {
    (void)load(doc);
    FAIL("descending sizes were accepted");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("/cluster/nvlink_ring_curve") != std::string::npos);
    CHECK(what.find("/1/size") != std::string::npos);
  }
  // A bandwidth without a unit, and a third key, are refused too.
  doc["cluster"]["nvlink_ring_curve"] = json::array({{{"size", 1048576}, {"bus_bandwidth", 200}}});
  CHECK_THROWS_AS(load(doc), InputError);
  doc["cluster"]["nvlink_ring_curve"] = json::array({{{"size", 1048576}, {"bus_bandwidth", "200GB/s"}, {"algo", "ring"}}});
  CHECK_THROWS_AS(load(doc), InputError);
  doc["cluster"]["nvlink_ring_curve"] = json::array();
  CHECK_THROWS_AS(load(doc), InputError);
}
