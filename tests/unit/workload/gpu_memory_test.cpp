// GPU memory model (workload/gpu_memory.hpp): the terms by hand, the phase peak, and which
// GEMINI models fit on 16 p4d / 16 p3dn.
#include <doctest/doctest.h>

#include <string>

#include "ckptsim/workload/gpu_memory.hpp"
#include "ckptsim/workload/zero3.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

namespace {

// GEMINI Table 2 shapes (hidden, FFN, layers, heads); vocabulary 50265, sequence 512, batch 8.
struct Shape {
  int hidden, ffn, layers, heads;
};
constexpr Shape k40b{5120, 20480, 128, 40};
constexpr Shape k100b{8192, 32768, 124, 64};

Scenario on(const Shape& shape, int layers, bool p3dn) {
  Scenario s = testing::paper_scenario(16);
  s.model.hidden = shape.hidden;
  s.model.ffn = shape.ffn;
  s.model.layers = layers;
  s.model.heads = shape.heads;
  if (p3dn) s.cluster.gpu_memory_bytes = 32.0 * 1024 * 1024 * 1024;  // V100-32GB
  return s;
}

GpuMemory memory_of(const Scenario& s) {
  const TransformerShape shape = TransformerShape::from(s);
  const Zero3Program p = make_zero3_program(shape);
  const Zero3Schedule plan = plan_zero3(p.modules, p.uses, Zero3Knobs{});
  return gpu_memory(s, shape, plan.peak_live);
}

const GpuMemoryTerm& term(const GpuMemory& m, const std::string& name) {
  for (const GpuMemoryTerm& t : m.terms) {
    if (t.name == name) return t;
  }
  FAIL("no memory term " << name);
  return m.terms.front();
}

}  // namespace

TEST_CASE("memory terms of GPT-2 100B on 128 A100-40GB, by hand") {
  const Scenario s = on(k100b, 124, false);
  const GpuMemory m = memory_of(s);
  REQUIRE(m.terms.size() == 13);
  const double p = TransformerShape::from(s).parameters();
  CHECK(term(m, "model states (16 B x P / n)").bytes == doctest::Approx(16.0 * p / 128));  // 12.5 GB
  CHECK(term(m, "gradient bucket").bytes == 1e9);                                           // 5e8 x 2 B
  CHECK(term(m, "activation checkpoints").bytes == doctest::Approx(124.0 * 8 * 512 * 8192 * 2));  // 8.32 GB
  CHECK(term(m, "CUDA context").bytes == 781e6);
  CHECK(term(m, "NCCL buffers").bytes == 3 * 8 * 2 * 4.0 * 1024 * 1024);  // 192 MiB
  CHECK(term(m, "fragmentation reserve (30%)").bytes == doctest::Approx(0.3 * 40 * 1024.0 * 1024 * 1024));
  // The largest module is the tied embedding with the final LayerNorm, V·h + 2h = 50265 x 8192
  // + 16,384 = 411,787,264 elements (an FC matrix has 8192 x 32768 = 268,435,456), x 2 B.
  CHECK(term(m, "largest module gradient").bytes == doctest::Approx(2.0 * (50265 * 8192 + 2 * 8192)));
  // reduce_scatter_coalesced's flat copy of a full bucket: 5e8 x 2 B (P > bucket).
  CHECK(term(m, "reduce-scatter copy").bytes == 1e9);
  // Step: sub_group_size 1e9 > P/n = 7.8e8, so the whole partition is flattened (2 B) and
  // converted to fp32 (4 B).
  CHECK(term(m, "fp32 gradient (sub-group)").bytes == doctest::Approx(6.0 * p / 128));
  // Gathered parameters: at least the largest module in use (FC1 or FC2, 2^28 elements). At
  // most max_live + 2 x the largest module (V·h = 4.12e8): prefetching stops once the cap is
  // reached but may overshoot by one module, and an on-demand fetch adds one more.
  CHECK(term(m, "gathered parameters (peak)").bytes >= 2.0 * 8192 * 32768);
  CHECK(term(m, "gathered parameters (peak)").bytes <= 2.0 * (1e9 + 2 * 50265.0 * 8192));
}

