#include "ckptsim/workload/profile.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

SimTime total_length(const std::vector<IdleSpan>& spans) {
  SimTime total;
  for (const IdleSpan& s : spans) total += s.length;
  return total;
}

SpansByMachine::SpansByMachine(std::vector<std::vector<IdleSpan>> per_machine) : lists_(std::move(per_machine)) {
  list_of_.resize(lists_.size());
  for (std::size_t m = 0; m < list_of_.size(); ++m) list_of_[m] = m;
}

void SpansByMachine::assign(int machines, std::vector<IdleSpan> spans) {
  lists_.assign(1, std::move(spans));
  list_of_.assign(static_cast<std::size_t>(std::max(0, machines)), 0);
}

void SpansByMachine::resize(int machines, const std::vector<IdleSpan>& spans) {
  const auto n = static_cast<std::size_t>(std::max(0, machines));
  if (n > list_of_.size()) {
    lists_.push_back(spans);
    list_of_.resize(n, lists_.size() - 1);
  } else {
    list_of_.resize(n);
    // Keep only the lists some remaining machine reads, so that distinct() (common_spans) and
    // for_each_list never see a list no machine has.
    std::vector<std::size_t> renumber(lists_.size(), lists_.size());
    std::vector<std::vector<IdleSpan>> kept;
    for (std::size_t& list : list_of_) {
      if (renumber[list] == lists_.size()) {
        renumber[list] = kept.size();
        kept.push_back(std::move(lists_[list]));
      }
      list = renumber[list];
    }
    lists_ = std::move(kept);
  }
}

const std::vector<IdleSpan>& SpansByMachine::at(std::size_t machine) const {
  if (machine >= list_of_.size()) throw std::out_of_range("SpansByMachine::at: no such machine");
  return (*this)[machine];
}

SimTime IterationProfile::idle_time(int machine) const { return total_length(machine_spans.at(static_cast<std::size_t>(machine))); }

std::vector<IdleSpan> IterationProfile::common_spans() const {
  if (machine_spans.empty()) return {};
  // Over the distinct lists: the latest start and earliest end per span index are the same
  // whether a list shared by several machines is read once or once per machine.
  const auto& lists = machine_spans.distinct();
  std::vector<IdleSpan> out = machine_spans.front();
  for (const auto& spans : lists) {
    if (spans.size() != out.size()) return machine_spans.front();
  }
  for (const auto& spans : lists) {
    for (std::size_t k = 0; k < out.size(); ++k) {
      const SimTime end = std::min(out[k].start + out[k].length, spans[k].start + spans[k].length);
      out[k].start = std::max(out[k].start, spans[k].start);
      out[k].length = std::max(SimTime::zero(), end - out[k].start);
    }
  }
  return out;
}

SimTime IterationProfile::silent_time(int machine) const {
  if (silent_spans.empty()) return SimTime::zero();
  return total_length(silent_spans.at(static_cast<std::size_t>(machine)));
}

