// Megatron-LM's pipeline schedules (workload/pipeline_schedule.hpp) against the closed forms of
// Narayanan et al., SC '21, §2.2, and Korthikanti et al. 2022, §4.2.3, worked by hand.
#include <doctest/doctest.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/workload/pipeline_schedule.hpp"

using namespace ckptsim;

TEST_CASE("pipeline: 1F1B rank orders are warm-up forwards, pairs, cool-down backwards") {
  // p = 4, m = 8, rank 0: W = p - 1 = 3 forwards, then (F3, B0) ... (F7, B4), then B5 B6 B7.
  const auto order = pipeline_order(4, 1, 8, 0);
  REQUIRE(order.size() == 16);
  CHECK((order[0].forward && order[0].micro_batch == 0 && order[2].micro_batch == 2));
  CHECK((order[3].forward && order[3].micro_batch == 3));
  CHECK((!order[4].forward && order[4].micro_batch == 0));
  CHECK((!order[15].forward && order[15].micro_batch == 7 && !order[14].forward && !order[13].forward));
  // The last rank has no warm-up: F0 B0 F1 B1 ...
  const auto last = pipeline_order(4, 1, 8, 3);
  CHECK((last[0].forward && !last[1].forward && last[1].micro_batch == 0 && last[2].forward));
}

TEST_CASE("pipeline: interleaved order walks chunks in groups of p micro-batches") {
  // p = 2, v = 2, m = 4, rank 0: W = 2(p-1) + (v-1)p = 4 forwards: chunk (k mod 4) div 2 of
  // micro-batch (k div 4)·2 + k mod 2: (c0,0) (c0,1) (c1,0) (c1,1); then F(k=4) = (c0,2) and
  // B(k=0) = chunk v-1-0 = 1, micro-batch 0.
  const auto order = pipeline_order(2, 2, 4, 0);
  REQUIRE(order.size() == 16);
  CHECK((order[0].chunk == 0 && order[0].micro_batch == 0));
  CHECK((order[1].chunk == 0 && order[1].micro_batch == 1));
  CHECK((order[2].chunk == 1 && order[2].micro_batch == 0));
  CHECK((order[3].chunk == 1 && order[3].micro_batch == 1));
  CHECK((order[4].forward && order[4].chunk == 0 && order[4].micro_batch == 2));
  CHECK((!order[5].forward && order[5].chunk == 1 && order[5].micro_batch == 0));
  // m = p = 2: rank 0's warm-up 2(p - 1) + (v - 1)p = 4 = m v, every forward first (Megatron's
  // all-warm-up case); rank 1's is 0 + 2 = 2 < 4, so after 2 forwards it pairs F(c1, 0), B(c1, 0).
  const auto all = pipeline_order(2, 2, 2, 0);
  for (int i = 0; i < 4; ++i) CHECK(all[static_cast<std::size_t>(i)].forward);
  const auto second = pipeline_order(2, 2, 2, 1);
  CHECK((second[2].forward && second[2].chunk == 1 && second[2].micro_batch == 0));
  CHECK((!second[3].forward && second[3].chunk == 1 && second[3].micro_batch == 0));
}

TEST_CASE("pipeline: 1F1B makespan (m + p - 1)(t_f + t_b) and bubble (p - 1)/(m + p - 1)") {
  // p = 4, m = 8, t_f = 1 ms, t_b = 2 ms: (8 + 3) x 3 ms = 33 ms; every rank busy 8 x 3 = 24 ms,
  // idle 9 of 33: 3/11.
  const PipelineRun run = run_pipeline(PipelineCosts::uniform(4, 1, 8, milliseconds(1), milliseconds(2)));
  CHECK(run.makespan == milliseconds(33));
  for (int r = 0; r < 4; ++r) CHECK(run.bubble_fraction(r) == doctest::Approx(3.0 / 11.0));
  // p = 8, m = 32: (p-1)/(m+p-1) = 7/39.
  const PipelineRun big = run_pipeline(PipelineCosts::uniform(8, 1, 32, milliseconds(1), milliseconds(2)));
  CHECK(big.makespan == milliseconds(3 * 39));
  CHECK(big.bubble_fraction(0) == doctest::Approx(7.0 / 39.0));
}

