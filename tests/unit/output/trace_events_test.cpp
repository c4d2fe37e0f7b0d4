// TraceEvents (output/trace_events.hpp): a trace serialized event by event is the text
// nlohmann::json's own dump() gives for the whole document, so streaming changes no byte; and
// estimate_trace_work (output/iteration_report.hpp) bounds the trace it guards.
#include <doctest/doctest.h>

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "ckptsim/checkpoint/iteration_study.hpp"
#include "ckptsim/output/iteration_report.hpp"
#include "ckptsim/output/trace_events.hpp"
#include "../workload/paper_scenario.hpp"

using namespace ckptsim;

TEST_CASE("a trace written event by event is the dump of the whole document") {
  // The oracle is nlohmann::json itself: the same events in an array inside the document object.
  const nlohmann::json other = {{"source", "predicted"}, {"machines", 2}, {"manifest", {{"seed", 1}}}};
  TraceEvents events(other);
  auto array = nlohmann::json::array();
  const auto both = [&](const nlohmann::json& e) {
    events.add(e);
    array.push_back(e);
  };
  // add_trace_process writes the process name and one name per track (trace_events.hpp's
  // convention): the array gets the same events written out here.
  add_trace_process(events, 0, "machine 0");
  array.push_back({{"ph", "M"}, {"pid", 0}, {"name", "process_name"}, {"args", {{"name", "machine 0"}}}});
  for (int k = 0; k < kTraceTracks; ++k)
    array.push_back({{"ph", "M"}, {"pid", 0}, {"tid", k}, {"name", "thread_name"},
                     {"args", {{"name", trace_track_name(static_cast<TraceTrack>(k))}}}});
  both(trace_slice(0, TraceTrack::compute, "forward L0 QKV", "forward", 0.5, 0.75, {{"flops", 1.5e12}}));
  both(trace_slice(1, TraceTrack::chunks_sent, "chunk 3 (copy 0)", "checkpoint_send", 1.0, 1.25,
                   {{"bytes", 1 << 20}, {"peer", 1}, {"span", 2}, {"sub_buffer", 0}}));
  both({{"ph", "C"}, {"pid", 0}, {"name", "NIC send rate (B/s)"}, {"ts", 5e5}, {"args", {{"value", 1.25e10}}}});
  CHECK(events.size() == 1 + kTraceTracks + 3);
  nlohmann::json doc;
  doc["traceEvents"] = std::move(array);
  doc["displayTimeUnit"] = "ms";
  doc["otherData"] = other;
  CHECK(std::move(events).finish() == doc.dump());
}

TEST_CASE("a trace without events is still a valid document") {
  // {"traceEvents": []} with the other two keys, as nlohmann::json writes it.
  TraceEvents events(nlohmann::json::object());
  CHECK(events.size() == 0);
  const std::string text = std::move(events).finish();
  CHECK(text == R"({"displayTimeUnit":"ms","otherData":{},"traceEvents":[]})");
  CHECK(nlohmann::json::parse(text)["traceEvents"].empty());
}

TEST_CASE("the trace's size estimate bounds the trace written, in events and in bytes") {
  // The limit check (docs/limits.md) relies on estimate_trace_work erring large: the trace of
  // the paper's machines (4 of them, 12 layers) has at most estimate / kTraceEventBytes events
  // and at most the estimated bytes, for a scheduler with chunks in spans and one without.
  Scenario s = testing::paper_scenario(4);
  s.model.layers = 12;
  s.model.parameters = 0;  // from the shape
  const IterationStudy study = prepare_iteration_study(s);
  for (const SchedulerKind kind : {SchedulerKind::gemini, SchedulerKind::blocking}) {
    CAPTURE(name_of(kind));
    const SchedulerOutcome outcome = evaluate_scheduler(study, kind, true);
    for (const int shown : {1, 4}) {
      CAPTURE(shown);
      const WorkEstimate e = estimate_trace_work(outcome, shown);
      const std::string text = iteration_trace(study, std::string(name_of(kind)), outcome, shown, "test");
      const auto events = nlohmann::json::parse(text)["traceEvents"].size();
      CHECK(static_cast<double>(events) <= e.amount / kTraceEventBytes);
      CHECK(static_cast<double>(text.size()) <= e.amount);
      // Not vacuous: the estimate is within a small factor of the real size.
      CHECK(e.amount <= 4 * static_cast<double>(text.size()));
    }
  }
}
