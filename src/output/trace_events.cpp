#include "ckptsim/output/trace_events.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace ckptsim {

const char* trace_track_name(TraceTrack track) {
  switch (track) {
    case TraceTrack::compute: return "GPU compute (every GPU)";
    case TraceTrack::gather: return "gather stream";
    case TraceTrack::pre_gather: return "pre-gather stream";
    case TraceTrack::reduce: return "reduce stream";
    case TraceTrack::comm: return "NCCL stream (sharding group)";
    case TraceTrack::comm_replica: return "NCCL stream (replicate group)";
    case TraceTrack::host: return "host waits";
    case TraceTrack::chunks_sent: return "checkpoint chunks sent";
    case TraceTrack::copies_received: return "GPU-to-CPU copies (received chunks)";
    case TraceTrack::local_copy: return "GPU-to-CPU copy (local replica)";
    case TraceTrack::iterations: return "iterations";
  }
  return "?";
}

TraceTrack trace_track(Stream s) {
  switch (s) {
    case Stream::compute: return TraceTrack::compute;
    case Stream::gather: return TraceTrack::gather;
    case Stream::pre_gather: return TraceTrack::pre_gather;
    case Stream::reduce: return TraceTrack::reduce;
    case Stream::comm: return TraceTrack::comm;
    case Stream::comm_replica: return TraceTrack::comm_replica;
    case Stream::host: return TraceTrack::host;
  }
  return TraceTrack::compute;
}

std::string chunk_slice_name(int index, int copy) { return fmt::format("chunk {} (copy {})", index, copy); }
std::string copy_slice_name(int index) { return fmt::format("copy chunk {}", index); }

std::string task_slice_name(const IterationWorkload& w, int task) {
  const Task& t = w.graph().tasks()[static_cast<std::size_t>(task)];
  const ProgramOp* op = w.op_for(task);
  if (op == nullptr) return to_string(t.category);
  std::string name = op->label.empty() ? std::string(to_string(t.category)) : fmt::format("{} {}", to_string(t.category), op->label);
  if (op->kind == ProgramOp::Kind::collective) name += fmt::format(" phase {}", t.phase);
  if (op->kind == ProgramOp::Kind::host_wait) name = fmt::format("host waits ({})", name_of(op->cause));
  return name;
}

TraceEvents::TraceEvents(const nlohmann::json& other_data) {
  // nlohmann::json orders an object's keys: displayTimeUnit, otherData, traceEvents.
  text_ = R"({"displayTimeUnit":"ms","otherData":)";
  text_ += other_data.dump();
  text_ += R"(,"traceEvents":[)";
}

void TraceEvents::add(const nlohmann::json& event) {
  if (count_ > 0) text_ += ',';
  text_ += event.dump();
  ++count_;
}

std::string TraceEvents::finish() && {
  text_ += "]}";
  return std::move(text_);
}

void add_trace_process(TraceEvents& events, int pid, const std::string& name) {
  events.add({{"ph", "M"}, {"pid", pid}, {"name", "process_name"}, {"args", {{"name", name}}}});
  for (int t = 0; t < kTraceTracks; ++t) {
    events.add({{"ph", "M"}, {"pid", pid}, {"tid", t}, {"name", "thread_name"}, {"args", {{"name", trace_track_name(static_cast<TraceTrack>(t))}}}});
  }
}

nlohmann::json trace_slice(int pid, TraceTrack track, const std::string& name, const std::string& category, double start_s,
                           double end_s, nlohmann::json args) {
  return {{"ph", "X"}, {"pid", pid}, {"tid", static_cast<int>(track)}, {"name", name}, {"cat", category},
          {"ts", start_s * 1e6}, {"dur", std::max(0.0, end_s - start_s) * 1e6}, {"args", std::move(args)}};
}

void add_trace_flow(TraceEvents& events, long long id, int from_pid, TraceTrack from_track, double from_s, int to_pid,
                    TraceTrack to_track, double to_s) {
  events.add({{"ph", "s"}, {"id", id}, {"pid", from_pid}, {"tid", static_cast<int>(from_track)}, {"ts", from_s * 1e6},
              {"name", "chunk to CPU memory"}, {"cat", "checkpoint"}});
  events.add({{"ph", "f"}, {"bp", "e"}, {"id", id}, {"pid", to_pid}, {"tid", static_cast<int>(to_track)}, {"ts", to_s * 1e6},
              {"name", "chunk to CPU memory"}, {"cat", "checkpoint"}});
}

void add_trace_counter(TraceEvents& events, int pid, const std::string& name,
                       const std::vector<std::pair<std::pair<double, double>, double>>& intervals) {
  std::map<double, double> delta;
  for (const auto& [span, value] : intervals) {
    if (!(span.second > span.first)) continue;
    delta[span.first] += value;
    delta[span.second] -= value;
  }
  double level = 0;
  for (const auto& [t, d] : delta) {
    level += d;
    if (std::abs(level) < 1e-9 * std::max(1.0, std::abs(d))) level = 0;  // sums of opposite terms
    events.add({{"ph", "C"}, {"pid", pid}, {"name", name}, {"ts", t * 1e6}, {"args", {{"value", level}}}});
  }
}

