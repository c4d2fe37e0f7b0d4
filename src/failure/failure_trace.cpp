// Failure trace CSV reader (see failure_process.hpp for the format).
#include <algorithm>
#include <charconv>
#include <map>
#include <tuple>
#include <sstream>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/failure/failure_process.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> split_commas(const std::string& line) {
  std::vector<std::string> out;
  std::stringstream ss(line);
  std::string cell;
  while (std::getline(ss, cell, ',')) out.push_back(trim(cell));
  return out;
}

}  // namespace

std::vector<TraceRecord> load_failure_trace(const std::string& path, int machines) {
  return parse_failure_trace(read_input_file(path, "a failure trace CSV"), path, machines);
}

std::vector<TraceRecord> parse_failure_trace(std::string_view contents, const std::string& path, int machines) {
  // A UTF-8 byte-order mark is skipped, as in JSON inputs (core/input_file.hpp).
  std::istringstream in{std::string(strip_utf8_bom(contents, path))};
  ProblemList problems(path);
  std::map<std::tuple<std::int64_t, int, FailureType>, int> first_line;  // row -> line it first appeared on
  std::vector<TraceRecord> records;
  std::string line;
  int line_number = 0;
  bool header_seen = false;
  std::size_t columns = 3;
  while (std::getline(in, line)) {
    ++line_number;
    if (records.size() >= kMaxTraceRecords) {
      problems.add(fmt::format("/line/{}", line_number), fmt::format("at most {} failures in a trace", kMaxTraceRecords),
                   "more");
      break;
    }
    const std::string text = trim(line);
    if (text.empty() || text.front() == '#') continue;
    const auto cells = split_commas(text);
    const std::string where = fmt::format("/line/{}", line_number);
    if (!header_seen) {
      header_seen = true;
      if (cells == std::vector<std::string>{"time", "machine", "type", "cause"}) {
        columns = 4;
      } else if (cells != std::vector<std::string>{"time", "machine", "type"}) {
        problems.add(where, "the header \"time,machine,type\" or \"time,machine,type,cause\"", fmt::format("\"{}\"", text));
      }
      continue;
    }
    TraceRecord r;
    r.line = line_number;
    if (cells.size() != columns) {
      problems.add(where, fmt::format("{} comma-separated cells ({})", columns,
                                      columns == 4 ? "time,machine,type,cause" : "time,machine,type"),
                   fmt::format("{} cells", cells.size()));
      continue;
    }
    if (columns == 4) {
      const auto& c = cells[3];
      const bool valid = !c.empty() && c.size() <= 64 && std::all_of(c.begin(), c.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-' || ch == '_';
      });
      if (!valid) problems.add(where + "/cause", "a cause name of 1-64 characters a-z 0-9 - _", fmt::format("\"{}\"", c));
      r.cause = c;
    }
    const std::size_t problems_before = problems.problems().size();
    try {
      const bool bare = cells[0].find_first_not_of("0123456789.eE+-") == std::string::npos;
      r.time = bare ? parse_duration(cells[0] + "s") : parse_duration(cells[0]);
    } catch (const UnitError& e) {
      problems.add(where + "/time", e.what(), fmt::format("\"{}\"", cells[0]));
    }
    int machine = -1;
    auto [ptr, ec] = std::from_chars(cells[1].data(), cells[1].data() + cells[1].size(), machine);
    if (ec != std::errc() || ptr != cells[1].data() + cells[1].size() || machine < 0 || machine >= machines) {
      problems.add(where + "/machine", fmt::format("a machine index in 0..{}", machines - 1),
                   fmt::format("\"{}\"", cells[1]));
    }
    r.machine = machine;
    if (cells[2] == "software") {
      r.type = FailureType::software;
    } else if (cells[2] == "hardware") {
      r.type = FailureType::hardware;
    } else {
      problems.add(where + "/type", "\"software\" or \"hardware\"", fmt::format("\"{}\"", cells[2]));
    }
    // The same failure (time, machine, type) written twice is refused rather than counted twice
    // or merged silently: a trace with repeated rows was most likely concatenated by mistake.
    if (problems.problems().size() == problems_before) {
      const auto [it, fresh] = first_line.emplace(std::make_tuple(r.time.ns(), r.machine, r.type), line_number);
      if (!fresh)
        problems.add(where, "each failure once (time, machine, type)",
                     fmt::format("the same failure as line {}", it->second));
    }
    records.push_back(r);
  }
  if (!header_seen) problems.add("", "a header line \"time,machine,type\"", "no lines");
  problems.throw_if_any();
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) { return a.time < b.time; });
  return records;
}

}  // namespace ckptsim