SpansByMachine machine_idle_spans(const TaskGraph& graph, const Topology& topology, std::vector<BusyInterval> busy,
                                  SimTime iteration_time) {
  const int machines = topology.machines();
  // Intervals touching every machine (the usual case: collectives span all of them) are kept
  // once; the others per machine.
  std::vector<BusyInterval> everywhere;
  std::vector<std::vector<BusyInterval>> per_machine(static_cast<std::size_t>(machines));
  // The machines an interval touches, each once: a mark per machine, cleared after each
  // interval through the list of those it set (an interval of a small group then costs its own
  // NICs, not one pass over every machine).
  std::vector<char> marked(static_cast<std::size_t>(machines));
  std::vector<int> touched;
  for (const BusyInterval& b : busy) {
    const Task& t = graph.task(b.uses_task);
    if (t.uses < 0) continue;
    touched.clear();
    for (const ResourceUse& u : graph.uses(t.uses)) {
      const int m = topology.machine_of_nic(u.resource);
      if (m >= 0 && !marked[static_cast<std::size_t>(m)]) {
        marked[static_cast<std::size_t>(m)] = 1;
        touched.push_back(m);
      }
    }
    if (static_cast<int>(touched.size()) == machines) {
      everywhere.push_back(b);
    } else {
      for (int m : touched) per_machine[static_cast<std::size_t>(m)].push_back(b);
    }
    for (int m : touched) marked[static_cast<std::size_t>(m)] = 0;
  }
  auto spans_of = [&](std::vector<BusyInterval> list) {
    std::sort(list.begin(), list.end(), [](const BusyInterval& a, const BusyInterval& b) {
      return a.from != b.from ? a.from < b.from : a.task < b.task;
    });
    std::vector<IdleSpan> spans;
    SimTime cursor = SimTime::zero();
    int anchor = -1;
    for (const BusyInterval& b : list) {
      if (b.from > cursor) spans.push_back({cursor, b.from - cursor, anchor});
      if (b.to >= cursor) {
        cursor = b.to;
        anchor = b.task;
      }
    }
    if (iteration_time > cursor) spans.push_back({cursor, iteration_time - cursor, anchor});
    return spans;
  };
  const bool symmetric = std::all_of(per_machine.begin(), per_machine.end(), [](const auto& v) { return v.empty(); });
  if (symmetric) return SpansByMachine(machines, spans_of(everywhere));
  std::vector<std::vector<IdleSpan>> out(static_cast<std::size_t>(machines));
  for (int m = 0; m < machines; ++m) {
    std::vector<BusyInterval> list = everywhere;
    list.insert(list.end(), per_machine[static_cast<std::size_t>(m)].begin(), per_machine[static_cast<std::size_t>(m)].end());
    out[static_cast<std::size_t>(m)] = spans_of(std::move(list));
  }
  return SpansByMachine(std::move(out));
}

