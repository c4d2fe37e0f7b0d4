#include "ckptsim/calibration/plan_file.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/scenario/scenario_json.hpp"
#include "json_reader.hpp"

namespace ckptsim {

namespace {

constexpr int kMaxOps = 1'000'000;

PlanOp read_op(const JsonReader& r, const nlohmann::json& j, const std::string& ptr, int position) {
  PlanOp op;
  op.id = r.integer(j, ptr, "id", position, position);
  const std::string kind = r.text(j, ptr, "kind");
  op.category = r.text(j, ptr, "category");
  op.stage = r.integer(j, ptr, "stage", -1, kMaxOps);
  op.name = j.contains("name") ? r.text(j, ptr, "name") : fmt::format("{} S{}", op.category, op.stage);
  const auto& deps = r.array(j, ptr, "deps");
  for (std::size_t k = 0; k < deps.size(); ++k) {
    const std::string dp = fmt::format("{}/deps/{}", ptr, k);
    if (!deps[k].is_number_integer()) r.fail(dp, "an operation id", deps[k].dump());
    const auto d = deps[k].get<long long>();
    if (d < 0 || d >= position) r.fail(dp, fmt::format("the id of an earlier operation (0..{})", position - 1), deps[k].dump());
    op.deps.push_back(static_cast<int>(d));
  }
  if (kind == "compute") {
    op.kind = OpKind::compute;
    op.flops = r.number(j, ptr, "flops", 0, 1e21);
    op.duration_s = r.number(j, ptr, "duration_s", 0, kMaxSeconds);
  } else if (kind == "collective") {
    if (op.category == "all-gather") op.kind = OpKind::all_gather;
    else if (op.category == "reduce-scatter") op.kind = OpKind::reduce_scatter;
    else if (op.category == "all-reduce") op.kind = OpKind::all_reduce;
    else r.fail(ptr + "/category", "\"all-gather\", \"reduce-scatter\" or \"all-reduce\" for a collective", "\"" + op.category + "\"");
    op.bytes = r.number(j, ptr, "bytes", 0, 1e15);
  } else if (kind != "marker") {
    r.fail(ptr + "/kind", "\"compute\", \"collective\" or \"marker\"", "\"" + kind + "\"");
  }
  if (j.contains("planned_start_s")) {
    op.planned = true;
    op.planned_start_s = r.number(j, ptr, "planned_start_s", 0, kMaxSeconds);
    op.planned_end_s = r.number(j, ptr, "planned_end_s", op.planned_start_s, kMaxSeconds);
  }
  return op;
}

PlanRank read_rank(const JsonReader& r, const PlanFile& plan, const nlohmann::json& j, const std::string& ptr, int position) {
  PlanRank pr;
  pr.rank = r.integer(j, ptr, "rank", position, position);
  const auto& peers = r.array(j, ptr, "peers");
  if (static_cast<int>(peers.size()) != plan.copies) {
    r.fail(ptr + "/peers", fmt::format("{} peers (one per remote copy)", plan.copies), fmt::format("{}", peers.size()));
  }
  for (std::size_t k = 0; k < peers.size(); ++k) {
    const std::string pp = fmt::format("{}/peers/{}", ptr, k);
    if (!peers[k].is_number_integer() || peers[k].get<long long>() < 0 || peers[k].get<long long>() >= plan.ranks ||
        peers[k].get<long long>() == position) {
      r.fail(pp, fmt::format("another rank in 0..{}", plan.ranks - 1), peers[k].dump());
    }
    pr.peers.push_back(peers[k].get<int>());
  }
  pr.local_copy_start_s = r.number(r.at(j, ptr, "local_copy", "an object"), ptr + "/local_copy", "planned_start_s", 0, kMaxSeconds);
  const auto& chunks = r.array(j, ptr, "chunks");
  const int d = static_cast<int>(plan.spans.size());
  std::vector<double> per_copy(static_cast<std::size_t>(plan.copies), 0.0);
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const std::string cp = fmt::format("{}/chunks/{}", ptr, k);
    PlanChunk c;
    c.index = r.integer(chunks[k], cp, "index", static_cast<int>(k), static_cast<int>(k));
    c.copy = r.integer(chunks[k], cp, "copy", 0, plan.copies - 1);
    c.peer = r.integer(chunks[k], cp, "peer", pr.peers[static_cast<std::size_t>(c.copy)], pr.peers[static_cast<std::size_t>(c.copy)]);
    c.span = r.integer(chunks[k], cp, "span", -1, d);
    c.offset_s = r.number(chunks[k], cp, "offset_s", 0, kMaxSeconds);
    c.planned_start_s = r.number(chunks[k], cp, "planned_start_s", 0, kMaxSeconds);
    c.bytes = r.number(chunks[k], cp, "bytes", 0, plan.chunk_limit_bytes * (1 + 1e-9) + 1);
    c.sub_buffer = r.integer(chunks[k], cp, "sub_buffer", 0, plan.sub_buffers - 1);
    per_copy[static_cast<std::size_t>(c.copy)] += c.bytes;
    pr.chunks.push_back(c);
  }
  for (int c = 0; c < plan.copies; ++c) {
    if (std::abs(per_copy[static_cast<std::size_t>(c)] - plan.shard_bytes) > 1.0 + 1e-9 * plan.shard_bytes) {
      r.fail(ptr + "/chunks", fmt::format("chunks of copy {} adding up to the shard ({} bytes)", c, plan.shard_bytes),
             fmt::format("{} bytes", per_copy[static_cast<std::size_t>(c)]));
    }
  }
  return pr;
}

void read_header(const JsonReader& r, const nlohmann::json& doc, PlanFile& plan, double memory_limit) {
  const std::string format = r.text(doc, "", "format");
  if (format != "ckptsim-plan/1") r.fail("/format", "\"ckptsim-plan/1\"", "\"" + format + "\"");
  plan.scenario = r.text(doc, "", "scenario");
  plan.scheduler = r.text(doc, "", "scheduler");
  const auto& cluster = r.at(doc, "", "cluster", "an object");
  plan.ranks = r.integer(cluster, "/cluster", "ranks", 1, kMaxRanks);
  plan.gpus_per_machine = r.integer(cluster, "/cluster", "gpus_per_machine", 1, kMaxRanks);
  const auto& p = r.at(doc, "", "parameters", "an object");
  plan.shard_bytes = r.number(p, "/parameters", "shard_bytes", 0, 1e15);
  plan.copies = r.integer(p, "/parameters", "copies", 0, plan.ranks - 1);
  plan.sub_buffers = r.integer(p, "/parameters", "sub_buffers", 1, 1 << 20);
  plan.chunk_limit_bytes = r.number(p, "/parameters", "chunk_limit_bytes", 0, 1e15);
  plan.alpha_s = r.number(p, "/parameters", "alpha_s", 0, kMaxSeconds);
  // A zero bandwidth would make every chunk take forever (and a replay paced "at the plan's
  // rate" never end).
  plan.bandwidth_bytes_per_s = r.number(p, "/parameters", "bandwidth_per_gpu_bytes_per_s", 1, 1e15);
  const auto& blocks = r.at(p, "/parameters", "blocks_training", "a boolean");
  if (!blocks.is_boolean()) r.fail("/parameters/blocks_training", "a boolean", blocks.dump());
  plan.blocks_training = blocks.get<bool>();
  // Memory each rank holds: its shard, its local CPU copy, a CPU replica per sender and the
  // receive sub-buffers (p per sender, each chunk_limit bytes).
  const double held = plan.shard_bytes * (2 + plan.copies) + plan.copies * plan.sub_buffers * plan.chunk_limit_bytes;
  if (held > memory_limit) {
    throw LimitError(fmt::format("{}: replaying this plan needs about {:.0f} MiB per rank (shard {:.0f} bytes, {} copies, {} "
                                 "sub-buffers of {:.0f} bytes), beyond the {:.0f} MiB limit (--memory-limit)",
                                 plan.file, held / (1 << 20), plan.shard_bytes, plan.copies, plan.sub_buffers,
                                 plan.chunk_limit_bytes, memory_limit / (1 << 20)));
  }
  const auto& s = r.at(doc, "", "summary", "an object");
  plan.predicted_iteration_with_checkpoint_s = r.number(s, "/summary", "iteration_time_with_checkpoint_s", 0, kMaxSeconds);
  plan.predicted_checkpoint_time_s = r.number(s, "/summary", "checkpoint_time_s", 0, kMaxSeconds);
}

}  // namespace

