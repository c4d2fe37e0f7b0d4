// The iteration study on a measured profile (checkpoint/iteration_study.hpp, workload/profile.hpp):
// the part of a checkpoint left after the last measured span delays the iteration unless the
// profile states that time idle; a measured iteration time far from the model's is named; a
// megatron layout takes a profile and writes one that reads back to the same spans.
#include <doctest/doctest.h>

#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "ckptsim/workload/profile.hpp"
#include "../common/scenario_documents.hpp"

using namespace ckptsim;
using nlohmann::json;

namespace {

/// Two p4d-like machines training a 2-layer toy under ZeRO-3; alpha = 0, so a chunk of s bytes
/// costs exactly ceil(s / B) ns and the leftover's NIC time is its bytes over B.
Scenario toy() {
  const json doc = json::parse(R"({
    "cluster": {"instance": "p4d.24xlarge", "machines": 2, "network": {"latency": "0s"}},
    "storage": {"bandwidth": "20GB/s"},
    "training": {"serialization_bandwidth": "2GB/s"},
    "model": {"layers": 2, "hidden": 1024, "ffn": 4096, "heads": 16, "vocabulary": 32000},
    "strategy": {"kind": "gemini", "replicas": 2, "placement": "group"},
    "failures": {"process": "none"},
    "run": {"duration": "1d"}
  })");
  return load_scenario_json(doc, "toy.json", ".");
}

/// One measured iteration of `seconds` with one idle span [0, span_s).
IterationProfile one_span_profile(double seconds, double span_s, bool idle_after, int machines) {
  json doc = {{"iterations", json::array({{{"iteration_time", seconds}, {"spans", json::array({json::array({0.0, span_s})})}}})}};
  if (idle_after) doc["idle_after_last_span"] = true;
  return parse_profile(doc, "measured.json", machines);
}

}  // namespace

TEST_CASE("measured profile: idle_after_last_span makes the time after the last span one more span") {
  const json doc = json::parse(R"({"idle_after_last_span": true,
    "iterations": [{"iteration_time": 1.0, "spans": [[0.1, 0.2]]}]})");
  const IterationProfile p = parse_profile(doc, "p.json", 1);
  // Spans [0.1, 0.3) as measured and [0.3, 1.0) after it: 0.2 + 0.7 = 0.9 s idle.
  REQUIRE(p.machine_spans[0].size() == 2);
  CHECK(p.machine_spans[0][1].start == seconds(0.3));
  CHECK(p.machine_spans[0][1].length == seconds(0.7));
  CHECK(p.idle_after_last_span);
  // Not a boolean: refused at its pointer.
  const json bad = json::parse(R"({"idle_after_last_span": "yes", "iterations": [{"iteration_time": 1, "spans": []}]})");
  try {
    parse_profile(bad, "bad.json", 1);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    REQUIRE(!e.problems().empty());
    CHECK(e.problems().front().pointer == "/idle_after_last_span");
  }
}

TEST_CASE("measured profile: the leftover after the last span delays the iteration by its NIC time") {
  const Scenario s = toy();
  // One 1 ms span at the start of a 100 s iteration: the checkpoint (m - 1 = 1 copy of C bytes
  // per GPU at B bytes/s, C / B a fraction of a second to seconds) is mostly left after the span.
  const IterationStudy probe = prepare_iteration_study(s, one_span_profile(100.0, 0.001, false, 2));
  const double need = probe.input.copies * probe.input.shard_bytes / probe.input.bandwidth;  // seconds of NIC time
  REQUIRE(need > 0.01);
  REQUIRE(need < 50.0);
  const SchedulerOutcome busy = evaluate_scheduler(probe, SchedulerKind::gemini);
  // Before the rule, the leftover ran in [1 ms, 1 ms + need) "on an idle network", inside the
  // 100 s iteration: no delay. Now the time after the last span is busy, so the iteration
  // lengthens by the leftover's NIC time: need minus at most the 1 ms the span carried, plus at
  // most 1 ns of rounding per chunk (alpha = 0).
  const double delay = (busy.iteration_time_with_checkpoint - probe.training_iteration).seconds();
  CHECK(delay >= need - 0.001 - 1e-6);
  CHECK(delay <= need + 1e-3);
  CHECK_FALSE(busy.fits_in_one_iteration);
  // The same profile stating the network idle after its span: [1 ms, 100 s) is a span, the whole
  // checkpoint fits in it (need < 50 s), and the iteration is not delayed.
  const IterationStudy idle = prepare_iteration_study(s, one_span_profile(100.0, 0.001, true, 2));
  const SchedulerOutcome free = evaluate_scheduler(idle, SchedulerKind::gemini);
  CHECK(free.iteration_time_with_checkpoint == idle.training_iteration);
  CHECK(free.fits_in_one_iteration);
}

TEST_CASE("measured profile: an iteration time more than 10% from the model's is named with both times") {
  const Scenario s = toy();
  const IterationStudy model = prepare_iteration_study(s);
  const double t = model.training_iteration.seconds();
  // 5% longer than the model: within the 10% tolerance, no warning.
  const IterationStudy near = prepare_iteration_study(s, one_span_profile(1.05 * t, 0.1 * t, false, 2));
  CHECK(near.modelled_iteration == model.training_iteration);
  CHECK(profile_time_warnings(near).empty());
  // 4x shorter (-75%): one warning giving the measured and the modelled time.
  const IterationStudy far = prepare_iteration_study(s, one_span_profile(0.25 * t, 0.1 * t, false, 2));
  const auto warnings = profile_time_warnings(far);
  REQUIRE(warnings.size() == 1);
  CHECK(warnings[0].find("-75%") != std::string::npos);
  CHECK(warnings[0].find(fmt::format("{:.4g} s", t)) != std::string::npos);
  // No profile: nothing to compare.
  CHECK(profile_time_warnings(model).empty());
}

TEST_CASE("measured profile: a megatron layout takes the spans it writes") {
  const json doc = test::megatron_single_stage_document();
  const Scenario s = load_scenario_json(doc, "megatron.json", ".");
  const IterationStudy model = prepare_iteration_study(s);
  IterationProfile shared = model.model.profile;
  shared.machine_spans.assign(1, model.input.spans);
  const IterationStudy back = prepare_iteration_study(s, parse_profile(profile_to_json(shared, 0, "test"), "round-trip", 2));
  // The spans the model's one plan uses come back (seconds as doubles: within 2 ns), with the
  // same iteration time, so the schedulers plan in the same idle time.
  REQUIRE(back.input.spans.size() == model.input.spans.size());
  for (std::size_t k = 0; k < back.input.spans.size(); ++k) {
    CHECK(std::llabs(back.input.spans[k].start.ns() - model.input.spans[k].start.ns()) <= 2);
    CHECK(std::llabs(back.input.spans[k].length.ns() - model.input.spans[k].length.ns()) <= 2);
  }
  CHECK(std::llabs(back.training_iteration.ns() - model.training_iteration.ns()) <= 1);
  CHECK(profile_time_warnings(back).empty());
}
