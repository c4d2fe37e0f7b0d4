// The moe-partial strategy (run/strategies/moe_partial.cpp): the state split, bytes per partial
// checkpoint, the experts' staleness and the replay, worked by hand. Small scenario
// (tests/unit/common/test_scenarios.hpp: 16 machines of 8 GPUs, 1e9 parameters at 12 bytes, so
// C = 12 GB and c = 0.75 GB a machine's shard; NIC 1 GB/s, p2p efficiency 1; T = 60 s; m = 2;
// ZeRO-3's default micro batch 8 and sequence length 512).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>

#include <algorithm>
#include <cmath>
#include <vector>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/run/run_model.hpp"
#include "ckptsim/run/strategy.hpp"
#include "../common/closed_form_check.hpp"
#include "../common/test_scenarios.hpp"
#include "../common/trace_files.hpp"

using namespace ckptsim;

namespace {

/// A one-layer MoE shape whose count is round (scenario/parameter_count.hpp, Llama style):
/// h = 8, f = 8, one head of width 8 (a = k = 1), E = 4 experts, top-1, vocabulary 9, tied.
///   attention h (a + 2k) d + a d h = 8 x 3 x 8 + 8 x 8 = 256; norms 2h = 16; router h E = 32;
///   one expert 3 h f = 192, four 768; embedding V h = 72; final norm h = 8.
///   P = 256 + 16 + 32 + 768 + 72 + 8 = 1152: phi = 768 / 1152 = 2/3 of the checkpoint.
///   Active per token: 1152 - 3 x 192 = 576, of it one expert's 192: f_x = 1/3.
/// ZeRO-3 layout: every machine holds every expert's slice (M_e = 1), so r = C_p / C.
Scenario moe_scenario(std::int64_t experts_per_checkpoint) {
  Scenario s = test::small_scenario(StrategyKind::moe_partial);
  s.model.layers = 1;
  s.model.hidden = 8;
  s.model.ffn = 8;
  s.model.heads = 1;
  s.model.kv_heads = 1;
  s.model.vocabulary = 9;
  s.model.gated_ffn = true;
  s.model.tied_embeddings = true;
  s.model.experts = 4;
  s.model.experts_per_token = 1;
  s.strategy.moe_experts_per_checkpoint = experts_per_checkpoint;
  return s;
}

}  // namespace

TEST_CASE("moe-partial: bytes per step of a partial checkpoint against the full one, by hand") {
  // K = 1 of E = 4: C_p = C (1 - phi + phi K / E) = 12 GB x (1/3 + 2/3 x 1/4) = 6 GB, half the
  // full checkpoint; K = 2: 12 GB x (1/3 + 1/3) = 8 GB; K = 4 (every expert): 12 GB.
  const StrategyCosts one = compute_strategy_costs(moe_scenario(1), nullptr);
  CHECK(one.tier == CheckpointTier::memory);
  CHECK(one.moe.expert_fraction == doctest::Approx(2.0 / 3.0).epsilon(1e-12));
  CHECK(one.moe.full_checkpoint_bytes == doctest::Approx(12e9).epsilon(1e-12));
  CHECK(one.moe.checkpoint_bytes == doctest::Approx(6e9).epsilon(1e-12));
  CHECK(one.moe.machine_fraction == doctest::Approx(0.5).epsilon(1e-12));
  CHECK(compute_strategy_costs(moe_scenario(2), nullptr).moe.checkpoint_bytes == doctest::Approx(8e9).epsilon(1e-12));
  CHECK(compute_strategy_costs(moe_scenario(4), nullptr).moe.checkpoint_bytes == doctest::Approx(12e9).epsilon(1e-12));
}

TEST_CASE("moe-partial: the stall of a partial checkpoint is its share of gemini's when no idle span carries it") {
  // T = 1 s is shorter than ZeRO-3's first-order communication (3 x 15/16 x 2 GB / 1 GB/s =
  // 5.6 s), so no idle span carries any copy: gemini's stall is the (m - 1) c = 0.75 GB of copies
  // through the NIC, and the partial checkpoint's is r = 1/2 of it (0.375 GB).
  Scenario s = moe_scenario(1);
  s.training.iteration_time = seconds(1);
  Scenario g = s;
  g.strategy.kind = StrategyKind::gemini;
  const StrategyCosts partial = compute_strategy_costs(s, nullptr);
  const StrategyCosts full = compute_strategy_costs(g, nullptr);
  REQUIRE(full.stall > SimTime::zero());
  CHECK(partial.stall.seconds() == doctest::Approx(0.5 * full.stall.seconds()).epsilon(1e-9));
  // Completion k T + S (k = 1), as gemini's.
  CHECK(partial.completion.seconds() == doctest::Approx(1.0 + partial.stall.seconds()).epsilon(1e-9));
  // The holders keep every expert's latest copy: a retrieval loads the whole shard, as gemini's.
  CHECK(partial.retrieval_local == full.retrieval_local);
  CHECK(partial.retrieval_peer == full.retrieval_peer);
}

