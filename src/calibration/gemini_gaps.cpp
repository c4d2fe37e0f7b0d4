// GEMINI's comm_gap.txt as an idle-span profile (gemini_gaps.hpp has the format and the rules).
#include "ckptsim/calibration/gemini_gaps.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

namespace {

/// 100 years in milliseconds: the simulated clock's range (docs/limits.md).
constexpr double kGeminiMaxMilliseconds = 3.15576e12;

bool is_gemini_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

}  // namespace

GeminiGaps parse_gemini_gaps(std::string_view text, const std::string& file) {
  GeminiGaps out;
  out.file = file;
  std::size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    GeminiGapsLine parsed;
    parsed.line = line_no;
    std::size_t i = 0, token = 0;
    while (i < line.size()) {
      while (i < line.size() && is_gemini_space(line[i])) ++i;
      if (i == line.size()) break;
      std::size_t j = i;
      while (j < line.size() && !is_gemini_space(line[j])) ++j;
      const std::string word(line.substr(i, j - i));
      i = j;
      ++token;
      const std::string pointer = fmt::format("line {}, value {}", line_no, token);
      if (word == "-") {
        if (parsed.separator) throw InputError(file, pointer, "one \"-\" per line (between the all-gather and reduce-scatter gaps)", "a second one");
        parsed.separator = parsed.values_ms.size();
        continue;
      }
      errno = 0;
      char* end = nullptr;
      const double v = std::strtod(word.c_str(), &end);
      if (end != word.c_str() + word.size() || word.empty() || errno == ERANGE || !std::isfinite(v) || v < 0) {
        throw InputError(file, pointer, "a gap in milliseconds (a number >= 0) or the separator \"-\"", fmt::format("\"{}\"", word));
      }
      if (v > kGeminiMaxMilliseconds) throw InputError(file, pointer, "a gap of at most 100 years (3.15576e12 ms, docs/limits.md)", word);
      parsed.values_ms.push_back(v);
    }
    if (token > 0) out.lines.push_back(std::move(parsed));
  }
  if (out.lines.empty()) throw InputError(file, "", "lines of gaps (GEMINI's comm_gap.txt)", "no values");
  return out;
}

GeminiGapsProfile gemini_gaps_spans(const GeminiGaps& gaps, const GeminiGapsOptions& options) {
  std::vector<const GeminiGapsLine*> used;
  for (const GeminiGapsLine& l : gaps.lines)
    if (!options.lines || (l.line >= options.lines->first && l.line <= options.lines->second)) used.push_back(&l);
  if (used.empty()) {
    throw InputError(gaps.file, "", "data lines within --lines", fmt::format("none among lines {}..{}", options.lines->first, options.lines->second));
  }
  std::string counts;
  bool same = true;
  for (const GeminiGapsLine* l : used) {
    same = same && l->values_ms.size() == used.front()->values_ms.size();
    counts += fmt::format("{}line {}: {}", counts.empty() ? "" : ", ", l->line, l->values_ms.size());
  }
  if (!same) {
    throw InputError(gaps.file, "", "the same number of values on every line used (value k is the same gap each iteration); "
                     "choose the lines with --lines A:B", counts);
  }
  GeminiGapsProfile out;
  out.lines_used = used.size();
  out.values_per_line = used.front()->values_ms.size();
  double idle = 0;
  for (std::size_t k = 0; k < out.values_per_line; ++k) {
    double shortest = used.front()->values_ms[k];
    for (const GeminiGapsLine* l : used) shortest = std::min(shortest, l->values_ms[k]);
    out.lengths_s.push_back(shortest * 1e-3);
    idle += shortest * 1e-3;
  }
  const double t = options.iteration_time_s;
  if (idle > t) {
    throw InputError(gaps.file, "", "gaps that fit in the iteration (--iteration-time)",
                     fmt::format("{:.6g} s of gaps (per-position minimum) in an iteration of {:.6g} s", idle, t));
  }
  out.busy_between_s = (t - idle) / static_cast<double>(out.values_per_line + 1);
  // Starts and ends snapped to whole nanoseconds as the profile reader reads them
  // (SimTime::from_seconds), so that what is written reads back in order and inside T.
  const auto snap = [](double s) { return SimTime::from_seconds(s).ns(); };
  const std::int64_t t_ns = snap(t);
  double cursor = 0;
  for (const double length : out.lengths_s) {
    cursor += out.busy_between_s;
    const std::int64_t a = snap(cursor), b = std::min(snap(cursor + length), t_ns);
    if (b > a && static_cast<double>(b - a) / 1e9 >= options.min_span_s) {
      out.spans.emplace_back(static_cast<double>(a) / 1e9, static_cast<double>(b - a) / 1e9);
    }
    cursor += length;
  }
  return out;
}

nlohmann::json gemini_gaps_profile(const GeminiGapsProfile& spans, double iteration_time_s, const std::string& source) {
  auto list = nlohmann::json::array();
  for (const auto& [start, length] : spans.spans) list.push_back({start, length});
  return {{"format", "ckptsim-profile/1"}, {"source", source},
          {"iterations", nlohmann::json::array({{{"iteration_time", iteration_time_s}, {"spans", std::move(list)}}})}};
}

}  // namespace ckptsim