namespace {

// The training phase of each operation (plan_file.hpp, "Phases").
void assign_phases(std::vector<PlanOp>& ops) {
  for (PlanOp& op : ops) op.phase = op.kind == OpKind::compute ? op.category : op.kind == OpKind::marker ? "marker" : "other";
  for (const PlanOp& op : ops) {
    if (op.kind != OpKind::compute) continue;
    for (int d : op.deps) {
      PlanOp& dep = ops[static_cast<std::size_t>(d)];
      // Ids are in dependency order: the first consumer of an all-gather is met first; the last
      // producer of a reduce-scatter is its highest-id dependency, met when ops[d] is scanned.
      if (dep.kind == OpKind::all_gather && dep.phase == "other") dep.phase = op.category;
    }
  }
  for (PlanOp& op : ops) {
    if (op.kind != OpKind::reduce_scatter && op.kind != OpKind::all_reduce) continue;
    int producer = -1;
    for (int d : op.deps) {
      if (ops[static_cast<std::size_t>(d)].kind == OpKind::compute) producer = std::max(producer, d);
    }
    if (producer >= 0) op.phase = ops[static_cast<std::size_t>(producer)].category;
  }
}

}  // namespace

const char* to_string(OpKind kind) {
  switch (kind) {
    case OpKind::compute: return "compute";
    case OpKind::all_gather: return "all-gather";
    case OpKind::reduce_scatter: return "reduce-scatter";
    case OpKind::all_reduce: return "all-reduce";
    case OpKind::marker: return "marker";
  }
  return "?";
}

