// DeepSpeed ZeRO-3's fetch, prefetch and release (workload/zero3_schedule.hpp), on hand-worked
// use sequences.
#include <doctest/doctest.h>

#include "ckptsim/workload/deepspeed_zero3.hpp"
#include "ckptsim/workload/zero3_schedule.hpp"

using namespace ckptsim;

namespace {
std::vector<SubModule> three_modules() { return {{{6e7}}, {{6e7}}, {{6e7}}}; }
std::vector<ModuleUse> in_order(std::vector<int> modules) {
  std::vector<ModuleUse> uses;
  for (int m : modules) uses.push_back({m, 0});
  return uses;
}
}  // namespace

TEST_CASE("prefetch: one bucket of 5e7 elements takes the next 6e7-element module") {
  // Step 0: m0 is fetched on demand (group 0), then the prefetcher takes m1 (6e7 >= 5e7 ends
  // the bucket: group 1, also at step 0). Step 1: m1 is in flight; prefetch m2 (group 2, step 1).
  const Zero3Schedule s = plan_zero3(three_modules(), in_order({0, 1, 2}), Zero3Knobs{});
  REQUIRE(s.gathers.size() == 3);
  CHECK(s.gathers[0].step == 0);
  CHECK(s.gathers[1].step == 0);
  CHECK(s.gathers[2].step == 1);
  CHECK(s.gathers[1].modules == std::vector<int>{1});
  CHECK(s.waits_on == std::vector<int>{0, 1, 2});
  // Live at most m0 + m1 (m0 released after step 0, before m2 is gathered at step 1).
  CHECK(s.peak_live == 1.2e8);
}

TEST_CASE("prefetch bucket 0 or max_live reached: every module is fetched when its use comes") {
  Zero3Knobs none;
  none.prefetch_bucket_size = 0;
  const Zero3Schedule a = plan_zero3(three_modules(), in_order({0, 1, 2}), none);
  REQUIRE(a.gathers.size() == 3);
  for (int g = 0; g < 3; ++g) CHECK(a.gathers[static_cast<std::size_t>(g)].step == g);
  // max_live 6e7: after fetching m0, min(6e7 - 6e7, 5e7) = 0 elements may be prefetched.
  Zero3Knobs tight;
  tight.max_live_parameters = 6e7;
  const Zero3Schedule b = plan_zero3(three_modules(), in_order({0, 1, 2}), tight);
  REQUIRE(b.gathers.size() == 3);
  for (int g = 0; g < 3; ++g) CHECK(b.gathers[static_cast<std::size_t>(g)].step == g);
  CHECK(b.peak_live == 6e7);
}

TEST_CASE("persistence threshold: small tensors are never gathered") {
  // 5e4 <= 1e5 stays resident; 2e5 is gathered.
  const SubModule m{{5e4, 2e5}};
  CHECK(m.fetched(1e5) == 2e5);
  CHECK(m.total() == 2.5e5);
  // A module made only of small tensors needs no gather: its use waits on nothing.
  const Zero3Schedule s = plan_zero3({{{5e4}}, {{6e7}}}, in_order({0, 1}), Zero3Knobs{});
  CHECK(s.waits_on[0] == -1);
  REQUIRE(s.gathers.size() == 1);
  CHECK(s.gathers[0].step == 0);  // m1 prefetched at step 0
}

TEST_CASE("reuse distance: a module used again soon stays gathered") {
  // Uses m0, m1, m0. Default reuse distance 1e9: after step 0 the walk meets m1 (6e7 passed,
  // < 1e9) then m0, so m0 stays; two gathers in all. Distance 0: m0 is released and gathered
  // again (prefetched at step 1), three gathers.
  const Zero3Schedule keep = plan_zero3(three_modules(), in_order({0, 1, 0}), Zero3Knobs{});
  CHECK(keep.gathers.size() == 2);
  CHECK(keep.waits_on[2] == keep.waits_on[0]);
  Zero3Knobs no_reuse;
  no_reuse.max_reuse_distance = 0;
  const Zero3Schedule again = plan_zero3(three_modules(), in_order({0, 1, 0}), no_reuse);
  REQUIRE(again.gathers.size() == 3);
  CHECK(again.gathers[2].step == 1);
  CHECK(again.waits_on[2] == 2);
}

