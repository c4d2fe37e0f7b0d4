// GEMINI's comm_gap.txt as an idle-span profile (calibration/gemini_gaps.hpp): a small file
// written here, and the artifact's published BERT profile (tests/fixtures/gemini/).
#include <string>

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/gemini_gaps.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/workload/profile.hpp"

using namespace ckptsim;

namespace {

Problem gemini_problem(const std::string& text, const GeminiGapsOptions& o = {std::nullopt, 1.0, 0}) {
  try {
    (void)gemini_gaps_spans(parse_gemini_gaps(text, "g.txt"), o);
  } catch (const InputError& e) {
    REQUIRE(e.problems().size() == 1);
    return e.problems().front();
  }
  FAIL("the file was imported");
  return {};
}

}  // namespace

TEST_CASE("gemini-gaps: per-position minimum, laid out evenly in the given iteration") {
  // Two lines, four values each (the "-" is GEMINI's separator, not a value):
  //   minimum per position: 1.0, 0.0, 0, 2.0 ms; T = 10 ms; idle 3 ms; b = (10 - 3) / 5 = 1.4 ms
  //   span 0 at 1.4 ms for 1 ms; spans 1 and 2 last 0 (left out; the layout still counts them:
  //   starts 3.8 and 5.2 ms); span 3 at 1.4 x 4 + 1 = 6.6 ms for 2 ms, ending 1.4 ms before T.
  const GeminiGaps g = parse_gemini_gaps("8.7 0.0 - 0 2.0 \n1.0 3.0 - 5 4.0\n\n", "g.txt");
  REQUIRE(g.lines.size() == 2);
  CHECK(g.lines[0].separator == 2);
  const GeminiGapsProfile p = gemini_gaps_spans(g, {std::nullopt, 10e-3, 0});
  CHECK(p.values_per_line == 4);
  CHECK(p.busy_between_s == doctest::Approx(1.4e-3));
  REQUIRE(p.spans.size() == 2);
  CHECK(p.spans[0].first == doctest::Approx(1.4e-3));
  CHECK(p.spans[0].second == doctest::Approx(1e-3));
  CHECK(p.spans[1].first == doctest::Approx(6.6e-3));
  CHECK(p.spans[1].second == doctest::Approx(2e-3));
  // --min-span 1.5ms keeps the 2 ms span only; --lines 2:2 takes the second line's values.
  CHECK(gemini_gaps_spans(g, {std::nullopt, 10e-3, 1.5e-3}).spans.size() == 1);
  const GeminiGapsProfile second = gemini_gaps_spans(g, {std::make_pair(std::size_t{2}, std::size_t{2}), 20e-3, 0});
  CHECK(second.lengths_s[1] == doctest::Approx(3e-3));
  // The document loads as a --profile.
  const IterationProfile loaded = parse_profile(gemini_gaps_profile(p, 10e-3, "t"), "p.json", 1);
  CHECK(loaded.iteration_time.seconds() == doctest::Approx(10e-3));
  CHECK(loaded.machine_spans.front().size() == 2);
}

TEST_CASE("gemini-gaps: bad files are refused with the line and value") {
  CHECK(gemini_problem("1.0 x 2.0\n").pointer == "line 1, value 2");
  CHECK(gemini_problem("1.0 -2.0\n").found == "\"-2.0\"");
  CHECK(gemini_problem("1.0 - 2.0 - 3\n").expected.find("one \"-\" per line") == 0);
  CHECK(gemini_problem("1.0 nan\n").pointer == "line 1, value 2");
  CHECK(gemini_problem("\n \n").found == "no values");
  CHECK(gemini_problem("1 2\n1 2 3\n").found == "line 1: 2, line 2: 3");
  // 600 ms of gaps do not fit an iteration of 0.5 s.
  CHECK(gemini_problem("100 500\n", {std::nullopt, 0.5, 0}).expected.find("fit in the iteration") != std::string::npos);
  CHECK(gemini_problem("1 2\n", {std::make_pair(std::size_t{3}, std::size_t{4}), 1.0, 0}).found == "none among lines 3..4");
}

TEST_CASE("gemini-gaps: the artifact's BERT profile (examples/BERT/snapshot_strategy/comm_gap.txt)") {
  const std::string file = CKPTSIM_SOURCE_ROOT "/tests/fixtures/gemini/bert-comm_gap.txt";
  const GeminiGaps g = parse_gemini_gaps(read_input_file(file, "gaps"), file);
  // 20 lines; line 1 (the first step) has 352 values before "-", lines 2-8 and 10 have 123,
  // lines 9 and 11-20 have 122, every line 2 after it ("0" and a gap near 2 s).
  REQUIRE(g.lines.size() == 20);
  CHECK(g.lines[0].separator == 352);
  CHECK(g.lines[0].values_ms.size() == 354);
  CHECK(g.lines[1].values_ms.size() == 125);
  CHECK(g.lines[19].values_ms.size() == 124);
  // GEMINI's warm-up skip would mix 124 and 125 values: refused, with the counts.
  CHECK(gemini_problem(read_input_file(file, "gaps"), {std::make_pair(std::size_t{9}, std::size_t{20}), 2.0, 0}).found.find("line 10: 125") !=
        std::string::npos);
  // Lines 11-20: 124 values each. The last value is the gap before the last reduce-scatter, its minimum line 18's 1890.4 ms;
  // the per-position minima of the first three positions are 0.2, 0.2, 0.2 ms
  // (read off the file). With T = 2 s the spans fit.
  const GeminiGapsProfile p = gemini_gaps_spans(g, {std::make_pair(std::size_t{11}, std::size_t{20}), 2.0, 0});
  CHECK(p.lines_used == 10);
  CHECK(p.values_per_line == 124);
  CHECK(p.lengths_s[0] == doctest::Approx(0.2e-3));
  CHECK(p.lengths_s[123] == doctest::Approx(1890.4e-3));
}
