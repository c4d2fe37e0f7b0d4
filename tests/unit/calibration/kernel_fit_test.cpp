// Compute per kernel class: the class names the importer gives are the kernel model's, and
// calibrate fits each class's measured time against the model's (calibration/calibrate.hpp).
#include <doctest/doctest.h>

#include "ckptsim/calibration/calibrate.hpp"
#include "ckptsim/calibration/kernel_classes.hpp"
#include "ckptsim/core/error.hpp"

using namespace ckptsim;

namespace {

ClassSample sample(KernelClass c, double seconds) { return {c, seconds, "k.json: step"}; }

CalibrationBase base_with_model() {
  CalibrationBase b;
  KernelModelBase k;
  // Model seconds per iteration by class (KernelClass order: gemm, attention, layer_norm,
  // elementwise, loss, embedding).
  k.seconds = {0.1, 0.02, 0.01, 0.03, 0.0, 0.0};
  k.gemm_efficiency = 0.8;
  k.memory_efficiency = 0.5;
  b.kernel_model = k;
  return b;
}

}  // namespace

TEST_CASE("kernel classes: trace kernel names fall into the kernel model's classes") {
  // The rule table of kernel_classes.hpp, first match wins.
  CHECK(kernel_class("ampere_fp16_s16816gemm_fp16_128x128_ldg8_f2f_stages_32x5_tn") == "gemm");
  CHECK(kernel_class("void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<c10::Half>") == "layer_norm");
  CHECK(kernel_class("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float>") == "elementwise");  // "softmax"
  CHECK(kernel_class("void at::native::log_softmax_forward_kernel") == "loss");  // loss before elementwise's "softmax"
  CHECK(kernel_class("void at::native::indexSelectLargeIndex<float>") == "embedding");  // before elementwise's "index"
  CHECK(kernel_class("void multi_tensor_apply_kernel<AdamFunctor>") == "optimizer");
  CHECK(kernel_class("ncclKernel_AllGather_RING_LL_Sum_int8_t") == "nccl");
  CHECK(kernel_class("some_custom_kernel") == "other");
  // Every compute class name is the kernel model's key and maps back to its class.
  for (int c = 0; c < kKernelClasses; ++c) {
    const auto cls = static_cast<KernelClass>(c);
    REQUIRE(model_kernel_class(key_of(cls)).has_value());
    CHECK(*model_kernel_class(key_of(cls)) == cls);
  }
  CHECK_FALSE(model_kernel_class("nccl").has_value());
  CHECK_FALSE(model_kernel_class("optimizer").has_value());
  CHECK_FALSE(model_kernel_class("other").has_value());
}

TEST_CASE("calibrate: kernel classes fitted against the kernel model write its efficiencies") {
  MeasurementSet m;
  m.sources = {"k.json"};
  // GEMM: model 0.1 s, measured 0.125 s, 0.1 s and 0.1 s. Proportional WLS (weights 1/t^2)
  // minimises sum((x b / t - 1)^2) with b = 1/s: b = sum(x/t) / sum((x/t)^2) = (0.8 + 1 + 1) /
  // (0.64 + 1 + 1) = 2.8 / 2.64, so s = 2.64 / 2.8 = 0.942857 and the GEMM efficiency 0.8 s =
  // 0.754286. (Three samples: with two, the 95% interval of b at 1 degree of freedom reaches 0.)
  m.class_samples = {sample(KernelClass::gemm, 0.125), sample(KernelClass::gemm, 0.1), sample(KernelClass::gemm, 0.1)};
  // Memory-bound, pooled: LayerNorm model 0.01 s measured 0.02 s, elementwise 0.03 s measured
  // 0.06 s: x/t = 0.5 both, s = 0.5, so the HBM efficiency 0.5 x 0.5 = 0.25.
  m.class_samples.push_back(sample(KernelClass::layer_norm, 0.02));
  m.class_samples.push_back(sample(KernelClass::elementwise, 0.06));
  // Unfused attention: reported only. Loss: the model runs none, so a note.
  m.class_samples.push_back(sample(KernelClass::attention, 0.04));
  m.class_samples.push_back(sample(KernelClass::attention, 0.04));
  m.class_samples.push_back(sample(KernelClass::loss, 0.01));
  const Calibration c = calibrate(m, base_with_model());
  CHECK(c.fields["cluster"]["gpu_gemm_efficiency"].get<double>() == doctest::Approx(0.754286).epsilon(1e-5));
  CHECK(c.fields["cluster"]["gpu_memory_efficiency"].get<double>() == doctest::Approx(0.25));
  CHECK_FALSE(c.fields["cluster"].contains("gpu_flash_attention_efficiency"));
  bool attention_fit = false, attention_note = false, loss_note = false;
  for (const GroupFit& g : c.fits) {
    // Attention: model 0.02 s, measured 0.04 s twice: speed 0.5 exactly.
    if (g.name == "kernel class attention vs model") attention_fit = g.fit.rate == doctest::Approx(0.5);
  }
  for (const std::string& n : c.notes) {
    attention_note |= n.find("attention: reported, not written") != std::string::npos;
    loss_note |= n.find("kernel class loss") != std::string::npos;
  }
  CHECK(attention_fit);
  CHECK(attention_note);
  CHECK(loss_note);
}

TEST_CASE("calibrate: a kernel-class fit above efficiency 1, or without the kernel model, is refused") {
  MeasurementSet m;
  m.sources = {"k.json"};
  // GEMM measured twice as fast as the model at efficiency 0.8: efficiency 1.6, past the bound
  // s <= 1/0.8 with no uncertainty (identical samples): refused, nothing written.
  m.class_samples = {sample(KernelClass::gemm, 0.05), sample(KernelClass::gemm, 0.05)};
  CHECK_THROWS_AS(calibrate(m, base_with_model()), ModelError);
  CalibrationBase none;
  none.kernel_model_missing = "the base scenario's training.compute_efficiency replaces the kernel model";
  m.class_samples = {sample(KernelClass::gemm, 0.125)};
  CHECK_THROWS_WITH_AS(calibrate(m, none), doctest::Contains("replaces the kernel model"), ModelError);
}