TEST_CASE("phases: the loss holds the logits, backward the recomputation and reduce-scatter buffers") {
  const GpuMemory m = memory_of(on(k100b, 124, false));
  // Backward adds working activations s·b·h·(34 + 5·a·s/h) = 512·8·8192·(34 + 20) =
  // 1,811,939,328, the embedding module's gradient 2 x 411,787,264 = 823,574,528 and the
  // reduce-scatter copy 1e9, and frees the fp32 logits 4·8·512·50265 = 823,541,760:
  // backward - loss = 2,811,972,096 B.
  CHECK(m.used_in(MemoryPhase::backward) - m.used_in(MemoryPhase::loss) ==
        doctest::Approx(2811972096.0).epsilon(1e-9));
  // The step keeps only the every-phase terms and adds the fp32 gradient (6 B x P/n = 4.7 GB),
  // while backward's own terms exceed 10 GB (activation checkpoints alone are 8.32 GB).
  CHECK(m.used_in(MemoryPhase::optimizer_step) < m.used_in(MemoryPhase::backward));
  CHECK(m.peak_phase() == MemoryPhase::backward);
  CHECK(m.used() == m.used_in(MemoryPhase::backward));
  // The peak is not the sum of every term: the logits and the fp32 gradient are never live in
  // backward, so the sum exceeds the peak by exactly those two.
  double sum = 0;
  for (const GpuMemoryTerm& t : m.terms) sum += t.bytes;
  CHECK(sum - m.used() == doctest::Approx(823541760.0 + term(m, "fp32 gradient (sub-group)").bytes));
}

TEST_CASE("the optimizer step is the peak when one GPU steps a 1.06B-parameter model") {
  // One GPU, micro-batch 1, sequence 64, P = 1.06e9: the step flattens and converts one
  // sub-group of 1e9 elements, 6 B x 1e9 = 6e9 B, while backward adds at most 2 B x (max_live
  // 1e9 + two modules of 1.03e8) = 2.4e9 B of gathered parameters, 1e9 B of reduce-scatter
  // copy and small activations; so the step is larger.
  Scenario s = on(Shape{2048, 8192, 19, 16}, 19, false);
  s.cluster.machines = 1;
  s.cluster.gpus_per_machine = 1;
  s.cluster.gpu_memory_bytes = 80.0 * 1024 * 1024 * 1024;
  s.training.micro_batch = 1;
  s.training.sequence_length = 64;
  const GpuMemory m = memory_of(s);
  const double p = TransformerShape::from(s).parameters();  // 19 x 50.4M + 103M = 1.06e9
  REQUIRE(p > 1e9);
  REQUIRE(p < 1e9 * 1.1);
  CHECK(term(m, "fp32 gradient (sub-group)").bytes == doctest::Approx(6e9));
  CHECK(m.peak_phase() == MemoryPhase::optimizer_step);
  // A smaller sub-group shrinks the step's copy: 1e6 elements x 6 B.
  s.training.zero3.sub_group_size = 1e6;
  CHECK(term(memory_of(s), "fp32 gradient (sub-group)").bytes == doctest::Approx(6e6));
  CHECK(memory_of(s).peak_phase() == MemoryPhase::backward);
}

TEST_CASE("16 p4d: GPT-2 100B fits, a model 25% larger does not") {
  CHECK(memory_of(on(k100b, 124, false)).free() > 0);
  CHECK(memory_of(on(k100b, 155, false)).free() < 0);  // 155 = 1.25 x 124 layers
}

TEST_CASE("16 p3dn: GPT-2 40B fits, GPT-2 100B does not") {
  CHECK(memory_of(on(k40b, 128, true)).free() > 0);
  CHECK(memory_of(on(k100b, 124, true)).free() < 0);
}
