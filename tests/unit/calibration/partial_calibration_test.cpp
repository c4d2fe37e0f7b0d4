// `ckptsim calibrate` keeps each fit that holds and reports each that does not (issue 38): a
// refusal names the input file, the fit and its samples, including the estimator's own
// refusals (samples that determine too few parameters); only when every fit that would write a
// field is refused does the calibration fail as a whole.
#include <string>

#include <doctest/doctest.h>

#include "ckptsim/calibration/calibrate.hpp"
#include "ckptsim/calibration/rate_fit.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/units.hpp"

using namespace ckptsim;

namespace {

/// Host copies of 1, 2 and 4 MB at exactly 1 GB/s (t = x / 1e9), from m.json.
void add_exact_host_copies(MeasurementSet& m) {
  for (int i = 0; i < 3; ++i) {
    const double x = 1e6 * (1 << i);
    m.samples.push_back({SampleKind::host_copy, x, x / 1e9, 1, 1, "m.json: /samples/" + std::to_string(i)});
  }
}

/// Point-to-point sends between 2 machines, all of 65536 bytes, from m.json: t = alpha + x / R
/// cannot separate alpha from R when every x is the same.
void add_one_size_p2p(MeasurementSet& m) {
  for (int i = 3; i < 6; ++i) m.samples.push_back({SampleKind::p2p, 65536, 1e-3 * i, 2, 2, "m.json: /samples/" + std::to_string(i)});
}

}  // namespace

TEST_CASE("rate fit: the estimator's refusal names the fit and lists its samples") {
  // Three samples of one size: the design [1, x] has rank 1, so latency and rate are undetermined.
  const std::vector<RateSample> s = {{65536, 1e-3, 1, "a.json: /samples/0"}, {65536, 2e-3, 1, "a.json: /samples/1"},
                                     {65536, 3e-3, 1, "a.json: /samples/2"}};
  try {
    (void)fit_rate(s, {RateModel::alpha_beta, std::nullopt, "p2p (between machines)", "B/s"});
    FAIL("one size determined two parameters");
  } catch (const ModelError& e) {
    CHECK(e.parameter() == "p2p (between machines)");
    CHECK(e.message().find("determine only 1 of the 2") != std::string::npos);
    for (const char* origin : {"a.json: /samples/0", "a.json: /samples/1", "a.json: /samples/2"})
      CHECK(e.message().find(origin) != std::string::npos);
  }
}

TEST_CASE("calibrate: a refused fit is reported with its file and samples, the fits that hold are written") {
  MeasurementSet m;
  m.sources = {"m.json"};
  add_exact_host_copies(m);
  add_one_size_p2p(m);
  const Calibration c = calibrate(m, {});
  // The host-copy fit holds: 1 GB/s exactly (each sample is x / 1e9).
  REQUIRE(c.fields.contains("cluster"));
  CHECK(parse_bandwidth(c.fields["cluster"]["gpu_cpu_bandwidth"].get<std::string>()) == doctest::Approx(1e9).epsilon(1e-6));
  // The p2p fit is refused: nothing of it written, one refusal naming the file, the fit, the samples.
  CHECK_FALSE(c.fields["cluster"].contains("network"));
  REQUIRE(c.refused.size() == 1);
  const std::string& r = c.refused.front();
  CHECK(r.rfind("m.json: p2p (between machines): ", 0) == 0);
  CHECK(r.find("determine only 1 of the 2") != std::string::npos);
  for (const char* origin : {"m.json: /samples/3", "m.json: /samples/4", "m.json: /samples/5"}) CHECK(r.find(origin) != std::string::npos);
  // ... and listed among what was not written.
  bool noted = false;
  for (const std::string& n : c.notes) noted = noted || n.rfind("p2p (between machines): refused", 0) == 0;
  CHECK(noted);
}

