#include "timeline.hpp"

#include <fmt/format.h>

namespace ckptsim::replay {

namespace {

nlohmann::json span_json(const Span& s) { return {{"start_s", s.start_s}, {"end_s", s.end_s}}; }

nlohmann::json iteration_json(const ReplayPlan& plan, const IterationRecord& it) {
  auto ops = nlohmann::json::array();
  for (std::size_t i = 0; i < it.ops.size(); ++i) {
    const PlanOp& op = plan.ops[i];
    if (op.kind == OpKind::marker) continue;
    nlohmann::json o = {{"id", i}, {"kind", to_string(op.kind)}, {"category", op.category}, {"start_s", it.ops[i].start_s},
                        {"end_s", it.ops[i].end_s}};
    if (op.kind == OpKind::compute) {
      o["flops"] = op.flops;
    } else {
      o["bytes"] = op.bytes;
    }
    ops.push_back(std::move(o));
  }
  auto sends = nlohmann::json::array();
  for (const SendRecord& s : it.sends) {
    sends.push_back({{"index", s.index}, {"copy", s.copy}, {"peer", s.peer}, {"bytes", s.bytes}, {"start_s", s.span.start_s},
                     {"end_s", s.span.end_s}});
  }
  auto copies = nlohmann::json::array();
  for (const CopyRecord& c : it.copies) {
    copies.push_back({{"from", c.from}, {"index", c.index}, {"bytes", c.bytes}, {"received_start_s", c.received.start_s},
                      {"received_end_s", c.received.end_s}, {"start_s", c.copy.start_s}, {"end_s", c.copy.end_s}});
  }
  return {{"iteration", it.iteration},         {"iteration_time_s", it.iteration_time_s},
          {"checkpoint_time_s", it.checkpoint_time_s}, {"operations", std::move(ops)},
          {"sends", std::move(sends)},         {"copies", std::move(copies)},
          {"local_copy", span_json(it.local_copy)}};
}

}  // namespace

nlohmann::json rank_record_json(const ReplayPlan& plan, const RankRecord& r) {
  auto its = nlohmann::json::array();
  for (const IterationRecord& it : r.iterations) its.push_back(iteration_json(plan, it));
  return {{"rank", r.rank}, {"iterations", std::move(its)}};
}

nlohmann::json timeline_json(const ReplayPlan& plan, const std::string& backend, double bandwidth,
                             const nlohmann::json& ranks, const std::string& command_line) {
  nlohmann::json doc;
  doc["format"] = "ckptsim-timeline/1";
  doc["source"] = "measured";
  doc["backend"] = backend;
  doc["command_line"] = command_line;
  doc["plan"] = {{"file", plan.file}, {"scenario", plan.scenario}, {"scheduler", plan.scheduler}, {"ranks", plan.ranks}};
  doc["paced_bandwidth_bytes_per_s"] = bandwidth;
  doc["ranks"] = ranks;
  return doc;
}

nlohmann::json chrome_trace_json(const ReplayPlan& plan, const nlohmann::json& ranks) {
  auto events = nlohmann::json::array();
  const char* tracks[] = {"GPU compute", "all-gather", "reduce-scatter", "checkpoint chunks sent",
                          "GPU-to-CPU copies (received chunks)", "GPU-to-CPU copy (local replica)"};
  auto add = [&](int pid, int tid, const std::string& name, double base, double start, double end) {
    if (start < 0 || end < start) return;
    events.push_back({{"ph", "X"}, {"pid", pid}, {"tid", tid}, {"name", name}, {"ts", (base + start) * 1e6}, {"dur", (end - start) * 1e6}});
  };
  for (const auto& r : ranks) {
    const int pid = r.at("rank").get<int>();
    events.push_back({{"ph", "M"}, {"pid", pid}, {"name", "process_name"}, {"args", {{"name", fmt::format("rank {}", pid)}}}});
    for (int t = 0; t < 6; ++t) events.push_back({{"ph", "M"}, {"pid", pid}, {"tid", t}, {"name", "thread_name"}, {"args", {{"name", tracks[t]}}}});
    double base = 0;  // iterations laid end to end, each from its own start
    for (const auto& it : r.at("iterations")) {
      for (const auto& op : it.at("operations")) {
        const std::string kind = op.at("kind").get<std::string>();
        const int tid = kind == "compute" ? 0 : kind == "all-gather" ? 1 : 2;
        const int id = op.at("id").get<int>();
        add(pid, tid, fmt::format("{} S{}", plan.ops[static_cast<std::size_t>(id)].category, plan.ops[static_cast<std::size_t>(id)].stage),
            base, op.at("start_s").get<double>(), op.at("end_s").get<double>());
      }
      for (const auto& s : it.at("sends")) add(pid, 3, fmt::format("chunk {} (copy {})", s.at("index").get<int>(), s.at("copy").get<int>()), base, s.at("start_s").get<double>(), s.at("end_s").get<double>());
      for (const auto& c : it.at("copies")) add(pid, 4, fmt::format("copy chunk {} from rank {}", c.at("index").get<int>(), c.at("from").get<int>()), base, c.at("start_s").get<double>(), c.at("end_s").get<double>());
      add(pid, 5, "local replica", base, it.at("local_copy").at("start_s").get<double>(), it.at("local_copy").at("end_s").get<double>());
      base += std::max(it.at("iteration_time_s").get<double>(), it.at("checkpoint_time_s").get<double>());
    }
  }
  return {{"traceEvents", std::move(events)}, {"displayTimeUnit", "ms"}};
}

}  // namespace ckptsim::replay
