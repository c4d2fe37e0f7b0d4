// Trace synthesis and trace statistics (trace_tools.hpp).
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/random/weibull_distribution.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/random.hpp"
#include "ckptsim/failure/trace_tools.hpp"
#include "ckptsim/scenario/cause_presets.hpp"

using namespace ckptsim;

namespace {

/// Synthesizes, writes and reads back a trace (the round trip through the file is part of what
/// is tested).
std::vector<TraceRecord> round_trip(const TraceSynthesisSpec& spec, int machines, SimTime duration,
                                    std::uint64_t seed, const std::string& name) {
  const auto records = synthesize_trace(spec.failures, machines, duration, seed);
  const auto path = (std::filesystem::temp_directory_path() / name).string();
  {
    std::ofstream out(path);
    write_trace_csv(out, records, spec.provenance, machines, duration, seed);
  }
  const TraceHeader header = read_trace_header(path);
  CHECK(header.machines == machines);
  CHECK(header.duration == duration);
  return load_failure_trace(path, machines);
}

// Two-sided normal quantile for a false-alarm rate of 1e-3.
constexpr double kZ = 3.2905;

}  // namespace

TEST_CASE("trace synth llama3-405b reproduces the published rate and cause shares (false-alarm rate 1e-3 each)") {
  // Count: Poisson with mean 419 / (2048 x 54 d) x machines x days; |n - mean| <= 3.29 sqrt(mean)
  // fails with probability 1e-3 under a correct synthesizer. Shares: Pearson chi-square over the
  // 18 causes against the published counts / 419, 17 degrees of freedom, critical value at 1e-3.
  const auto spec = parse_trace_spec("llama3-405b");
  const int machines = 2048;
  const SimTime duration = days(540);  // ten reports' worth: mean 4190 failures
  const auto records = round_trip(spec, machines, duration, 3, "ckptsim-llama3-synth.csv");
  const double mean = 419.0 / (2048.0 * 54.0) * machines * 540.0;
  const double n = static_cast<double>(records.size());
  CAPTURE(n);
  CHECK(std::fabs(n - mean) <= kZ * std::sqrt(mean));

  const CausePreset* llama = find_cause_preset("llama3-405b");
  std::map<std::string, double> counts;
  for (const auto& r : records) counts[r.cause] += 1;
  double chi2 = 0;
  for (const auto& c : llama->causes) {
    const double expected = n * c.share / 419.0;
    chi2 += (counts[c.name] - expected) * (counts[c.name] - expected) / expected;
  }
  CAPTURE(chi2);
  const double critical =
      boost::math::quantile(boost::math::complement(boost::math::chi_squared(17), 1e-3));
  CHECK(chi2 < critical);

  const TraceStats st = trace_stats(records, machines, duration);
  CHECK(st.rate_per_machine_day == doctest::Approx(n / (machines * 540.0)));
  CHECK(st.hardware + st.software == st.failures);
}

TEST_CASE("trace synth lanl-weibull: the fit recovers the Weibull shape and rejects the exponential") {
  // 2000 machines x 200 d at a long-run rate of 1.5%/day: ~6000 lifetimes. The MLE of the shape
  // has a standard deviation of about 0.78 k / sqrt(r) ~ 0.007 (Weibull Fisher information);
  // 0.03 is over 4 sd.
  const auto spec = parse_trace_spec("lanl-weibull");
  const auto records = round_trip(spec, 2000, days(200), 5, "ckptsim-lanl-synth.csv");
  const TraceStats st = trace_stats(records, 2000, days(200));
  REQUIRE(st.fit);
  CHECK(st.fit->weibull_shape == doctest::Approx(0.7).epsilon(0.03 / 0.7));
  CHECK(st.fit->weibull_scale_s == doctest::Approx(spec.failures.weibull_scale.seconds()).epsilon(0.1));
  CHECK(st.fit->p_value < 1e-6);
}

TEST_CASE("trace synth opt-175b: rate ~2 machines per day on 124 machines; exponential not rejected") {
  // 124 machines x 2000 d: mean 4000 failures. The likelihood-ratio test of a true exponential
  // rejects at p < 1e-3 with probability 1e-3.
  const auto spec = parse_trace_spec("opt-175b");
  const auto records = round_trip(spec, 124, days(2000), 9, "ckptsim-opt-synth.csv");
  const double mean = 2.0 * 2000.0;
  CHECK(std::fabs(static_cast<double>(records.size()) - mean) <= kZ * std::sqrt(mean));
  const TraceStats st = trace_stats(records, 124, days(2000));
  REQUIRE(st.fit);
  CHECK(st.fit->p_value > 1e-3);
  CHECK(st.fit->exponential_rate * 86400.0 == doctest::Approx(2.0 / 124.0).epsilon(kZ / std::sqrt(mean)));
}