TEST_CASE("calibrate: when every fit that writes a field is refused, nothing is returned") {
  MeasurementSet m;
  m.sources = {"m.json"};
  add_one_size_p2p(m);
  try {
    (void)calibrate(m, {});
    FAIL("a calibration without any fit that held");
  } catch (const ModelError& e) {
    CHECK(e.message().find("every fit that writes a scenario field was refused") != std::string::npos);
    CHECK(e.message().find("m.json: p2p (between machines)") != std::string::npos);
    CHECK(e.message().find("m.json: /samples/5") != std::string::npos);
  }
}

TEST_CASE("calibrate: kernel classes without the profiled job's scenario are refused alone, the other fits written") {
  // Issue 40: kernel-class samples and no kernel model (no --scenario) used to refuse the whole
  // calibration before any fit; now the host-copy fit holds (1 GB/s exactly) and the kernel
  // classes are one refusal naming their file and the reason.
  MeasurementSet m;
  m.sources = {"m.json", "k.json"};
  add_exact_host_copies(m);
  m.class_samples = {{KernelClass::gemm, 0.1, "k.json: /ranks/0/steps/0/classes/gemm"}};
  const Calibration c = calibrate(m, {});
  CHECK(parse_bandwidth(c.fields["cluster"]["gpu_cpu_bandwidth"].get<std::string>()) == doctest::Approx(1e9).epsilon(1e-6));
  REQUIRE(c.refused.size() == 1);
  CHECK(c.refused.front().rfind("k.json: kernel classes (kernel model): ", 0) == 0);
  CHECK(c.refused.front().find("no base scenario was given") != std::string::npos);
}

TEST_CASE("calibrate: a kernel fit far faster than any efficiency allows names another job as the cause") {
  MeasurementSet m;
  m.sources = {"m.json", "k.json"};
  add_exact_host_copies(m);
  // The scenario's model predicts 0.1 s of GEMM per step at efficiency 0.8, so at most 1/0.8 =
  // 1.25x faster is physical; three steps measured 0.1 / 56.69 s each: 56.69x, beyond 2 x 1.25.
  CalibrationBase b;
  KernelModelBase k;
  k.seconds = {0.1, 0, 0, 0, 0, 0};
  k.gemm_efficiency = 0.8;
  k.memory_efficiency = 0.5;
  b.kernel_model = k;
  for (int i = 0; i < 3; ++i) m.class_samples.push_back({KernelClass::gemm, 0.1 / 56.69, "k.json: step " + std::to_string(i)});
  const Calibration c = calibrate(m, b);
  CHECK(c.fields["cluster"].contains("gpu_cpu_bandwidth"));
  CHECK_FALSE(c.fields["cluster"].contains("gpu_gemm_efficiency"));
  REQUIRE(c.refused.size() == 1);
  CHECK(c.refused.front().find("the kernel fit comes from another job than --scenario") != std::string::npos);
  CHECK(c.refused.front().find("56.69x faster") != std::string::npos);
  CHECK(c.refused.front().find("allows 1.25x") != std::string::npos);
  // The short reason in the notes is the cause, not the rate arithmetic.
  bool noted = false;
  for (const std::string& n : c.notes) noted = noted || n.find("GEMM (kernel model): refused, its fields not written (the kernel fit comes from another job") == 0;
  CHECK(noted);
}

TEST_CASE("calibrate: --skip leaves a kind out, so the fit it would have refused is not tried") {
  MeasurementSet m;
  m.sources = {"m.json"};
  add_exact_host_copies(m);
  add_one_size_p2p(m);
  m.class_samples = {{KernelClass::gemm, 0.1, "m.json: g"}, {KernelClass::layer_norm, 0.1, "m.json: l"}};
  CHECK(skip_kind(m, "p2p") == 3);
  CHECK(skip_kind(m, "gemm") == 1);
  REQUIRE(m.class_samples.size() == 1);
  CHECK(m.class_samples.front().cls == KernelClass::layer_norm);
  CHECK(skip_kind(m, "kernel-class") == 1);
  CHECK_THROWS_AS(skip_kind(m, "teleport"), ModelError);
  const Calibration c = calibrate(m, {});
  CHECK(c.refused.empty());
  CHECK(c.fields["cluster"].contains("gpu_cpu_bandwidth"));
}
