// DeepSpeed ZeRO-3's fetch, prefetch, release and gradient bucketing (workload/zero3_schedule.hpp),
// on hand-worked use sequences.
#include <doctest/doctest.h>

#include "ckptsim/workload/zero3.hpp"
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

TEST_CASE("gradient buckets: flush before adding what would overflow, the rest at the end") {
  // Gradients 3e8, 3e8, 3e8 with 5e8 buckets: use 1 would make 6e8 > 5e8, so the 3e8 bucket is
  // reduced after use 1; same after use 2; the last 3e8 after the last use.
  std::vector<ModuleUse> uses{{0, 3e8}, {1, 3e8}, {2, 3e8}};
  const Zero3Schedule s = plan_zero3(three_modules(), uses, Zero3Knobs{});
  REQUIRE(s.buckets.size() == 3);
  CHECK(s.buckets[0].after_use == 1);
  CHECK(s.buckets[1].after_use == 2);
  CHECK(s.buckets[2].after_use == 2);
  for (const ReduceBucket& b : s.buckets) CHECK(b.elements == 3e8);
}

TEST_CASE("GPT-2 100B: DeepSpeed's default buckets over the backward of the last layers") {
  // h = 8192, f = 32768. Backward of the last layer: FC2 f·h + h = 268,443,648; FC1 h·f + f +
  // 2h = 268,484,608; O h·h + h = 67,117,056; QKV 3h^2 + 5h = 201,367,552 (elements).
  // Buckets of 5e8: [FC2] (adding FC1 would overflow), [FC1 + O] = 335,601,664 (QKV would
  // overflow), [QKV + FC2 of the layer before] = 469,811,200.
  TransformerShape shape;
  shape.layers = 124;
  shape.hidden = 8192;
  shape.ffn = 32768;
  shape.heads = 64;
  shape.vocabulary = 50265;
  shape.sequence = 512;
  shape.micro_batch = 8;
  const Zero3Program p = make_zero3_program(shape);
  const Zero3Schedule s = plan_zero3(p.modules, p.uses, Zero3Knobs{});
  REQUIRE(s.buckets.size() > 3);
  CHECK(s.buckets[0].elements == 268443648.0);
  CHECK(s.buckets[1].elements == 335601664.0);
  CHECK(s.buckets[2].elements == 469811200.0);
  double reduced = 0;
  for (const ReduceBucket& b : s.buckets) reduced += b.elements;
  CHECK(reduced == shape.parameters());  // every gradient reduced exactly once
  // Uses: embedding, 4 per layer, output forward and backward, 4 recomputed + 4 backward per
  // layer, embedding backward: 2 + 12·124 + 2.
  CHECK(p.uses.size() == 4 + 12 * 124);
  double flops = 0;
  for (double f : p.flops) flops += f;
  const double expected = 124 * (shape.layer_forward_flops() + shape.layer_backward_flops()) +
                          shape.output_forward_flops() + shape.output_backward_flops();
  CHECK(flops == doctest::Approx(expected).epsilon(1e-12));
}
