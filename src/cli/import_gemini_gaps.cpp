#include "import_gemini_gaps.hpp"

#include <cstdio>
#include <ostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/gemini_gaps.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/workload/profile.hpp"
#include "input_guards.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

std::pair<std::size_t, std::size_t> parse_lines(const std::string& text) {
  long a = -1, b = -1;
  char tail = 0;
  const int n = std::sscanf(text.c_str(), "%ld:%ld%c", &a, &b, &tail);
  if (n != 2 || a < 1 || b < a) throw UsageError(fmt::format("--lines expects A:B (line numbers of the file, 1 <= A <= B), found \"{}\"", text));
  return {static_cast<std::size_t>(a), static_cast<std::size_t>(b)};
}

double duration_option(const std::string& name, const std::string& text) {
  try {
    return parse_duration(text).seconds();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--{} expects a duration such as 1.9s, found \"{}\" ({})", name, text, e.what()));
  }
}

}  // namespace

int import_gemini_gaps(const CommandContext& ctx, const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: ckptsim import gemini-gaps FILE -o profile.json --iteration-time T [--lines A:B] [--min-span T]\n\n"
      "Reads GEMINI's communication-gap profile (comm_gap.txt, written by the SOSP '23 artifact: one\n"
      "line per iteration, gaps in ms) and writes an idle-span profile (-o, docs/profile-format.md).\n"
      "Span k lasts the minimum of value k over the lines used (GEMINI's rule). The file holds neither\n"
      "the iteration time (--iteration-time, required) nor when the spans start: they are laid out in\n"
      "order with the rest of the iteration spread evenly before, between and after them (an\n"
      "assumption, printed as a warning).\n\noptions");
  std::string output, iteration_time, lines, min_span = "0s";
  visible.add_options()("help,h", "print this help")
      ("output,o", po::value(&output), "idle-span profile to write (required)")
      ("iteration-time", po::value(&iteration_time), "the profiled job's iteration time (required; e.g. 1.9s)")
      ("lines", po::value(&lines), "use the file's lines A..B only (A:B, 1-based; GEMINI skips its first 6 to 12 lines as warm-up)")
      ("min-span", po::value(&min_span)->default_value("0s"), "leave out gaps shorter than this (GEMINI's span_threshold, e.g. 100ms)");
  const auto parsed = parse_files_options(ctx, args, visible, 1);
  if (!parsed) return 0;
  const po::variables_map& vm = parsed->vm;
  const std::vector<std::string>& files = parsed->files;
  if (files.size() != 1) throw UsageError("expects one FILE (a comm_gap.txt)");
  if (output.empty()) throw UsageError("missing -o FILE (where to write the idle-span profile)");
  if (iteration_time.empty()) {
    throw UsageError("missing --iteration-time T: comm_gap.txt does not record the iteration time (GEMINI's training loop prints it "
                     "as \"[Training] step time\")");
  }
  GeminiGapsOptions o;
  o.iteration_time_s = duration_option("iteration-time", iteration_time);
  if (!(o.iteration_time_s > 0)) throw UsageError(fmt::format("--iteration-time expects a duration above 0, found \"{}\"", iteration_time));
  o.min_span_s = duration_option("min-span", min_span);
  if (vm.count("lines")) o.lines = parse_lines(lines);
  refuse_output_over_inputs("-o", output, files);
  check_output_writable(output);

  const GeminiGaps gaps = parse_gemini_gaps(read_input_file(files[0], "GEMINI's comm_gap.txt"), files[0]);
  const GeminiGapsProfile spans = gemini_gaps_spans(gaps, o);
  const std::string source =
      fmt::format("GEMINI comm_gap.txt: {}{}; span lengths = per-position minimum over {} line(s); iteration time {} given; span starts "
                  "assumed (busy time spread evenly between the spans)",
                  files[0], o.lines ? fmt::format(" lines {}..{}", o.lines->first, o.lines->second) : "", spans.lines_used, iteration_time);
  const nlohmann::json profile = gemini_gaps_profile(spans, o.iteration_time_s, source);
  (void)parse_profile(profile, output, 1);  // what is written loads as a --profile
  write_output_files({{output, profile.dump(1) + '\n'}});

  double idle = 0, kept = 0;
  for (const double l : spans.lengths_s) idle += l;
  for (const auto& s : spans.spans) kept += s.second;
  ctx.out << fmt::format("lines used       {}\n", spans.lines_used);
  ctx.out << fmt::format("values per line  {}\n", spans.values_per_line);
  ctx.out << fmt::format("gaps (minimum)   {:.1f} ms in all\n", 1e3 * idle);
  ctx.out << fmt::format("spans written    {}, {:.1f} ms (iteration {:.1f} ms)\n", spans.spans.size(), 1e3 * kept, 1e3 * o.iteration_time_s);
  ctx.out << fmt::format("assumed busy     {:.3f} ms before, between and after the gaps\n", 1e3 * spans.busy_between_s);
  ctx.err << "warning: comm_gap.txt records no span start times: the spans are laid out in order with the busy time spread evenly "
             "between them (docs/profile-format.md, \"From GEMINI's comm_gap.txt\")\n";
  bool separated = false;
  for (const GeminiGapsLine& l : gaps.lines) separated = separated || (l.separator && *l.separator > 0);
  if (separated) {
    ctx.err << "note: the values before \"-\" are, in the GEMINI artifact's profiler, each all-gather's own start-to-end time, which "
               "GEMINI reads as idle spans; they are read the same way here\n";
  }
  ctx.err << fmt::format("ckptsim import gemini-gaps: idle-span profile written to {}\n", output);
  return 0;
}

}  // namespace ckptsim::cli
