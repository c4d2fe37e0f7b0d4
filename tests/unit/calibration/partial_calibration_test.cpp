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