TEST_CASE("persistence: a tensor of exactly the threshold is gathered (DeepSpeed keeps ds_numel < threshold)") {
  const SubModule m{{1e5, 99999}};
  CHECK(m.fetched(1e5) == 1e5);
}

TEST_CASE("without a complete trace: no prefetch, every module released after its use") {
  // Uses m0, m1, m0 with the default reuse distance: a complete trace keeps m0 (two gathers, as
  // above); an invalid one gathers on demand at each use and releases after it: three gathers,
  // all on demand, each at its own step.
  Zero3Knobs invalid;
  invalid.complete_trace = false;
  const Zero3Schedule s = plan_zero3(three_modules(), in_order({0, 1, 0}), invalid);
  REQUIRE(s.gathers.size() == 3);
  for (int g = 0; g < 3; ++g) {
    CHECK(s.gathers[static_cast<std::size_t>(g)].on_demand);
    CHECK(s.gathers[static_cast<std::size_t>(g)].step == g);
  }
  CHECK(s.releases == std::vector<char>{1, 1, 1});
  CHECK(s.peak_live == 6e7);
}

TEST_CASE("a module the prefetcher skipped because it was gathered is kept until that use") {
  // m0, m1 of 6e7 and m2 of 1e7 elements (prefetch bucket 5e7), reuse distance 0, uses m0, m1,
  // m2, m1. Step 0: m0 on demand, prefetch m1 (6e7 fills the bucket). Step 1: the prefetcher
  // takes m2 (1e7, the bucket not full) and walks on to the fourth use, m1, gathered: skipped,
  // recorded (coordinator lines 337-339). By distance 0, m1 would be released after step 1,
  // but the record keeps it (lines 431-440), so the fourth use finds it gathered: three gathers.
  Zero3Knobs k;
  k.max_reuse_distance = 0;
  const std::vector<SubModule> modules{{{6e7}}, {{6e7}}, {{1e7}}};
  const Zero3Schedule s = plan_zero3(modules, in_order({0, 1, 2, 1}), k);
  CHECK(s.gathers.size() == 3);
  CHECK(s.waits_on[3] == s.waits_on[1]);
  CHECK(s.releases[1] == 0);
}

TEST_CASE("GPT-2 100B reuse in backward: every recomputed module stays gathered for its backward use") {
  // Backward of a layer with recomputation: QKV_r, O_r, FC1_r, FC2_r, FC2_b, FC1_b, O_b, QKV_b
  // (elements: QKV 2.01e8, O 6.7e7, FC1 = FC2 2.68e8). By reuse distance alone (1e9) FC2 (no
  // use between) and FC1 (FC2_r + FC2_b = 5.4e8) stay, O and QKV (1.07e9 and 1.2e9 between)
  // would be released. But the prefetcher takes one module (> 5e7) per step and skips trace
  // entries whose module is gathered: once the recomputation's four modules are gathered, the
  // next steps walk past the four backward entries — all gathered — recording the skips, to the
  // next layer's first module. A module is not released before a skipped use (coordinator lines
  // 431-440), so all four stay: the backward gathers nothing, the recomputation 4 (prefetched).
  TransformerShape shape;
  shape.layers = 124;
  shape.hidden = 8192;
  shape.ffn = 32768;
  shape.heads = 64;
  shape.vocabulary = 50265;
  shape.sequence = 512;
  shape.micro_batch = 8;
  const Zero3Layout p = zero3_layout(shape);
  const Zero3Schedule s = plan_zero3(p.modules, p.uses, Zero3Knobs{});
  std::size_t first = 0;
  while (!(p.layer[first] == 60 && p.category[first] == TaskCategory::recompute)) ++first;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::size_t r = first + i;      // QKV_r, O_r, FC1_r, FC2_r
    const std::size_t b = first + 7 - i;  // QKV_b, O_b, FC1_b, FC2_b
    REQUIRE(p.uses[b].module == p.uses[r].module);
    CHECK(s.waits_on[b] == s.waits_on[r]);
    CHECK_FALSE(s.first_wait[b]);
    CHECK_FALSE(s.gathers[static_cast<std::size_t>(s.waits_on[r])].on_demand);
  }
  // Uses: embedding, 4 per layer, output forward and backward, 4 recomputed + 4 backward per
  // layer, embedding backward: 4 + 12·124.
  CHECK(p.uses.size() == 4 + 12 * 124);
}
