// GPU memory model (workload/gpu_memory.hpp): which GEMINI models fit on 16 p4d / 16 p3dn.
#include <doctest/doctest.h>

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

}  // namespace

TEST_CASE("memory terms of GPT-2 100B on 128 A100-40GB, by hand") {
  const Scenario s = on(k100b, 124, false);
  const GpuMemory m = memory_of(s);
  REQUIRE(m.terms.size() == 11);
  const double p = TransformerShape::from(s).parameters();
  CHECK(m.terms[0].bytes == doctest::Approx(16.0 * p / 128));            // 12.9 GB
  CHECK(m.terms[3].bytes == 1e9);                                         // 5e8 x 2 B
  CHECK(m.terms[5].bytes == doctest::Approx(124.0 * 8 * 512 * 8192 * 2));  // 8.32 GB
  CHECK(m.terms[8].bytes == 781e6);
  CHECK(m.terms[9].bytes == 3 * 8 * 2 * 4.0 * 1024 * 1024);               // 192 MiB
  CHECK(m.terms[10].bytes == doctest::Approx(0.3 * 40 * 1024.0 * 1024 * 1024));
  // Gathered parameters: at least the largest module in use (FC1 or FC2, 2^28 elements). At
  // most max_live + 2 x the largest module (V·h = 4.12e8): prefetching stops once the cap is
  // reached but may overshoot by one module, and an on-demand fetch adds one more.
  CHECK(m.terms[1].bytes >= 2.0 * 8192 * 32768);
  CHECK(m.terms[1].bytes <= 2.0 * (1e9 + 2 * 50265.0 * 8192));
}

TEST_CASE("16 p4d: GPT-2 100B fits, a model 25% larger does not") {
  CHECK(memory_of(on(k100b, 124, false)).free() > 0);
  CHECK(memory_of(on(k100b, 155, false)).free() < 0);  // 155 = 1.25 x 124 layers
}

TEST_CASE("16 p3dn: GPT-2 40B fits, GPT-2 100B does not") {
  CHECK(memory_of(on(k40b, 128, true)).free() > 0);
  CHECK(memory_of(on(k100b, 124, true)).free() < 0);
}
