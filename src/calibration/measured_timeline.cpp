#include "ckptsim/calibration/measured_timeline.hpp"

#include <set>

#include <fmt/format.h>

#include "json_reader.hpp"

namespace ckptsim {

namespace {

constexpr double kMaxTimelineBytes = 1e18;
constexpr int kMaxIterations = 1'000'000;

nlohmann::json span_json(const TimeSpan& s) { return {{"start_s", s.start_s}, {"end_s", s.end_s}}; }

TimeSpan read_span(const JsonReader& r, const nlohmann::json& j, const std::string& ptr, const char* start, const char* end) {
  TimeSpan s;
  s.start_s = r.number(j, ptr, start, 0, kMaxSeconds);
  s.end_s = r.number(j, ptr, end, 0, kMaxSeconds);
  if (s.end_s < s.start_s) {
    r.fail(ptr + "/" + end, fmt::format("an end at or after the start ({} s)", s.start_s), fmt::format("{} s", s.end_s));
  }
  return s;
}

MeasuredIteration read_iteration(const JsonReader& r, const nlohmann::json& j, const std::string& ptr) {
  MeasuredIteration it;
  it.iteration = r.integer(j, ptr, "iteration", 0, kMaxIterations);
  it.iteration_time_s = r.number(j, ptr, "iteration_time_s", 0, kMaxSeconds);
  if (!(it.iteration_time_s > 0)) r.fail(ptr + "/iteration_time_s", "a positive time", "0");
  it.checkpoint_time_s = r.number(j, ptr, "checkpoint_time_s", 0, kMaxSeconds);
  const auto& ops = r.array(j, ptr, "operations");
  std::set<int> ids;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const std::string op_ptr = fmt::format("{}/operations/{}", ptr, k);
    MeasuredOp op;
    op.id = r.integer(ops[k], op_ptr, "id", 0, 1'000'000);
    if (!ids.insert(op.id).second) r.fail(op_ptr + "/id", "each operation once per iteration", fmt::format("operation {} again", op.id));
    op.kind = r.text(ops[k], op_ptr, "kind");
    if (op.kind != "compute" && op.kind != "all-gather" && op.kind != "reduce-scatter" && op.kind != "all-reduce") {
      r.fail(op_ptr + "/kind", "\"compute\", \"all-gather\", \"reduce-scatter\" or \"all-reduce\"", "\"" + op.kind + "\"");
    }
    op.category = r.text(ops[k], op_ptr, "category");
    op.span = read_span(r, ops[k], op_ptr, "start_s", "end_s");
    if (op.kind == "compute") op.flops = r.number(ops[k], op_ptr, "flops", 0, 1e21);
    else op.bytes = r.number(ops[k], op_ptr, "bytes", 0, kMaxTimelineBytes);
    it.operations.push_back(std::move(op));
  }
  const auto& sends = r.array(j, ptr, "sends");
  for (std::size_t k = 0; k < sends.size(); ++k) {
    const std::string sp = fmt::format("{}/sends/{}", ptr, k);
    MeasuredSend s;
    s.index = r.integer(sends[k], sp, "index", 0, 100'000'000);
    s.copy = r.integer(sends[k], sp, "copy", 0, kMaxRanks);
    s.peer = r.integer(sends[k], sp, "peer", 0, kMaxRanks - 1);
    s.bytes = r.number(sends[k], sp, "bytes", 0, kMaxTimelineBytes);
    s.span = read_span(r, sends[k], sp, "start_s", "end_s");
    it.sends.push_back(s);
  }
  const auto& copies = r.array(j, ptr, "copies");
  for (std::size_t k = 0; k < copies.size(); ++k) {
    const std::string cp = fmt::format("{}/copies/{}", ptr, k);
    MeasuredCopy c;
    c.from = r.integer(copies[k], cp, "from", 0, kMaxRanks - 1);
    c.index = r.integer(copies[k], cp, "index", 0, 100'000'000);
    c.bytes = r.number(copies[k], cp, "bytes", 0, kMaxTimelineBytes);
    c.received = read_span(r, copies[k], cp, "received_start_s", "received_end_s");
    c.copy = read_span(r, copies[k], cp, "start_s", "end_s");
    it.copies.push_back(c);
  }
  it.local_copy = read_span(r, r.object(j, ptr, "local_copy"), ptr + "/local_copy", "start_s", "end_s");
  return it;
}

}  // namespace