std::string measured_trace(const PlanFile& plan, const MeasuredTimeline& t) {
  TraceEvents events({{"source", "measured"}, {"backend", t.backend}, {"plan_hash", t.plan_hash}, {"scheduler", t.plan_scheduler}});
  // Iterations laid end to end, each from the same offset on every rank (the longest rank's
  // iteration or checkpoint), so a chunk's flow from sender to receiver stays in one iteration.
  std::vector<double> base(t.ranks.front().iterations.size() + 1, 0.0);
  for (std::size_t i = 0; i + 1 < base.size(); ++i) {
    double len = 0;
    for (const MeasuredRank& r : t.ranks) len = std::max({len, r.iterations[i].iteration_time_s, r.iterations[i].checkpoint_time_s});
    base[i + 1] = base[i] + len;
  }
  for (const MeasuredRank& r : t.ranks) {
    add_trace_process(events, r.rank, fmt::format("rank {}", r.rank));
    std::vector<std::pair<std::pair<double, double>, double>> nic, buffers;
    for (std::size_t i = 0; i < r.iterations.size(); ++i) {
      const MeasuredIteration& it = r.iterations[i];
      const double b = base[i];
      events.add(trace_slice(r.rank, TraceTrack::iterations, fmt::format("iteration {}", it.iteration), "iteration", b,
                             b + it.iteration_time_s, {{"iteration", it.iteration}, {"checkpoint_time_s", it.checkpoint_time_s}}));
      for (const MeasuredOp& op : it.operations) {
        const PlanOp& p = plan.ops[static_cast<std::size_t>(op.id)];
        const TraceTrack track = p.kind == OpKind::compute ? TraceTrack::compute : p.kind == OpKind::all_gather ? TraceTrack::gather : TraceTrack::reduce;
        nlohmann::json args = p.kind == OpKind::compute ? nlohmann::json{{"flops", p.flops}} : nlohmann::json{{"bytes", p.bytes}};
        events.add(trace_slice(r.rank, track, p.name, p.category, b + op.span.start_s, b + op.span.end_s, std::move(args)));
        if (p.kind != OpKind::compute && op.span.length() > 0) nic.push_back({{b + op.span.start_s, b + op.span.end_s}, p.bytes / op.span.length()});
      }
      const auto& chunks = plan.rank_plans[static_cast<std::size_t>(r.rank)].chunks;
      for (std::size_t k = 0; k < it.sends.size(); ++k) {
        const MeasuredSend& s = it.sends[k];
        const PlanChunk& c = chunks[std::min(k, chunks.size() - 1)];
        events.add(trace_slice(r.rank, TraceTrack::chunks_sent, chunk_slice_name(s.index, s.copy), "checkpoint_send", b + s.span.start_s,
                               b + s.span.end_s, {{"bytes", s.bytes}, {"peer", s.peer}, {"span", c.span}, {"sub_buffer", c.sub_buffer}}));
        if (s.span.length() > 0) nic.push_back({{b + s.span.start_s, b + s.span.end_s}, s.bytes / s.span.length()});
      }
      for (const MeasuredCopy& c : it.copies) {
        events.add(trace_slice(r.rank, TraceTrack::copies_received, copy_slice_name(c.index), "checkpoint_copy", b + c.copy.start_s,
                               b + c.copy.end_s, {{"bytes", c.bytes}, {"from", c.from}}));
        buffers.push_back({{b + c.received.end_s, b + c.copy.end_s}, 1.0});
        // The flow: from the end of the sender's send of this chunk to the start of this copy.
        const MeasuredIteration& sender = t.ranks[static_cast<std::size_t>(c.from)].iterations[i];
        for (const MeasuredSend& s : sender.sends) {
          if (s.index != c.index) continue;
          const long long id = (static_cast<long long>(i) * 65536 + c.from) * 1048576 + c.index;
          add_trace_flow(events, id, c.from, TraceTrack::chunks_sent, b + std::max(s.span.start_s, s.span.end_s - 1e-9), r.rank,
                         TraceTrack::copies_received, b + c.copy.start_s);
        }
      }
      events.add(trace_slice(r.rank, TraceTrack::local_copy, "local replica", "local_copy", b + it.local_copy.start_s, b + it.local_copy.end_s,
                             {{"bytes", plan.shard_bytes}}));
    }
    add_trace_counter(events, r.rank, "NIC send rate (B/s)", nic);
    add_trace_counter(events, r.rank, "receive sub-buffers in use", buffers);
  }
  return std::move(events).finish();
}

}  // namespace ckptsim
