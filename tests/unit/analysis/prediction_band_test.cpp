// The prediction band (workload/prediction_band.hpp) and its effect on a run
// (analysis/band_effect.hpp): the band computed from development points by hand, when it applies,
// and the closed form at its ends.
#include <array>
#include <stdexcept>

#include <doctest/doctest.h>

#include "ckptsim/analysis/analytic_models.hpp"
#include "ckptsim/analysis/band_effect.hpp"
#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/workload/prediction_band.hpp"
#include "../common/test_scenarios.hpp"

namespace ckptsim {
namespace {

TEST_CASE("the band of three development points, worked by hand") {
  // measured / predicted: 12 / 10 = 1.2, 9 / 10 = 0.9, 30 / 20 = 1.5; sorted 0.9, 1.2, 1.5:
  // low 0.9, median 1.2 (the middle one), high 1.5.
  const std::array<DevelopmentPoint, 3> points{{{"fsdp", "a100", "a", 12, 10}, {"fsdp", "a100", "b", 9, 10}, {"fsdp", "a100", "c", 30, 20}}};
  const PredictionBand b = band_from_points("fsdp", "a100", points);
  CHECK(b.points == 3);
  CHECK(b.low == doctest::Approx(0.9));
  CHECK(b.median == doctest::Approx(1.2));
  CHECK(b.high == doctest::Approx(1.5));
  // A fourth point at 10 / 10 = 1.0: sorted 0.9, 1.0, 1.2, 1.5, median (1.0 + 1.2) / 2 = 1.1.
  const std::array<DevelopmentPoint, 4> four{{points[0], points[1], points[2], {"fsdp", "a100", "d", 10, 10}}};
  CHECK(band_from_points("fsdp", "a100", four).median == doctest::Approx(1.1));
  // No point, or a prediction that is not positive, has no band.
  CHECK_THROWS_AS(band_from_points("fsdp", "a100", std::span<const DevelopmentPoint>{}), std::invalid_argument);
  const std::array<DevelopmentPoint, 1> zero{{{"fsdp", "a100", "z", 1, 0}}};
  CHECK_THROWS_AS(band_from_points("fsdp", "a100", zero), std::invalid_argument);
}

TEST_CASE("the compiled development set: positive times, known engines, and one band per engine and family") {
  REQUIRE_FALSE(development_points().empty());
  for (const DevelopmentPoint& p : development_points()) {
    CAPTURE(p.run);
    CHECK(p.measured_s > 0);
    CHECK(p.predicted_s > 0);
    const bool known = p.engine == "megatron" || p.engine == "fsdp" || p.engine == "deepspeed-zero3";
    CHECK(known);
  }
  // The published runs are FSDP on A100 (llm-foundry), Megatron on A100 (Narayanan et al.,
  // SC '21, Table 1) and Megatron on H100 (Llama 3): a family without a run has no band.
  CHECK(prediction_band("fsdp", "a100").has_value());
  CHECK(prediction_band("megatron", "a100").has_value());
  CHECK(prediction_band("megatron", "h100").has_value());
  CHECK_FALSE(prediction_band("megatron", "v100").has_value());
  CHECK_FALSE(prediction_band("no-such-engine", "a100").has_value());
}

TEST_CASE("GPU family and engine of a scenario") {
  CHECK(gpu_family("a100-sxm4-40gb") == "a100");
  CHECK(gpu_family("h100-sxm5-80gb") == "h100");
  CHECK(gpu_family("custom") == "custom");
  CHECK(gpu_family("").empty());
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.training.parallelism = Parallelism::zero3;
  s.training.engine = EngineKind::fsdp;
  CHECK(iteration_engine(s) == "fsdp");
  s.training.engine = EngineKind::deepspeed_zero3;
  CHECK(iteration_engine(s) == "deepspeed-zero3");
  s.training.parallelism = Parallelism::megatron;
  CHECK(iteration_engine(s) == "megatron");
}

/// A scenario whose iteration the FSDP engine predicts on A100s (the band's family).
Scenario fsdp_on_a100() {
  Scenario s = test::small_scenario(StrategyKind::gemini);
  s.training.parallelism = Parallelism::zero3;
  s.training.engine = EngineKind::fsdp;
  s.training.iteration_time.reset();
  s.cluster.gpu = "a100-sxm4-40gb";
  return s;
}

TEST_CASE("the band applies to blind predictions only") {
  Scenario s = fsdp_on_a100();
  const BandView blind = band_view(s, 2.0, false);
  REQUIRE(blind.has_range());
  const PredictionBand b = *prediction_band("fsdp", "a100");
  // [low P, high P] with P = 2 s.
  CHECK(blind.low_s() == doctest::Approx(2.0 * b.low));
  CHECK(blind.high_s() == doctest::Approx(2.0 * b.high));
  // A measured profile, a written iteration time or a calibrated compute efficiency: no range.
  CHECK_FALSE(band_view(s, 2.0, true).has_range());
  CHECK(band_view(s, 2.0, true).not_applicable->find("--profile") != std::string::npos);
  Scenario measured = s;
  measured.training.iteration_time = seconds(2);
  CHECK(band_view(measured, 2.0, false).not_applicable->find("training.iteration_time") != std::string::npos);
  CHECK(band_view(measured, 2.0, false).iteration_time_written);
  Scenario calibrated = s;
  calibrated.training.compute_efficiency = 0.5;
  CHECK(band_view(calibrated, 2.0, false).not_applicable->find("training.compute_efficiency") != std::string::npos);
  // A kernel-model efficiency the file writes with a value of its own (what calibrate writes):
  // no range; the same pointer written with the GPU type's own value changes nothing.
  Scenario gemm = s;
  gemm.written = {"/cluster/gpu_gemm_efficiency"};
  CHECK(band_view(gemm, 2.0, false).not_applicable->find("cluster.gpu_gemm_efficiency") != std::string::npos);
  gemm.written_unchanged = {"/cluster/gpu_gemm_efficiency"};
  CHECK(band_view(gemm, 2.0, false).has_range());
  // Any figure the GPU type fills (the table's from-GPU rows: here the data-sheet peak), not only
  // the kernel efficiencies; a field the type does not fill (the network) leaves the band.
  Scenario peak = s;
  peak.written = {"/cluster/gpu_peak_flops"};
  CHECK(band_view(peak, 2.0, false).not_applicable->find("cluster.gpu_peak_flops") != std::string::npos);
  Scenario network = s;
  network.written = {"/cluster/network/latency"};
  CHECK(band_view(network, 2.0, false).has_range());
  // A GPU given by its figures has no family and so no band; the prediction stands alone.
  Scenario figures = s;
  figures.cluster.gpu.clear();
  CHECK_FALSE(band_view(figures, 2.0, false).band.has_value());
  CHECK_FALSE(band_view(figures, 2.0, false).not_applicable.has_value());
}

TEST_CASE("a run's band: the closed form at T and at the band's ends") {
  // No failures, so the closed form is the stall pattern alone (analytic_models_test.cpp): over
  // W = 36,000 s with T = 60 s, k = 1 and S = 6 s, ETTR = 32,730 / 36,000 at T.
  Scenario s = fsdp_on_a100();
  s.failures.process = FailureProcessKind::none;
  s.failures.rate = 0;
  s.run.duration = seconds(36000);
  s.strategy.checkpoint_stall = seconds(6);
  s.training.iteration_time = seconds(60);
  StrategyCosts c = compute_strategy_costs(s, nullptr);
  s.training.iteration_time.reset();  // the run's T is now the model's prediction
  const PredictionBand b = *prediction_band("fsdp", "a100");
  // A checkpoint that completes (low + high) / 2 periods after it starts: beyond one period at T
  // and at low·T (low < (low + high) / 2), within it at high·T.
  c.completion = SimTime::from_seconds(60.0 * (b.low + b.high) / 2);
  const BandEffect e = band_effect(s, c);
  REQUIRE(e.view.has_range());
  REQUIRE(e.closed_form);
  CHECK(e.predicted.iteration_s == doctest::Approx(60.0));
  CHECK(e.predicted.ettr == doctest::Approx(32730.0 / 36000.0));
  CHECK(e.low.iteration_s == doctest::Approx(60.0 * b.low));
  CHECK(e.high.iteration_s == doctest::Approx(60.0 * b.high));
  CHECK_FALSE(e.predicted.completes_within_period);
  CHECK_FALSE(e.low.completes_within_period);
  CHECK(e.high.completes_within_period);
  // At an end, the closed form of the same costs with T replaced and nothing else.
  StrategyCosts at_high = c;
  at_high.iteration_time = SimTime::from_seconds(60.0 * b.high);
  CHECK(e.high.ettr == doctest::Approx(predict_run(s, at_high).ettr));
  // Longer iterations with the same 6 s stall: the stall is a smaller share of each period.
  CHECK(e.high.ettr > e.predicted.ettr);
  // A written iteration time is the user's: no band at all.
  Scenario written = s;
  written.training.iteration_time = seconds(60);
  CHECK(band_effect(written, c).view.iteration_time_written);
}

}  // namespace
}  // namespace ckptsim