TEST_CASE("partial checkpoint staleness and replay for 4 experts over 4 steps") {
  // E = 4, K = 1, k = 1: checkpoints 1..4 save experts 1, 2, 3, 4 in turn. At checkpoint 4 the
  // copies are 0, 1, 2 and 3 iterations older than the restored state: mean 1.5, max 3
  // (k (R - 1) / 2 and k (R - 1), R = E / K = 4).
  Scenario s = moe_scenario(1);
  const StrategyCosts stale = compute_strategy_costs(s, nullptr);
  CHECK(stale.moe.staleness_mean == doctest::Approx(1.5));
  CHECK(stale.moe.staleness_max == doctest::Approx(3.0));
  // Accept-stale (the default): no replay, and a warning says the lost updates are not modelled.
  CHECK(stale.moe.replay_time == SimTime::zero());
  REQUIRE(stale.warnings.size() == 1);
  CHECK(stale.warnings[0].find("accept-stale") != std::string::npos);
  CHECK(stale.warnings[0].find("up to 3 iterations (mean 1.5)") != std::string::npos);

  // Replay: the experts redo 0 + 1 + 2 + 3 = 6 expert-iterations, each 1/4 of the expert
  // compute f_x T = 1/3 x 60 s = 20 s: 6 / 4 x 20 s = 30 s. The log: every routed token's bf16
  // input and gradient at the one MoE layer, 2 x 2 x h = 32 bytes per token, over the tokens of an
  // iteration (8 sequences x 128 GPUs x 512 = 524,288) and 16 machines: 1,048,576 bytes per
  // iteration and machine; the 3 iterations of the oldest copy read at 1 GB/s take 3.145728 ms.
  // Replay = 30.003145728 s, added to every retrieval; the log kept, k R = 4 iterations: 4 MiB.
  s.strategy.moe_replay = true;
  const StrategyCosts replay = compute_strategy_costs(s, nullptr);
  CHECK(replay.moe.expert_compute_share == doctest::Approx(1.0 / 3.0).epsilon(1e-12));
  CHECK(replay.moe.replay_time.seconds() == doctest::Approx(30.003145728).epsilon(1e-9));
  CHECK(replay.moe.log_bytes_per_machine == doctest::Approx(4.0 * 1048576.0).epsilon(1e-12));
  CHECK((replay.retrieval_local - stale.retrieval_local) == replay.moe.replay_time);
  CHECK((replay.retrieval_peer - stale.retrieval_peer) == replay.moe.replay_time);
  CHECK((replay.retrieval_storage - stale.retrieval_storage) == replay.moe.replay_time);
  // One warning: the log's writes during training (1 MiB per iteration and machine) are not modelled.
  REQUIRE(replay.warnings.size() == 1);
  CHECK(replay.warnings[0].find("1.00 MiB per iteration") != std::string::npos);

  // Every 2 iterations (k = 2) the staleness doubles: mean 3, max 6 iterations.
  s.strategy.every_iterations = 2;
  const StrategyCosts every2 = compute_strategy_costs(s, nullptr);
  CHECK(every2.moe.staleness_mean == doctest::Approx(3.0));
  CHECK(every2.moe.staleness_max == doctest::Approx(6.0));
}

TEST_CASE("moe-partial: a software failure's recovery pays the replay, by hand") {
  // One software failure at 1000 s, k = 1: the run with replay loses exactly the replay time
  // (30.003145728 s) more than the run that accepts the stale experts, all else equal.
  Scenario s = moe_scenario(1);
  s.failures.process = FailureProcessKind::trace;
  s.failures.trace_file = test::write_trace_file("ckptsim_moe_partial_trace.csv", "time,machine,type\n1000,3,software\n");
  const ReplicaResult stale = RunModel(s, compute_strategy_costs(s, nullptr)).simulate(0);
  s.strategy.moe_replay = true;
  const StrategyCosts costs = compute_strategy_costs(s, nullptr);
  const ReplicaResult replay = RunModel(s, costs).simulate(0);
  std::filesystem::remove(s.failures.trace_file);
  REQUIRE(stale.software_failures == 1);
  REQUIRE(replay.software_failures == 1);
  CHECK(replay.recoveries == stale.recoveries);
  CHECK((replay.wasted_time - stale.wasted_time) == costs.moe.replay_time);
}

