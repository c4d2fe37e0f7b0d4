#pragma once
// Reading GEMINI's communication-gap profile (comm_gap.txt) as a measured idle-span profile.
//
// Source: the GEMINI artifact (Wang et al., SOSP '23), github.com/zhuangwang93/Gemini_SOSP23,
// deepspeed/runtime/snapshot/snapshot_profiler.py (CommounicationProfiler.profile_comm_time_gap)
// writes it, deepspeed/runtime/snapshot/snapshot_strategy.py (SnapshotStrategy) and
// examples/extract_idle_spans.py read it; examples/BERT/snapshot_strategy/comm_gap.txt is a
// published one (tests/fixtures/gemini/).
// Format: one line per profiled iteration (rank 0, appended after every step), values separated
// by spaces, each a time in milliseconds rounded to 0.1 ms (Python's str(round(x, 1)), "0" for a
// clamped negative gap); a lone "-" separates the all-gather part from the reduce-scatter part:
//   before "-": one value per all-gather, start.elapsed_time(end) of the CUDA events recorded
//               on the all-gather stream around it (the artifact's own comment says it reverses
//               communication and idle time); GEMINI reads them as idle spans;
//   after "-":  per reduce-scatter, the time from the previous collective's end event to its
//               start event (negative values written as 0).
// GEMINI skips the first lines (jump_lines: 6 by default, 8 or 12 in its launch scripts) and
// keeps, per position k, the minimum over the lines (get_comm_idle_time).
// What the file does not hold: the iteration time (the training loop prints it separately),
// when each span starts, and the collectives' durations between spans. So the profile written
// here takes
//   span k length  L_k = min over the selected lines of value k (GEMINI's rule), in seconds;
//   iteration time T = given by the user (--iteration-time);
//   span k start   s_k = (k+1)·b + sum_{j<k} L_j,  b = (T - sum_j L_j) / (K+1)   (K spans)
//                  — an assumption: the busy time spread evenly before, between and after the
//                  spans, which keeps their order and lengths; it is reported as such.
// Spans of length 0, and shorter than min_span_s, are left out after the layout.
// Errors (InputError, file and "line N, value M"): a value that is not a number >= 0 or the
// separator, a second separator in a line, a value beyond 100 years, no data line, selected
// lines with different numbers of values (the counts are listed), spans longer than T together.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim {

struct GeminiGapsLine {
  std::size_t line = 0;                  ///< 1-based line of the file
  std::vector<double> values_ms;         ///< the values in order, without the separator
  std::optional<std::size_t> separator;  ///< how many values precede "-", when the line has one
};

struct GeminiGaps {
  std::string file;
  std::vector<GeminiGapsLine> lines;  ///< the non-blank lines
};

struct GeminiGapsOptions {
  std::optional<std::pair<std::size_t, std::size_t>> lines;  ///< keep the file's lines A..B (1-based)
  double iteration_time_s = 0;                               ///< T (> 0)
  double min_span_s = 0;
};

struct GeminiGapsProfile {
  std::size_t lines_used = 0;
  std::size_t values_per_line = 0;
  std::vector<double> lengths_s;                      ///< L_k, every position
  double busy_between_s = 0;                          ///< b
  std::vector<std::pair<double, double>> spans;       ///< [start, length] written
};

/// Parses the text of a comm_gap.txt.
GeminiGaps parse_gemini_gaps(std::string_view text, const std::string& file);

/// The spans of the selected lines laid out in [0, T) (the rules above).
GeminiGapsProfile gemini_gaps_spans(const GeminiGaps& gaps, const GeminiGapsOptions& options);

/// The profile document (docs/profile-format.md): one iteration of length T with those spans.
nlohmann::json gemini_gaps_profile(const GeminiGapsProfile& spans, double iteration_time_s, const std::string& source);

}  // namespace ckptsim