TEST_CASE("pipeline: 1F1B with fewer micro-batches than stages still obeys the closed form") {
  // Megatron allows m < p (warm-up min(p - r - 1, m)). p = 4, m = 2, t_f = 1, t_b = 2 (ms),
  // worked by hand: rank 3 runs F0 [3,4] B0 [4,6] F1 [6,7] B1 [7,9]; rank 0 ends B1 at 15 =
  // (m + p - 1)(t_f + t_b) = 5 x 3.
  const PipelineRun run = run_pipeline(PipelineCosts::uniform(4, 1, 2, milliseconds(1), milliseconds(2)));
  CHECK(run.makespan == milliseconds(15));
  CHECK(run.rank_end[3] == milliseconds(9));
}

TEST_CASE("pipeline: the interleaved bubble is the 1F1B bubble divided by the virtual stages") {
  // p = 4, v = 2, m = 8; a full stage takes t_f = 2 ms, t_b = 4 ms, so a chunk t_f/v = 1 ms and
  // t_b/v = 2 ms. Narayanan et al. §2.2.2: makespan m(t_f + t_b) + (p-1)(t_f + t_b)/v =
  // 48 + 9 = 57 ms; bubble 9/57 (1F1B with the same stages: 18/66).
  const PipelineRun run = run_pipeline(PipelineCosts::uniform(4, 2, 8, milliseconds(1), milliseconds(2)));
  CHECK(run.makespan == milliseconds(57));
  CHECK(run.bubble_fraction(0) == doctest::Approx(9.0 / 57.0));
  const PipelineRun plain = run_pipeline(PipelineCosts::uniform(4, 1, 8, milliseconds(2), milliseconds(4)));
  CHECK(plain.makespan == milliseconds(66));
  // p = 4, v = 4, m = 4 (all warm-up): 4 x 6 + 3 x 6 / 4 = 28.5 ms.
  const PipelineRun v4 = run_pipeline(PipelineCosts::uniform(4, 4, 4, microseconds(500), milliseconds(1)));
  CHECK(v4.makespan == microseconds(28'500));
}

TEST_CASE("pipeline: one micro-batch crosses every transfer twice") {
  // m = 1: p forwards, p backwards and 2(p - 1) transfers in a chain: 4 x 3 ms + 6 x 0.5 ms.
  const PipelineRun run = run_pipeline(PipelineCosts::uniform(4, 1, 1, milliseconds(1), milliseconds(2), microseconds(500)));
  CHECK(run.makespan == microseconds(15'000));
  // A middle rank receives one activation and one gradient, and sends one of each: 4 intervals.
  CHECK(run.transfers[1].size() == 4);
}

TEST_CASE("pipeline: micro-batches in flight (activation memory)") {
  // 1F1B: rank r holds at most min(m, p - r) micro-batches (Korthikanti et al. §4.2.3: the first
  // rank p of them). p = 4, m = 8.
  const PipelineRun run = run_pipeline(PipelineCosts::uniform(4, 1, 8, milliseconds(1), milliseconds(2)));
  for (int r = 0; r < 4; ++r) CHECK(run.peak_in_flight[static_cast<std::size_t>(r)][0] == 4 - r);
  // Interleaved, rank 0: W + 1 = 2(p-1) + (v-1)p + 1 = 6 + 4 + 1 = 11 chunks in flight, which with
  // one layer per chunk is L(1 + (p-1)/(p v)) = 8 x 11/8 layers (Korthikanti et al. §4.2.3).
  const PipelineRun inter = run_pipeline(PipelineCosts::uniform(4, 2, 8, milliseconds(1), milliseconds(2)));
  const auto& peak = inter.peak_in_flight[0];
  CHECK(peak[0] + peak[1] == 11);
}

TEST_CASE("pipeline: the interleaved schedule refuses a micro-batch count that is not a multiple of p") {
  CHECK_THROWS_AS(run_pipeline(PipelineCosts::uniform(4, 2, 6, milliseconds(1), milliseconds(2))), ModelError);
}

TEST_CASE("pipeline: interleaved warm-up is rank-dependent, every forward only where 2(p - r - 1) + (v - 1)p >= m v") {
  // p = 4, v = 2, m = p = 4 (Megatron's get_pp_rank_microbatches): W = 2(3 - r) + 4, capped at
  // m v = 8: rank 0 W = 10 -> 8 (all warm-up), rank 1 W = 8 (all), rank 2 W = 6, rank 3 W = 4.
  // The forwards (get_schedule_table, one group of 4): chunk 0 of micro-batches 0..3, then chunk 1
  // of 0..3. Held at most, counted by hand over each order:
  //   rank 0, 1: all 8 forwards before any backward: 4 of chunk 0 and 4 of chunk 1;
  //   rank 2: F0..F5 = c0 x4, c1 mb 0, 1; then F6 (c1 mb 2) before B0: 4 + 3 = 7;
  //   rank 3: F0..F3 = c0 x4; F4 (c1 mb 0) then B0 (c1 mb 0): 4 + 1 = 5, and never more than
  //   one chunk-1 micro-batch (its last virtual stage: the loss's logits) at a time.
  const PipelineRun run = run_pipeline(PipelineCosts::uniform(4, 2, 4, milliseconds(1), milliseconds(2)));
  const std::vector<double> count{1.0, 1.0};
  CHECK(peak_held(run.ranks[0], count) == std::vector<int>{4, 4});
  CHECK(peak_held(run.ranks[1], count) == std::vector<int>{4, 4});
  CHECK(peak_held(run.ranks[2], count) == std::vector<int>{4, 3});
  CHECK(peak_held(run.ranks[3], count) == std::vector<int>{4, 1});
  // Rank 3's order by hand: F(c0,0..3), F(c1,0), B(c1,0), F(c1,1), B(c1,1), ... B(c0,0..3).
  const auto last = pipeline_order(4, 2, 4, 3);
  CHECK((last[4].forward && last[4].chunk == 1 && last[4].micro_batch == 0));
  CHECK((!last[5].forward && last[5].chunk == 1 && last[5].micro_batch == 0));
  CHECK((!last[12].forward && last[12].chunk == 0 && last[12].micro_batch == 0));
  // Weighted: chunk 1 of rank 3 storing 100 bytes (a logits-sized edge) and chunk 0 one byte per
  // micro-batch peaks at 4 x 1 + 1 x 100 = 104 bytes, with the same counts.
  CHECK(peak_held(run.ranks[3], {1.0, 100.0}) == std::vector<int>{4, 1});
}

TEST_CASE("pipeline: the micro-batch group size orders forwards as Megatron's schedule table") {
  // Megatron's own example (model_parallel_config.py, microbatch_group_size_per_vp_stage): p = 2,
  // v = 2, n = 3, m = 5: "rank 0 | 0 1 2 0 1 2 3 4 3 4" (micro-batches of the forwards; chunk 0
  // of the first group, chunk 1 of it, then the last group of 2 = m mod n >= p through both chunks).
  const std::vector<int> mbs{0, 1, 2, 0, 1, 2, 3, 4, 3, 4};
  const std::vector<int> chunks{0, 0, 0, 1, 1, 1, 0, 0, 1, 1};
  // Rank 1: W = 2(p - 2) + (v - 1) n = 3 forwards, then pairs: forwards at 0, 1, 2, 3, 5, 7, ...
  const auto order = pipeline_order(2, 2, 5, 1, 3);
  std::vector<int> fm, fc;
  for (const PipelineOp& op : order)
    if (op.forward) {
      fm.push_back(op.micro_batch);
      fc.push_back(op.chunk);
    }
  CHECK(fm == mbs);
  CHECK(fc == chunks);
  CHECK((!order[4].forward && order[4].micro_batch == 0 && order[4].chunk == 1));  // B(k = 0): chunk v - 1 - 0
  // Rank 0: W = 2 + 3 = 5; the schedule runs (no deadlock) and every operation runs once.
  PipelineCosts c = PipelineCosts::uniform(2, 2, 5, milliseconds(1), milliseconds(2));
  c.group = 3;
  const PipelineRun run = run_pipeline(c);
  CHECK(run.ranks[0].size() == 20);
  CHECK(run.busy[1] == milliseconds(5 * 2 * 3));
  // Megatron refuses n < p, n > m, and a last group of fewer than p (m = 4, n = 3: remainder 1).
  c.group = 1;
  CHECK_THROWS_AS(run_pipeline(c), ModelError);
  c.group = 6;
  CHECK_THROWS_AS(run_pipeline(c), ModelError);
  PipelineCosts odd = PipelineCosts::uniform(2, 2, 4, milliseconds(1), milliseconds(2));
  odd.group = 3;
  CHECK_THROWS_AS(run_pipeline(odd), ModelError);
}
