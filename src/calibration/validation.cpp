#include "ckptsim/calibration/validation.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

double quantile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const double pos = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (pos - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

ErrorStats error_stats(const std::vector<double>& e) {
  ErrorStats s;
  s.samples = e.size();
  if (e.empty()) return s;
  std::vector<double> abs;
  for (double x : e) abs.push_back(std::abs(x));
  s.median = quantile(e, 0.5);
  s.median_abs = quantile(abs, 0.5);
  s.p90_abs = quantile(abs, 0.9);
  return s;
}

double union_length(std::vector<std::pair<double, double>> iv, double limit) {
  std::sort(iv.begin(), iv.end());
  double total = 0, cur_s = 0, cur_e = -1;
  for (auto [s, e] : iv) {
    s = std::max(0.0, s), e = std::min(limit, e);
    if (e <= s) continue;
    if (s > cur_e) {
      if (cur_e > cur_s) total += cur_e - cur_s;
      cur_s = s, cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (cur_e > cur_s) total += cur_e - cur_s;
  return total;
}

namespace {

double relative(double measured, double predicted) { return (measured - predicted) / predicted; }

void check_identity(const PlanFile& plan, const MeasuredTimeline& m) {
  if (plan.imported_profile) {
    throw InputError(plan.file, "/iteration/profile", "a simulated plan (planned operation times to compare with)",
                     "\"imported\": a plan from a measured profile predicts no operation times");
  }
  if (!(plan.predicted_iteration_with_checkpoint_s > 0)) {
    throw InputError(plan.file, "/summary/iteration_time_with_checkpoint_s", "a positive predicted iteration time", "0");
  }
  if (m.plan_hash != plan.hash) {
    throw InputError(m.file, "/manifest/plan_hash", fmt::format("the hash of {} ({}): a replay of that plan", plan.file, plan.hash),
                     fmt::format("{} (recorded from {}, another plan)", m.plan_hash, m.plan_file));
  }
  if (m.plan_scheduler != plan.scheduler) {
    throw InputError(m.file, "/plan/scheduler", fmt::format("\"{}\", the scheduler of {}", plan.scheduler, plan.file), "\"" + m.plan_scheduler + "\"");
  }
  if (m.plan_ranks != plan.ranks) {
    throw InputError(m.file, "/plan/ranks", fmt::format("{} ranks, as {}", plan.ranks, plan.file), fmt::format("{}", m.plan_ranks));
  }
}

struct Collector {
  std::map<std::string, std::vector<double>> kind, phase;
  std::size_t not_compared = 0;
  void add(const std::string& k, const std::string& p, double measured, double predicted) {
    if (!(predicted > 0)) {
      ++not_compared;
      return;
    }
    kind[k].push_back(relative(measured, predicted));
    phase[p].push_back(relative(measured, predicted));
  }
};

// One rank's iteration: every planned operation and chunk, once; returns its idle time.
double compare_rank_iteration(const PlanFile& plan, const MeasuredTimeline& m, int rank, std::size_t i, Collector& c) {
  const MeasuredIteration& it = m.ranks[static_cast<std::size_t>(rank)].iterations[i];
  const std::string base = fmt::format("/ranks/{}/iterations/{}", rank, i);
  std::vector<const MeasuredOp*> by_id(plan.ops.size(), nullptr);
  for (std::size_t k = 0; k < it.operations.size(); ++k) {
    const MeasuredOp& op = it.operations[k];
    const std::string ptr = fmt::format("{}/operations/{}", base, k);
    if (op.id >= static_cast<int>(plan.ops.size()) || plan.ops[static_cast<std::size_t>(op.id)].kind == OpKind::marker) {
      throw InputError(m.file, ptr + "/id", fmt::format("the id of a non-marker operation of {}", plan.file), fmt::format("{}", op.id));
    }
    const PlanOp& p = plan.ops[static_cast<std::size_t>(op.id)];
    if (op.kind != to_string(p.kind)) throw InputError(m.file, ptr + "/kind", fmt::format("\"{}\", as operation {} of the plan", to_string(p.kind), p.id), "\"" + op.kind + "\"");
    by_id[static_cast<std::size_t>(op.id)] = &op;
  }
  std::vector<std::pair<double, double>> busy;
  for (const PlanOp& p : plan.ops) {
    if (p.kind == OpKind::marker) continue;
    const MeasuredOp* op = by_id[static_cast<std::size_t>(p.id)];
    if (!op) throw InputError(m.file, base + "/operations", fmt::format("every non-marker operation of {} once", plan.file), fmt::format("no operation {}", p.id));
    c.add(to_string(p.kind), p.phase, op->span.length(), p.planned_end_s - p.planned_start_s);
    if (p.kind != OpKind::compute) busy.emplace_back(op->span.start_s, op->span.end_s);
  }
  const auto& chunks = plan.rank_plans[static_cast<std::size_t>(rank)].chunks;
  if (it.sends.size() != chunks.size()) {
    throw InputError(m.file, base + "/sends", fmt::format("the {} chunks rank {} was planned to send", chunks.size(), rank), fmt::format("{} sends", it.sends.size()));
  }
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    const MeasuredSend& s = it.sends[k];
    if (s.index != chunks[k].index || s.peer != chunks[k].peer) {
      throw InputError(m.file, fmt::format("{}/sends/{}", base, k), fmt::format("chunk {} to rank {} (the plan's send order)", chunks[k].index, chunks[k].peer),
                       fmt::format("chunk {} to rank {}", s.index, s.peer));
    }
    c.add("checkpoint-send", "checkpoint", s.span.length(), plan.alpha_s + chunks[k].bytes / plan.bandwidth_bytes_per_s);
  }
  std::size_t incoming = 0;
  for (const PlanRank& pr : plan.rank_plans) {
    for (const PlanChunk& ch : pr.chunks) incoming += ch.peer == rank ? 1 : 0;
  }
  if (it.copies.size() != incoming) {
    throw InputError(m.file, base + "/copies", fmt::format("the {} chunks rank {} was planned to receive", incoming, rank), fmt::format("{} copies", it.copies.size()));
  }
  return it.iteration_time_s - union_length(busy, it.iteration_time_s);
}

}  // namespace

Validation validate(const PlanFile& plan, const MeasuredTimeline& m, double tolerance) {
  check_identity(plan, m);
  Validation v;
  v.tolerance = tolerance;
  std::vector<std::pair<double, double>> planned_busy;
  for (const PlanOp& p : plan.ops) {
    if (is_collective(p.kind)) planned_busy.emplace_back(p.planned_start_s, p.planned_end_s);
  }
  const double predicted_iteration = plan.predicted_iteration_with_checkpoint_s;
  const double predicted_idle = predicted_iteration - union_length(planned_busy, predicted_iteration);
  Collector c;
  std::vector<double> iter_e, idle_e, ckpt_e;
  const std::size_t iterations = m.ranks.front().iterations.size();
  for (std::size_t i = 0; i < iterations; ++i) {
    double iter = 0, idle = 0, ckpt = 0;
    for (int r = 0; r < plan.ranks; ++r) {
      const MeasuredIteration& it = m.ranks[static_cast<std::size_t>(r)].iterations[i];
      idle = std::max(idle, compare_rank_iteration(plan, m, r, i, c));
      iter = std::max(iter, it.iteration_time_s);
      ckpt = std::max(ckpt, it.checkpoint_time_s);
    }
    if (predicted_iteration > 0) iter_e.push_back(relative(iter, predicted_iteration));
    if (predicted_idle > 0) idle_e.push_back(relative(idle, predicted_idle));
    if (plan.predicted_checkpoint_time_s > 0) ckpt_e.push_back(relative(ckpt, plan.predicted_checkpoint_time_s));
    v.iterations.push_back({m.ranks.front().iterations[i].iteration, iter, predicted_iteration,
                            predicted_iteration > 0 ? relative(iter, predicted_iteration) : 0.0});
  }
  for (const auto& [k, e] : c.kind) v.by_kind[k] = error_stats(e);
  for (const auto& [p, e] : c.phase) v.by_phase[p] = error_stats(e);
  v.not_compared = c.not_compared;
  v.iteration = error_stats(iter_e);
  v.idle = error_stats(idle_e);
  v.checkpoint_completion = error_stats(ckpt_e);
  auto gate = [&](const ErrorStats& s) {
    if (s.samples > 0 && s.median_abs > tolerance) v.pass = false;
  };
  for (const auto& [k, s] : v.by_kind) gate(s);
  gate(v.iteration);
  gate(v.idle);
  gate(v.checkpoint_completion);
  return v;
}

Validation validate_profile(const PlanFile& plan, const std::vector<ProfiledRank>& profiled, double tolerance) {
  if (plan.imported_profile) {
    throw InputError(plan.file, "/iteration/profile", "a simulated plan (planned operation times to compare with)", "\"imported\"");
  }
  double compute = 0, all_gather = 0, reduce_scatter = 0, all_reduce = 0;
  std::vector<std::pair<double, double>> busy;
  for (const PlanOp& p : plan.ops) {
    const double d = p.planned_end_s - p.planned_start_s;
    if (p.kind == OpKind::compute) compute += d;
    if (p.kind == OpKind::all_gather) all_gather += d;
    if (p.kind == OpKind::reduce_scatter) reduce_scatter += d;
    if (p.kind == OpKind::all_reduce) all_reduce += d;
    if (is_collective(p.kind)) busy.emplace_back(p.planned_start_s, p.planned_end_s);
  }
  const double iteration = plan.iteration_time_s;
  const double idle = iteration - union_length(busy, iteration);
  std::map<std::string, std::vector<double>> kinds;
  std::vector<double> iter_e, idle_e;
  Validation v;
  v.tolerance = tolerance;
  for (const ProfiledRank& r : profiled) {
    for (const ProfiledStep& s : r.steps) {
      double gpu = 0, ag = 0, rs = 0, ar = 0;
      for (const auto& [name, c] : s.classes) {
        if (name != "nccl" && name.rfind("memcpy", 0) != 0 && name != "memset") gpu += c.seconds;
      }
      for (const ProfiledCollective& c : s.collectives) {
        if (c.collective.rfind("allgather", 0) == 0) ag += c.seconds;
        if (c.collective.rfind("reducescatter", 0) == 0) rs += c.seconds;
        if (c.collective.rfind("allreduce", 0) == 0) ar += c.seconds;
      }
      if (compute > 0) kinds["compute"].push_back(relative(gpu, compute));
      if (all_gather > 0) kinds["all-gather"].push_back(relative(ag, all_gather));
      if (reduce_scatter > 0) kinds["reduce-scatter"].push_back(relative(rs, reduce_scatter));
      if (all_reduce > 0) kinds["all-reduce"].push_back(relative(ar, all_reduce));
      if (iteration > 0) iter_e.push_back(relative(s.iteration_time_s, iteration));
      if (idle > 0) idle_e.push_back(relative(s.iteration_time_s - s.network_busy_s, idle));
      v.iterations.push_back({s.step, s.iteration_time_s, iteration, iteration > 0 ? relative(s.iteration_time_s, iteration) : 0.0});
    }
  }
  for (const auto& [k, e] : kinds) v.by_kind[k] = error_stats(e);
  v.iteration = error_stats(iter_e);
  v.idle = error_stats(idle_e);
  for (const auto& [k, s] : v.by_kind) v.pass = v.pass && s.median_abs <= tolerance;
  v.pass = v.pass && v.iteration.median_abs <= tolerance && v.idle.median_abs <= tolerance;
  return v;
}

}  // namespace ckptsim
