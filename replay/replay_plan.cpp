#include "replay_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"

namespace ckptsim::replay {

namespace {

// Reads typed fields, naming the file and RFC 6901 pointer of whatever is wrong.
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  const nlohmann::json& at(const nlohmann::json& parent, const std::string& pointer, const char* key, const char* expected) const {
    if (!parent.is_object() || !parent.contains(key)) throw InputError(file_, pointer + "/" + key, expected, "nothing");
    return parent.at(key);
  }
  double number(const nlohmann::json& parent, const std::string& pointer, const char* key, double lo = 0,
                double hi = 1e18) const {
    const auto& v = at(parent, pointer, key, "a number");
    const std::string where = pointer + "/" + key;
    if (!v.is_number()) throw InputError(file_, where, "a number", v.dump());
    const double x = v.get<double>();
    if (!std::isfinite(x) || x < lo || x > hi) throw InputError(file_, where, fmt::format("a number in [{}, {}]", lo, hi), v.dump());
    return x;
  }
  int integer(const nlohmann::json& parent, const std::string& pointer, const char* key, int lo, int hi) const {
    const auto& v = at(parent, pointer, key, "an integer");
    const std::string where = pointer + "/" + key;
    if (!v.is_number_integer()) throw InputError(file_, where, "an integer", v.dump());
    const auto x = v.get<long long>();
    if (x < lo || x > hi) throw InputError(file_, where, fmt::format("an integer in [{}, {}]", lo, hi), v.dump());
    return static_cast<int>(x);
  }
  std::string text(const nlohmann::json& parent, const std::string& pointer, const char* key) const {
    const auto& v = at(parent, pointer, key, "a string");
    if (!v.is_string()) throw InputError(file_, pointer + "/" + key, "a string", v.dump());
    return v.get<std::string>();
  }
  const nlohmann::json& array(const nlohmann::json& parent, const std::string& pointer, const char* key) const {
    const auto& v = at(parent, pointer, key, "an array");
    if (!v.is_array()) throw InputError(file_, pointer + "/" + key, "an array", v.dump().substr(0, 60));
    return v;
  }
  [[noreturn]] void fail(const std::string& pointer, const std::string& expected, const std::string& found) const {
    throw InputError(file_, pointer, expected, found);
  }

 private:
  std::string file_;
};

constexpr int kMaxOps = 1'000'000;
constexpr int kMaxRanks = 65'536;
constexpr double kMaxSeconds = 1e6;

PlanOp read_op(const Reader& r, const nlohmann::json& j, const std::string& ptr, int position) {
  PlanOp op;
  op.id = r.integer(j, ptr, "id", position, position);
  const std::string kind = r.text(j, ptr, "kind");
  op.category = r.text(j, ptr, "category");
  op.stage = r.integer(j, ptr, "stage", -1, kMaxOps);
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
    op.planned_start_s = r.number(j, ptr, "planned_start_s", 0, kMaxSeconds);
    op.planned_end_s = r.number(j, ptr, "planned_end_s", op.planned_start_s, kMaxSeconds);
  }
  return op;
}

PlanRank read_rank(const Reader& r, const ReplayPlan& plan, const nlohmann::json& j, const std::string& ptr, int position) {
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

void read_header(const Reader& r, const nlohmann::json& doc, ReplayPlan& plan, double memory_limit) {
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
  plan.bandwidth_bytes_per_s = r.number(p, "/parameters", "bandwidth_per_gpu_bytes_per_s", 0, 1e15);
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

ReplayPlan load_replay_plan(const std::string& path, double memory_limit_bytes) {
  const nlohmann::json doc = read_json_file(path, "a replay plan");
  const Reader r(path);
  ReplayPlan plan;
  plan.file = path;
  read_header(r, doc, plan, memory_limit_bytes);
  const auto& it = r.at(doc, "", "iteration", "an object");
  plan.iteration_time_s = r.number(it, "/iteration", "iteration_time_s", 0, kMaxSeconds);
  const auto& ops = r.array(it, "/iteration", "operations");
  if (ops.size() > static_cast<std::size_t>(kMaxOps)) r.fail("/iteration/operations", fmt::format("at most {} operations", kMaxOps), fmt::format("{}", ops.size()));
  for (std::size_t k = 0; k < ops.size(); ++k) {
    plan.ops.push_back(read_op(r, ops[k], fmt::format("/iteration/operations/{}", k), static_cast<int>(k)));
    if (plan.ops.back().category == "optimizer") plan.optimizer_op = static_cast<int>(k);
  }
  if (plan.optimizer_op < 0) r.fail("/iteration/operations", "an operation of category \"optimizer\"", "none");
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

}  // namespace ckptsim::replay