TEST_CASE("lifetime fit: the exponential MLE is r / total time; Weibull on complete samples") {
  // Exponential: 3 failures, lifetimes 1, 2, 3 s and one censored 4 s: rate = 3 / 10.
  const LifetimeFit small = fit_lifetimes({1, 2, 3, 4}, {true, true, true, false});
  CHECK(small.exponential_rate == doctest::Approx(0.3));
  CHECK(small.exponential_log_likelihood == doctest::Approx(3 * std::log(0.3) - 3));
  // Weibull(k = 2.5, scale 100 s), 20,000 complete lifetimes: the shape within 4 sd
  // (sd ~ 0.78 x 2.5 / sqrt(20000) = 0.014).
  RandomEngine engine = make_stream(1, 0, RandomComponent::analysis);
  boost::random::weibull_distribution<double> w(2.5, 100.0);
  std::vector<double> t;
  for (int i = 0; i < 20000; ++i) t.push_back(w(engine));
  const LifetimeFit fit = fit_lifetimes(t, std::vector<bool>(t.size(), true));
  CHECK(fit.weibull_shape == doctest::Approx(2.5).epsilon(0.056 / 2.5));
  CHECK(fit.weibull_scale_s == doctest::Approx(100.0).epsilon(0.02));
  // The Weibull likelihood is never below the exponential's (k = 1 is one of its models).
  CHECK(fit.weibull_log_likelihood >= fit.exponential_log_likelihood);
}

TEST_CASE("trace spec: presets, overrides and bad specs") {
  CHECK(parse_trace_spec("exponential:rate=2%/machine/day").failures.rate == doctest::Approx(0.02 / 86400));
  const auto w = parse_trace_spec("weibull:shape=0.5,rate=1%/machine/day");
  // Long-run rate kept: scale x Gamma(1 + 1/k) = 1 / rate = 100 days.
  CHECK(w.failures.weibull_scale.seconds() * std::tgamma(3.0) == doctest::Approx(100.0 * 86400).epsilon(1e-9));
  CHECK(parse_trace_spec("opt-175b:causes=llama3-405b").failures.causes.causes.size() == 18);
  CHECK_THROWS_AS(parse_trace_spec("llama4"), InputError);
  CHECK_THROWS_AS(parse_trace_spec("exponential:colour=red"), InputError);
  CHECK_THROWS_AS(parse_trace_spec("exponential:rate=fast"), InputError);
  CHECK_THROWS_AS(parse_trace_spec("weibull:shape=-1"), InputError);
}

TEST_CASE("trace stats: repeated machines, events and causes") {
  // Machines 0 (3 failures), 1 (1), 2 (2); a 2-machine domain failure at 50 s is one event.
  const std::vector<TraceRecord> r{{seconds(10), 0, FailureType::hardware, "gpu"},
                                   {seconds(20), 2, FailureType::software, "bug"},
                                   {seconds(50), 0, FailureType::hardware, "rack"},
                                   {seconds(50), 1, FailureType::hardware, "rack"},
                                   {seconds(70), 0, FailureType::software, "bug"},
                                   {seconds(90), 2, FailureType::hardware, "gpu"}};
  const TraceStats st = trace_stats(r, 4, seconds(100));
  CHECK(st.failures == 6);
  CHECK(st.events == 5);
  CHECK(st.machines_failed == 3);
  CHECK(st.machines_repeated == 2);
  CHECK(st.most_failures == 3);
  CHECK(st.hardware == 4);
  CHECK(st.causes.at("rack") == 2);
  // 6 failures / (4 machines x 100 s / 86400 s per day).
  CHECK(st.rate_per_machine_day == doctest::Approx(6.0 / (4 * 100.0 / 86400.0)));
  // Exponential MLE: 6 failures over 4 machines x 100 s of observation = 400 s.
  REQUIRE(st.fit);
  CHECK(st.fit->exponential_rate == doctest::Approx(6.0 / 400.0));
}

TEST_CASE("trace header lines hold exactly their value, or are refused at their line") {
  const auto header_of = [](const std::string& text) { return parse_trace_header(text, "t.csv"); };
  const TraceHeader h = header_of("# from somewhere\n# machines: 16\n# duration: 3600s\ntime,machine,type\n");
  CHECK(h.machines == 16);
  CHECK(h.duration == seconds(3600));
  // "-5", "1e3" and "4abc" were read as -5, 1 and 4: now each is a problem at its line.
  for (const char* value : {"-5", "1e3", "4abc", "0", "1000001", ""}) {
    CAPTURE(value);
    try {
      (void)header_of(std::string("# seed: 1\n# machines: ") + value + "\ntime,machine,type\n");
      FAIL("no error");
    } catch (const InputError& e) {
      CHECK(e.problems().front().pointer == "/line/2");
    }
  }
  CHECK_THROWS_AS(header_of("# duration: soon\ntime,machine,type\n"), InputError);
  CHECK_THROWS_AS(header_of("# duration: 0s\ntime,machine,type\n"), InputError);
}

TEST_CASE("trace synth: a key given twice is refused; the header states the parameters in effect") {
  CHECK_THROWS_AS(parse_trace_spec("exponential:rate=1%/machine/day,rate=2%/machine/day"), InputError);
  // The default of a process given by name: 1.5% per machine-day, hardware fraction 0.5.
  const TraceSynthesisSpec spec = parse_trace_spec("exponential");
  CHECK(spec.provenance.back() == "In effect: exponential (Poisson) failures, rate 0.015 per machine-day, hardware fraction 0.5.");
  const TraceSynthesisSpec given = parse_trace_spec("exponential:rate=3%/machine/day,hardware=0.25");
  CHECK(given.provenance.back() == "In effect: exponential (Poisson) failures, rate 0.03 per machine-day, hardware fraction 0.25.");
}