TEST_CASE("moe-partial: K must divide the experts; a dense model is gemini's full checkpoint") {
  // K = 3 of E = 4 leaves a rotation of unequal groups: refused, naming the field.
  CHECK_THROWS_AS(compute_strategy_costs(moe_scenario(3), nullptr), ModelError);
  CHECK_THROWS_WITH(compute_strategy_costs(moe_scenario(3), nullptr),
                    doctest::Contains("/strategy/moe_experts_per_checkpoint"));
  CHECK_THROWS_AS(compute_strategy_costs(moe_scenario(5), nullptr), ModelError);
  // E = 1: phi = 0, nothing stale, the costs are gemini's, and a warning says so.
  Scenario dense = test::small_scenario(StrategyKind::moe_partial);
  dense.training.iteration_time = seconds(1);
  Scenario g = dense;
  g.strategy.kind = StrategyKind::gemini;
  const StrategyCosts c = compute_strategy_costs(dense, nullptr);
  const StrategyCosts full = compute_strategy_costs(g, nullptr);
  CHECK(c.stall == full.stall);
  CHECK(c.completion == full.completion);
  CHECK(c.persistent_every_iterations == full.persistent_every_iterations);
  CHECK(c.moe.staleness_max == 0.0);
  REQUIRE(c.warnings.size() == 1);
  CHECK(c.warnings[0].find("no experts") != std::string::npos);
}

TEST_CASE("moe-partial contract: registered, listed with its fields, and its closed form is the memory tier's") {
  const Strategy& st = strategy_of(StrategyKind::moe_partial);
  CHECK(st.kind() == StrategyKind::moe_partial);
  CHECK(strategy_registry().find("moe-partial") != nullptr);
  const auto fields = st.parameters();
  CHECK(std::find(fields.begin(), fields.end(), "/strategy/moe_experts_per_checkpoint") != fields.end());
  CHECK(std::find(fields.begin(), fields.end(), "/strategy/moe_replay") != fields.end());
  // The MoE shape with replay on, 1.5 % exponential failures per machine-day over 30 days
  // (Lambda W = 16 x 0.015 x 30 = 7.2 failures): the memory tier's renewal closed form takes the
  // replay as part of every retrieval, so it leaves nothing out and must lie within about a
  // 99.9 % interval of 1000 replicas (tests/unit/analysis/strategy_closed_form_test.cpp).
  Scenario s = moe_scenario(1);
  s.strategy.moe_replay = true;
  s.failures.process = FailureProcessKind::exponential;
  s.failures.rate = 0.015 / 86400.0;
  s.run.duration = SimTime::from_seconds(30 * 86400.0);
  s.run.seed = 11;
  const auto [costs, closed, simulated] = test::closed_form_and_monte_carlo(s, 1000);
  REQUIRE(closed.available);
  CHECK(closed.omitted_terms.empty());
  REQUIRE(costs.moe.replay_time > SimTime::zero());
  const Summary& ettr = simulated.at("ettr");
  CHECK(std::abs(closed.ettr - ettr.mean) <= test::kWideCi95 * ettr.ci95);
  // The best-k search (analyze's closed-form best every_iterations) rescales the replay with k:
  // it is linear in k (mean staleness k (R - 1) / 2). First order, at T = 1 s with no idle span
  // the stall S = 0.375 s (0.375 GB of copies at 1 GB/s) is the same at every k, and a failure
  // (rate Lambda = 16 x 0.015 / 86400 s) loses k T / 2 of work plus the replay 0.5 k s (1.5 x
  // 1/3 x 1 s per unit of k; the log read is 3 ms): minimizing S / (k T) + Lambda k (T/2 + 0.5 s)
  // gives k^2 = S / (T Lambda (T/2 + 0.5 s)) = 135,000, k = 367, against k^2 = S / (T Lambda T/2)
  // = 270,000, k = 520, with the replay held at its k = 1 value: a ratio of 1/sqrt(2) = 0.71.
  s.training.iteration_time = seconds(1);
  const StrategyCosts at_one = compute_strategy_costs(s, nullptr);
  StrategyCosts held = at_one;
  held.moe.replay_time = SimTime::zero();  // the retrievals keep the replay, the search no longer rescales it
  const double rescaled_k = static_cast<double>(best_every_iterations(s, at_one, 2000).every_iterations);
  const double held_k = static_cast<double>(best_every_iterations(s, held, 2000).every_iterations);
  MESSAGE("best k: " << rescaled_k << " with the replay rescaled, " << held_k << " held");
  CHECK(rescaled_k / held_k == doctest::Approx(1.0 / std::sqrt(2.0)).epsilon(0.08));
}
