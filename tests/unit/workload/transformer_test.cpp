// Transformer sizes and FLOPs against hand calculation (workload/transformer.hpp).
#include <doctest/doctest.h>

#include "ckptsim/workload/transformer.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

TEST_CASE("GPT-2 100B: parameters and FLOPs per layer") {
  const TransformerShape s = TransformerShape::from(testing::paper_scenario());
  // P_l = 4·8192^2 + 2·8192·32768 + 9·8192 + 32768 = 268,435,456 + 536,870,912 + 73,728 + 32,768
  //     = 805,412,864
  CHECK(s.layer_parameters() == doctest::Approx(805412864.0));
  // 124 x 805,412,864 + 50265 x 8192 + 2 x 8192 = 99,871,195,136 + 411,770,880 + 16,384
  CHECK(s.parameters() == doctest::Approx(100282982400.0));
  // F_l = 4096 x (8·8192^2 + 4·8192·32768) + 4·8·512^2·8192
  //     = 4096 x 1,610,612,736 + 68,719,476,736 = 6,665,789,243,392
  CHECK(s.layer_forward_flops() == doctest::Approx(6665789243392.0));
  // Backward with recomputation: 3 x forward.
  CHECK(s.layer_backward_flops() == doctest::Approx(3 * 6665789243392.0));
  // Output: 2·8·512·8192·50265 = 3,373,227,048,960; backward twice that.
  CHECK(s.output_forward_flops() == doctest::Approx(3373227048960.0));
  CHECK(s.output_backward_flops() == doctest::Approx(2 * 3373227048960.0));
}