nlohmann::json measured_rank_json(const MeasuredRank& rank) {
  auto its = nlohmann::json::array();
  for (const MeasuredIteration& it : rank.iterations) {
    auto ops = nlohmann::json::array();
    for (const MeasuredOp& op : it.operations) {
      nlohmann::json o = {{"id", op.id}, {"kind", op.kind}, {"category", op.category}, {"start_s", op.span.start_s}, {"end_s", op.span.end_s}};
      if (op.kind == "compute") o["flops"] = op.flops;
      else o["bytes"] = op.bytes;
      ops.push_back(std::move(o));
    }
    auto sends = nlohmann::json::array();
    for (const MeasuredSend& s : it.sends) {
      sends.push_back({{"index", s.index}, {"copy", s.copy}, {"peer", s.peer}, {"bytes", s.bytes}, {"start_s", s.span.start_s}, {"end_s", s.span.end_s}});
    }
    auto copies = nlohmann::json::array();
    for (const MeasuredCopy& c : it.copies) {
      copies.push_back({{"from", c.from}, {"index", c.index}, {"bytes", c.bytes}, {"received_start_s", c.received.start_s},
                        {"received_end_s", c.received.end_s}, {"start_s", c.copy.start_s}, {"end_s", c.copy.end_s}});
    }
    its.push_back({{"iteration", it.iteration}, {"iteration_time_s", it.iteration_time_s}, {"checkpoint_time_s", it.checkpoint_time_s},
                   {"operations", std::move(ops)}, {"sends", std::move(sends)}, {"copies", std::move(copies)},
                   {"local_copy", span_json(it.local_copy)}});
  }
  return {{"rank", rank.rank}, {"iterations", std::move(its)}};
}

nlohmann::json pacing_json(const PacingReport& p) {
  return {{"requested_bytes_per_s", p.requested_bytes_per_s}, {"paced_bytes", p.paced_bytes}, {"ideal_s", p.ideal_s}, {"late_s", p.late_s},
          {"achieved_fraction", p.achieved_fraction()}};
}

nlohmann::json measured_timeline_json(const MeasuredTimeline& h, const nlohmann::json& ranks) {
  nlohmann::json doc;
  doc["format"] = "ckptsim-timeline/1";
  doc["source"] = "measured";
  doc["manifest"] = h.manifest;
  doc["manifest"]["plan_hash"] = h.plan_hash;
  doc["backend"] = h.backend;
  doc["command_line"] = h.command_line;
  doc["plan"] = {{"file", h.plan_file}, {"scenario", h.plan_scenario}, {"scheduler", h.plan_scheduler}, {"ranks", h.plan_ranks},
                 {"hash", h.plan_hash}};
  doc["paced_bandwidth_bytes_per_s"] = h.paced_bandwidth_bytes_per_s;
  auto pacing = nlohmann::json::array();
  for (const PacingReport& p : h.pacing) pacing.push_back(pacing_json(p));
  doc["pacing"] = std::move(pacing);
  doc["ranks"] = ranks;
  return doc;
}

