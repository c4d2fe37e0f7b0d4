// Importing measured profiles (workload/profile.hpp, docs/profile-format.md).
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/workload/iteration_model.hpp"
#include "ckptsim/workload/profile.hpp"
#include "paper_scenario.hpp"

using namespace ckptsim;

TEST_CASE("a measured profile: per span, the part common to every iteration") {
  const auto doc = nlohmann::json::parse(R"({
    "format": "ckptsim-profile/1",
    "iterations": [
      {"iteration_time": 2.0, "spans": [[0.1, 0.3], [1.0, "200ms"]]},
      {"iteration_time": "2.2s", "spans": [[0.15, 0.3], [1.0, 0.25]]}
    ]})");
  const IterationProfile p = parse_profile(doc, "p.json", 3);
  // Mean iteration time (2.0 + 2.2) / 2 = 2.1 s.
  CHECK(p.iteration_time == seconds(2.1));
  REQUIRE(p.machine_spans.size() == 3);
  const auto& s = p.machine_spans[2];
  REQUIRE(s.size() == 2);
  // Span 0: [0.1, 0.4] and [0.15, 0.45] -> [0.15, 0.4]: start 0.15 s, 0.25 s long.
  CHECK(s[0].start == seconds(0.15));
  CHECK(s[0].length == seconds(0.25));
  // Span 1: [1.0, 1.2] and [1.0, 1.25] -> 0.2 s.
  CHECK(s[1].length == seconds(0.2));
  CHECK(p.idle_time(0) == seconds(0.45));
}

TEST_CASE("a bad profile reports every problem with its JSON pointer") {
  const auto doc = nlohmann::json::parse(R"({
    "iterations": [
      {"iteration_time": -1, "spans": [[0.1, 0.3]]},
      {"iteration_time": 1, "spans": [[0.1], [0.5, 0.1]], "extra": 1}
    ]})");
  try {
    parse_profile(doc, "bad.json", 1);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    std::vector<std::string> pointers;
    for (const auto& p : e.problems()) pointers.push_back(p.pointer);
    CHECK(std::find(pointers.begin(), pointers.end(), "/iterations/0/iteration_time") != pointers.end());
    CHECK(std::find(pointers.begin(), pointers.end(), "/iterations/1/spans/0") != pointers.end());
    CHECK(std::find(pointers.begin(), pointers.end(), "/iterations/1/extra") != pointers.end());
  }
}

TEST_CASE("a simulated profile written in the import format reads back the same spans") {
  Scenario sc = testing::paper_scenario(2);
  sc.model.layers = 5;
  const IterationModel m = simulate_iteration(sc);
  const IterationProfile back = parse_profile(profile_to_json(m.profile, 0, "test"), "round-trip", 2);
  const auto& a = m.profile.machine_spans[0];
  const auto& b = back.machine_spans[1];
  REQUIRE(a.size() == b.size());
  // Seconds as doubles: nanoseconds survive to within rounding (1 ns).
  for (std::size_t k = 0; k < a.size(); ++k) {
    CHECK(std::llabs(a[k].start.ns() - b[k].start.ns()) <= 1);
    CHECK(std::llabs(a[k].length.ns() - b[k].length.ns()) <= 2);
  }
  CHECK(std::llabs(back.iteration_time.ns() - m.profile.iteration_time.ns()) <= 1);
}

TEST_CASE("a profile file with a number beyond double is an InputError (fuzz finding)") {
  // nlohmann::json reports 1e400 with out_of_range, not parse_error: it escaped the reader as
  // an internal error. Now a problem at the value's pointer.
  const auto path = std::filesystem::temp_directory_path() / "ckptsim_profile_test_1e400.json";
  std::ofstream(path) << R"({"iterations": [{"iteration_time": 1e400, "spans": []}]})";
  try {
    (void)load_profile_file(path.string(), 1);
    FAIL("expected InputError");
  } catch (const InputError& e) {
    CHECK(e.problems().at(0).file == path.string());
    CHECK(e.problems().at(0).pointer == "/iterations/0/iteration_time");
  }
  std::filesystem::remove(path);
}

TEST_CASE("a profile of three 100-year iterations averages without overflow") {
  // 3 x 3.15576e18 ns = 9.47e18 ns > 2^63 - 1: the sum is kept in 128 bits; the mean is 100 years.
  const auto doc = nlohmann::json::parse(R"({
    "format": "ckptsim-profile/1",
    "iterations": [
      {"iteration_time": "36525d", "spans": [[0.1, 0.3]]},
      {"iteration_time": "36525d", "spans": [[0.1, 0.3]]},
      {"iteration_time": "36525d", "spans": [[0.1, 0.3]]}
    ]})");
  CHECK(parse_profile(doc, "p.json", 1).iteration_time.ns() == 3'155'760'000'000'000'000);
}

TEST_CASE("spans by machine: one shared list or one per machine, read the same way") {
  const std::vector<IdleSpan> a{{seconds(1), seconds(2), 3}};
  const std::vector<IdleSpan> b{{seconds(5), seconds(1), -1}, {seconds(7), seconds(1), -1}};
  // Shared: four machines, one stored list; every machine reads it.
  SpansByMachine shared(4, a);
  CHECK(shared.size() == 4);
  CHECK(shared.distinct().size() == 1);
  int seen = 0;
  for (const auto& spans : shared) {
    CHECK(spans.size() == 1);
    CHECK(spans[0].anchor == 3);
    ++seen;
  }
  CHECK(seen == 4);
  CHECK_THROWS_AS((void)shared.at(4), std::out_of_range);
  // One edit of the shared list changes every machine's spans.
  shared.for_each_list([](std::vector<IdleSpan>& s) { s.push_back({seconds(9), seconds(1), -1}); });
  CHECK(shared[3].size() == 2);
  CHECK(shared[0].size() == 2);
  // Growing: the new machines get the given list, the old ones keep theirs.
  shared.resize(6, b);
  CHECK(shared.size() == 6);
  CHECK(shared[3].size() == 2);
  CHECK(shared[3][0].start == seconds(1));
  CHECK(shared[4][0].start == seconds(5));
  CHECK(shared.at(5)[1].start == seconds(7));
  shared.resize(2, b);
  CHECK(shared.size() == 2);
  // Shrunk back to the first list's machines: the grown machines' list is gone, so common spans
  // and edits see only the list machines 0 and 1 read.
  CHECK(shared.distinct().size() == 1);
  CHECK(shared[1][0].start == seconds(1));
  // Per machine, kept as given.
  const SpansByMachine own(std::vector<std::vector<IdleSpan>>{a, b, {}});
  CHECK(own.size() == 3);
  CHECK(own[1].size() == 2);
  CHECK(own[2].empty());
}

TEST_CASE("common spans: a list shared by many machines counts as one machine with that list") {
  // Machine lists [1, 3) and [2, 5): the common span runs from the later start, 2 s, to the
  // earlier end, 3 s: 1 s long (hand-worked); 100 machines holding the first list change nothing.
  IterationProfile p;
  std::vector<std::vector<IdleSpan>> lists(101, std::vector<IdleSpan>{{seconds(1), seconds(2), -1}});
  lists[100] = {{seconds(2), seconds(3), -1}};
  p.machine_spans = SpansByMachine(std::move(lists));
  const auto common = p.common_spans();
  REQUIRE(common.size() == 1);
  CHECK(common[0].start == seconds(2));
  CHECK(common[0].length == seconds(1));
}