std::string plan_hash(const nlohmann::json& doc) { return fmt::format("{:016x}", fnv1a_64(doc.dump())); }

PlanFile read_plan_file(const std::string& path, double memory_limit_bytes) {
  return parse_plan_file(read_json_file(path, "a plan file (ckptsim schedule -o)"), path, memory_limit_bytes);
}

PlanFile parse_plan_file(const nlohmann::json& doc, const std::string& path, double memory_limit_bytes) {
  const JsonReader r(path);
  if (!doc.is_object()) r.fail("", "a plan (a JSON object, ckptsim schedule -o)", std::string("a JSON ") + doc.type_name());
  PlanFile plan;
  plan.file = path;
  plan.hash = plan_hash(doc);
  read_header(r, doc, plan, memory_limit_bytes);
  const auto& it = r.at(doc, "", "iteration", "an object");
  plan.iteration_time_s = r.number(it, "/iteration", "iteration_time_s", 0, kMaxSeconds);
  const std::string profile = r.text(it, "/iteration", "profile");
  if (profile != "simulated" && profile != "imported") r.fail("/iteration/profile", "\"simulated\" or \"imported\"", "\"" + profile + "\"");
  plan.imported_profile = profile == "imported";
  const auto& ops = r.array(it, "/iteration", "operations");
  if (ops.size() > static_cast<std::size_t>(kMaxOps)) r.fail("/iteration/operations", fmt::format("at most {} operations", kMaxOps), fmt::format("{}", ops.size()));
  for (std::size_t k = 0; k < ops.size(); ++k) {
    plan.ops.push_back(read_op(r, ops[k], fmt::format("/iteration/operations/{}", k), static_cast<int>(k)));
    if (plan.ops.back().category == "optimizer") plan.optimizer_op = static_cast<int>(k);
  }
  if (plan.optimizer_op < 0) r.fail("/iteration/operations", "an operation of category \"optimizer\"", "none");
  for (std::size_t k = 0; k < plan.ops.size(); ++k) {
    if (plan.ops[k].planned == plan.imported_profile && plan.ops[k].kind != OpKind::marker) {
      r.fail(fmt::format("/iteration/operations/{}/planned_start_s", k),
             plan.imported_profile ? "no planned times (the iteration's profile was imported)" : "planned times (the iteration was simulated)",
             plan.ops[k].planned ? "planned times" : "nothing");
    }
  }
  assign_phases(plan.ops);
  // Collective buffers: a rank's block is bytes / (ranks - 1); send and receive hold all ranks' blocks.
  double largest = 0;
  for (const PlanOp& op : plan.ops) largest = std::max(largest, op.bytes);
  const double coll = plan.ranks > 1 ? 2.0 * largest / (plan.ranks - 1) * plan.ranks : 0.0;
  if (coll > memory_limit_bytes || largest / std::max(1, plan.ranks - 1) > 2e9) {
    throw LimitError(fmt::format("{}: the largest collective ({:.0f} bytes per rank stream) needs {:.0f} MiB of buffers per "
                                 "rank, beyond the {:.0f} MiB limit (--memory-limit) or MPI's 2 GB message count",
                                 path, largest, coll / (1 << 20), memory_limit_bytes / (1 << 20)));
  }
  const auto& spans = r.array(it, "/iteration", "idle_spans");
  for (std::size_t k = 0; k < spans.size(); ++k) {
    const std::string sp = fmt::format("/iteration/idle_spans/{}", k);
    PlanSpan s;
    s.start_s = r.number(spans[k], sp, "start_s", 0, kMaxSeconds);
    s.length_s = r.number(spans[k], sp, "length_s", 0, kMaxSeconds);
    s.after_op = r.integer(spans[k], sp, "after_op", -1, static_cast<int>(plan.ops.size()) - 1);
    plan.spans.push_back(s);
  }
  const auto& ranks = r.array(doc, "", "ranks");
  if (static_cast<int>(ranks.size()) != plan.ranks) {
    r.fail("/ranks", fmt::format("{} entries (/cluster/ranks)", plan.ranks), fmt::format("{}", ranks.size()));
  }
  for (std::size_t k = 0; k < ranks.size(); ++k) {
    plan.rank_plans.push_back(read_rank(r, plan, ranks[k], fmt::format("/ranks/{}", k), static_cast<int>(k)));
  }
  return plan;
}

}  // namespace ckptsim
