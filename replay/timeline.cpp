#include "timeline.hpp"

#include "ckptsim/output/manifest.hpp"

namespace ckptsim::replay {

namespace {

TimeSpan span(const Span& s) { return {s.start_s, s.end_s}; }

}  // namespace

MeasuredRank measured_rank(const PlanFile& plan, const RankRecord& r) {
  MeasuredRank out;
  out.rank = r.rank;
  for (const IterationRecord& it : r.iterations) {
    MeasuredIteration m;
    m.iteration = it.iteration;
    m.iteration_time_s = it.iteration_time_s;
    m.checkpoint_time_s = it.checkpoint_time_s;
    for (std::size_t i = 0; i < it.ops.size(); ++i) {
      const PlanOp& op = plan.ops[i];
      if (op.kind == OpKind::marker) continue;
      MeasuredOp o;
      o.id = op.id;
      o.kind = to_string(op.kind);
      o.category = op.category;
      o.span = span(it.ops[i]);
      if (op.kind == OpKind::compute) o.flops = op.flops;
      else o.bytes = op.bytes;
      m.operations.push_back(std::move(o));
    }
    for (const SendRecord& s : it.sends) m.sends.push_back({s.index, s.copy, s.peer, s.bytes, span(s.span)});
    for (const CopyRecord& c : it.copies) m.copies.push_back({c.from, c.index, c.bytes, span(c.received), span(c.copy)});
    m.local_copy = span(it.local_copy);
    out.iterations.push_back(std::move(m));
  }
  return out;
}

MeasuredTimeline timeline_header(const PlanFile& plan, const std::string& backend, double bandwidth, const std::string& command_line) {
  MeasuredTimeline t;
  t.backend = backend;
  t.command_line = command_line;
  t.manifest = {{"ckptsim_version", ckptsim_version()}, {"git_revision", ckptsim_git_revision()}, {"command_line", command_line}};
  t.plan_hash = plan.hash;
  t.plan_file = plan.file;
  t.plan_scenario = plan.scenario;
  t.plan_scheduler = plan.scheduler;
  t.plan_ranks = plan.ranks;
  t.paced_bandwidth_bytes_per_s = bandwidth;
  return t;
}

}  // namespace ckptsim::replay