MeasuredTimeline parse_measured_timeline(const nlohmann::json& doc, const std::string& file) {
  const JsonReader r(file);
  if (!doc.is_object()) r.fail("", "a measured timeline (a JSON object, ckptsim-replay -o)", std::string("a JSON ") + doc.type_name());
  MeasuredTimeline t;
  t.file = file;
  const std::string format = r.text(doc, "", "format");
  if (format != "ckptsim-timeline/1") r.fail("/format", "\"ckptsim-timeline/1\"", "\"" + format + "\"");
  t.manifest = r.object(doc, "", "manifest");
  t.plan_hash = r.text(t.manifest, "/manifest", "plan_hash");
  t.backend = r.text(doc, "", "backend");
  t.command_line = r.text(doc, "", "command_line");
  const auto& plan = r.object(doc, "", "plan");
  t.plan_file = r.text(plan, "/plan", "file");
  t.plan_scenario = r.text(plan, "/plan", "scenario");
  t.plan_scheduler = r.text(plan, "/plan", "scheduler");
  t.plan_ranks = r.integer(plan, "/plan", "ranks", 1, kMaxRanks);
  if (r.text(plan, "/plan", "hash") != t.plan_hash) r.fail("/plan/hash", "the hash in /manifest/plan_hash", r.text(plan, "/plan", "hash"));
  t.paced_bandwidth_bytes_per_s = r.number(doc, "", "paced_bandwidth_bytes_per_s", 0, 1e18);
  if (doc.contains("pacing")) {
    const auto& pacing = r.array(doc, "", "pacing");
    for (std::size_t k = 0; k < pacing.size(); ++k) {
      const std::string pp = fmt::format("/pacing/{}", k);
      PacingReport p;
      p.requested_bytes_per_s = r.number(pacing[k], pp, "requested_bytes_per_s", 0, 1e18);
      p.paced_bytes = r.number(pacing[k], pp, "paced_bytes", 0, 1e21);
      p.ideal_s = r.number(pacing[k], pp, "ideal_s", 0, 1e12);
      p.late_s = r.number(pacing[k], pp, "late_s", 0, 1e12);
      t.pacing.push_back(p);
    }
  }
  const auto& ranks = r.array(doc, "", "ranks");
  if (static_cast<int>(ranks.size()) != t.plan_ranks) {
    r.fail("/ranks", fmt::format("one entry per rank of the plan ({})", t.plan_ranks), fmt::format("{} entries", ranks.size()));
  }
  t.ranks.resize(ranks.size());
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    const std::string rp = fmt::format("/ranks/{}", k);
    // Ranks in order, each once: entry k is rank k (so a rank missing, repeated or out of range
    // shows up at the first entry that is not the next rank).
    const int rank = r.integer(ranks[k], rp, "rank", 0, kMaxRanks);
    if (rank != static_cast<int>(k)) r.fail(rp + "/rank", fmt::format("rank {} (entries are ranks 0..{} in order, each once)", k, t.plan_ranks - 1), fmt::format("{}", rank));
    MeasuredRank& mr = t.ranks[k];
    mr.rank = rank;
    const auto& its = r.array(ranks[k], rp, "iterations");
    if (its.empty()) r.fail(rp + "/iterations", "at least one measured iteration", "none");
    for (std::size_t i = 0; i < its.size(); ++i) mr.iterations.push_back(read_iteration(r, its[i], fmt::format("{}/iterations/{}", rp, i)));
  }
  // Every rank measured the same iterations (an iteration is one collective step of all ranks).
  for (std::size_t k = 1; k < t.ranks.size(); ++k) {
    const auto& a = t.ranks[0].iterations;
    const auto& b = t.ranks[k].iterations;
    if (b.size() != a.size()) {
      r.fail(fmt::format("/ranks/{}/iterations", k), fmt::format("{} iterations, as rank 0", a.size()), fmt::format("{}", b.size()));
    }
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (b[i].iteration != a[i].iteration) {
        r.fail(fmt::format("/ranks/{}/iterations/{}/iteration", k, i), fmt::format("iteration {}, as rank 0", a[i].iteration),
               fmt::format("{}", b[i].iteration));
      }
    }
  }
  return t;
}

}  // namespace ckptsim
