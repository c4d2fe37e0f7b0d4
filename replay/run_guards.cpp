#include "run_guards.hpp"

#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>

#include "ckptsim/scenario/units.hpp"

namespace ckptsim::replay {

namespace {

// Whether two paths name the same file: the same existing file (device and inode), or, for a
// file not yet there, the same absolute path once "." and ".." are resolved.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code e1, e2;
  if (fs::exists(a, e1) && fs::exists(b, e2)) {
    std::error_code ec;
    return fs::equivalent(a, b, ec);
  }
  return fs::weakly_canonical(fs::absolute(a), e1) == fs::weakly_canonical(fs::absolute(b), e2);
}

}  // namespace

void check_output_paths(const std::string& plan, const std::string& output, const std::string& trace) {
  if (!plan.empty() && same_file(plan, output)) {
    throw std::invalid_argument(fmt::format("-o \"{}\" is the plan \"{}\": the measured timeline would overwrite its input", output, plan));
  }
  if (!trace.empty() && !plan.empty() && same_file(plan, trace)) {
    throw std::invalid_argument(fmt::format("--trace \"{}\" is the plan \"{}\": the trace would overwrite its input", trace, plan));
  }
  if (!trace.empty() && same_file(output, trace)) {
    throw std::invalid_argument(fmt::format("-o and --trace name the same file \"{}\": give the trace its own file", trace));
  }
}

double parse_pacing_rate(const std::string& text) {
  double rate = 0;
  try {
    rate = parse_bandwidth(text);
  } catch (const std::exception& e) {
    throw std::invalid_argument(fmt::format("--bandwidth expects a rate such as 100MB/s or 1Gbps, \"plan\" or \"none\"; found \"{}\" ({})", text, e.what()));
  }
  if (!std::isfinite(rate) || !(rate > 0)) {
    throw std::invalid_argument(fmt::format("--bandwidth expects a positive rate (\"none\" for unpaced sends), found \"{}\"", text));
  }
  return rate;
}

double replay_seconds_lower_bound(const PlanFile& plan, const EngineOptions& engine, const std::string& backend) {
  const double f_max = backend == "nccl" ? 1e16 : 1e12;
  double flops = 0, coll = 0;
  for (const PlanOp& op : plan.ops) {
    flops += op.flops;
    coll += op.bytes;
  }
  double per_iteration = flops / f_max;
  for (const PlanRank& r : plan.rank_plans) {
    double bytes = coll, wait = 0;
    for (const PlanChunk& c : r.chunks) {
      bytes += c.bytes;
      // A chunk waits for its offset after its span's anchor, or for its planned start when
      // the span has no anchor (rank_loop.cpp, chunk_eligible).
      const int d = static_cast<int>(plan.spans.size());
      const bool anchored = c.span >= 0 && d > 0 && plan.spans[static_cast<std::size_t>(std::min(c.span, d - 1))].after_op >= 0;
      wait = std::max({wait, c.offset_s, !anchored && c.span >= 0 ? c.planned_start_s : 0.0});
    }
    per_iteration = std::max({per_iteration, engine.bandwidth > 0 ? bytes / engine.bandwidth : 0.0, wait});
  }
  return per_iteration * (engine.warmup + engine.iterations);
}

}  // namespace ckptsim::replay