namespace {

// A duration: a number of seconds or a unit string ("12ms").
bool read_duration(const nlohmann::json& v, SimTime& out) {
  if (v.is_number()) {
    if (v.get<double>() < 0) return false;
    out = seconds(v.get<double>());
    return true;
  }
  if (v.is_string()) {
    try {
      out = parse_duration(v.get<std::string>());
      return out >= SimTime::zero();
    } catch (const UnitError&) {
      return false;
    }
  }
  return false;
}

std::string brief(const nlohmann::json& v) {
  std::string s = v.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

}  // namespace

IterationProfile parse_profile(const nlohmann::json& doc, const std::string& file, int machines) {
  ProblemList problems(file);
  const std::string kDuration = "a duration (seconds as a number, or a string such as \"12ms\")";
  if (!doc.is_object()) {
    problems.add("", "an object with \"iterations\"", brief(doc));
    problems.throw_if_any();
  }
  for (const auto& [key, value] : doc.items()) {
    if (key != "format" && key != "iterations" && key != "source" && key != "idle_after_last_span")
      problems.add("/" + key, "one of the keys format, source, idle_after_last_span, iterations", key);
  }
  if (doc.contains("idle_after_last_span") && !doc["idle_after_last_span"].is_boolean()) {
    problems.add("/idle_after_last_span", "true or false (the network is idle from the last span to the iteration's end)",
                 brief(doc["idle_after_last_span"]));
    problems.throw_if_any();
  }
  if (doc.contains("format") && doc["format"] != "ckptsim-profile/1") {
    problems.add("/format", "\"ckptsim-profile/1\"", brief(doc["format"]));
  }
  if (!doc.contains("iterations") || !doc["iterations"].is_array() || doc["iterations"].empty()) {
    problems.add("/iterations", "a non-empty array of iterations", doc.contains("iterations") ? brief(doc["iterations"]) : "nothing");
    problems.throw_if_any();
  }
  const auto& iterations = doc["iterations"];
  std::vector<SimTime> times;
  std::vector<std::vector<IdleSpan>> lists;
  for (std::size_t i = 0; i < iterations.size(); ++i) {
    const std::string at = "/iterations/" + std::to_string(i);
    const auto& it = iterations[i];
    if (!it.is_object()) {
      problems.add(at, "an object with \"iteration_time\" and \"spans\"", brief(it));
      continue;
    }
    for (const auto& [key, value] : it.items()) {
      if (key != "iteration_time" && key != "spans") problems.add(at + "/" + key, "one of the keys iteration_time, spans", key);
    }
    SimTime t;
    if (!it.contains("iteration_time") || !read_duration(it["iteration_time"], t) || t <= SimTime::zero()) {
      problems.add(at + "/iteration_time", "a duration greater than zero (seconds as a number, or a string such as \"12ms\")",
                   it.contains("iteration_time") ? brief(it["iteration_time"]) : "nothing");
    }
    times.push_back(t);
    std::vector<IdleSpan> spans;
    if (!it.contains("spans") || !it["spans"].is_array()) {
      problems.add(at + "/spans", "an array of [start, length] pairs", it.contains("spans") ? brief(it["spans"]) : "nothing");
    } else {
      SimTime previous_end;
      for (std::size_t k = 0; k < it["spans"].size(); ++k) {
        const auto& s = it["spans"][k];
        const std::string sp = at + "/spans/" + std::to_string(k);
        IdleSpan span;
        if (!s.is_array() || s.size() != 2 || !read_duration(s[0], span.start) || !read_duration(s[1], span.length)) {
          problems.add(sp, "[start, length], each " + kDuration, brief(s));
          continue;
        }
        if (span.start < previous_end) problems.add(sp, "spans in time order, not overlapping", brief(s));
        if (span.start + span.length > t && t > SimTime::zero()) problems.add(sp, "a span inside the iteration", brief(s));
        previous_end = span.start + span.length;
        spans.push_back(span);
      }
      // The profile states the network idle after its last span: that time is one more span.
      if (doc.value("idle_after_last_span", false) == true && t > previous_end) spans.push_back({previous_end, t - previous_end});
    }
    lists.push_back(std::move(spans));
  }
  for (std::size_t i = 1; i < lists.size(); ++i) {
    if (lists[i].size() != lists[0].size()) {
      problems.add("/iterations/" + std::to_string(i) + "/spans",
                   std::to_string(lists[0].size()) + " spans, as in the first iteration", std::to_string(lists[i].size()) + " spans");
    }
  }
  problems.throw_if_any();
  IterationProfile p;
  p.imported = true;
  p.idle_after_last_span = doc.value("idle_after_last_span", false);
  WideNs sum = 0;  // the mean of times of up to 100 years each: their sum may pass 2^63 ns
  for (SimTime t : times) sum += t.ns();
  p.iteration_time = SimTime::from_ns(static_cast<std::int64_t>(sum / static_cast<WideNs>(times.size())));
  std::vector<IdleSpan> spans = lists[0];
  for (const auto& list : lists) {
    for (std::size_t k = 0; k < spans.size(); ++k) {
      const SimTime end = std::min(spans[k].start + spans[k].length, list[k].start + list[k].length);
      spans[k].start = std::max(spans[k].start, list[k].start);
      spans[k].length = std::max(SimTime::zero(), end - spans[k].start);
    }
  }
  p.machine_spans.assign(std::max(1, machines), spans);
  return p;
}

IterationProfile load_profile_file(const std::string& path, int machines) {
  return parse_profile(read_json_file(path, "a profile file"), path, machines);
}

nlohmann::json profile_to_json(const IterationProfile& profile, int machine, const std::string& source) {
  auto spans = nlohmann::json::array();
  for (const IdleSpan& s : profile.machine_spans.at(static_cast<std::size_t>(machine))) {
    spans.push_back(nlohmann::json::array({s.start.seconds(), s.length.seconds()}));
  }
  nlohmann::json doc;
  doc["format"] = "ckptsim-profile/1";
  doc["source"] = source;
  doc["iterations"] = nlohmann::json::array({{{"iteration_time", profile.iteration_time.seconds()}, {"spans", std::move(spans)}}});
  return doc;
}

}  // namespace ckptsim
