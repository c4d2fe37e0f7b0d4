// Megatron-LM's 1F1B and interleaved pipeline schedules and their timing (pipeline_schedule.hpp).
#include "ckptsim/workload/pipeline_schedule.hpp"

#include <algorithm>
#include <cassert>
#include <optional>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {
namespace {

/// Megatron's schedule table (schedules.py, get_schedule_table): forwards in groups of n
/// contiguous micro-batches, each group through chunk 0, then chunk 1, ...; the last group takes
/// every micro-batch left. Entry k is the k-th forward (micro-batch, chunk).
std::vector<PipelineOp> schedule_table(int v, int m, int n) {
  std::vector<PipelineOp> table;
  table.reserve(static_cast<std::size_t>(m) * static_cast<std::size_t>(v));
  for (int first = 0; first < m; first += n) {
    const int end = first + n >= m ? m : first + n;
    for (int c = 0; c < v; ++c)
      for (int mb = first; mb < end; ++mb) table.push_back({true, c, mb});
    if (end == m) break;
  }
  return table;
}

}  // namespace

std::vector<PipelineOp> pipeline_order(int p, int v, int m, int rank, int group) {
  std::vector<PipelineOp> out;
  const int total = m * v;
  const int n = group > 0 ? group : p;
  out.reserve(static_cast<std::size_t>(2 * total));
  // Warm-up (schedules.py, get_pp_rank_microbatches): p - r - 1 for 1F1B; 2(p - r - 1) + (v - 1)n
  // interleaved; at most every forward ("all warm-up").
  const int warmup = std::min(v == 1 ? p - rank - 1 : 2 * (p - rank - 1) + (v - 1) * n, total);
  std::vector<PipelineOp> table;
  if (v > 1) table = schedule_table(v, m, n);
  auto fwd = [&](int k) { return v == 1 ? PipelineOp{true, 0, k} : table[static_cast<std::size_t>(k)]; };
  auto bwd = [&](int k) {
    if (v == 1) return PipelineOp{false, 0, k};
    const PipelineOp& f = table[static_cast<std::size_t>(k)];
    return PipelineOp{false, v - 1 - f.chunk, f.micro_batch};  // get_model_chunk_id(forward=False)
  };
  for (int k = 0; k < warmup; ++k) out.push_back(fwd(k));
  for (int i = 0; i < total - warmup; ++i) {
    out.push_back(fwd(warmup + i));
    out.push_back(bwd(i));
  }
  for (int k = total - warmup; k < total; ++k) out.push_back(bwd(k));
  return out;
}

std::vector<int> peak_held(const std::vector<TimedOp>& ops, const std::vector<double>& per_chunk) {
  std::vector<int> held(per_chunk.size(), 0), at_peak = held;
  double bytes = 0, peak = 0;
  for (const TimedOp& t : ops) {
    const auto c = static_cast<std::size_t>(t.op.chunk);
    if (t.op.forward) {
      ++held.at(c);
      bytes += per_chunk.at(c);
      if (bytes > peak) {
        peak = bytes;
        at_peak = held;
      }
    } else {
      --held.at(c);
      bytes -= per_chunk.at(c);
    }
  }
  return at_peak;
}

PipelineCosts PipelineCosts::uniform(int p, int v, int m, SimTime forward, SimTime backward, SimTime p2p) {
  PipelineCosts c;
  c.p = p;
  c.v = v;
  c.m = m;
  c.forward.assign(static_cast<std::size_t>(p), std::vector<SimTime>(static_cast<std::size_t>(v), forward));
  c.backward.assign(static_cast<std::size_t>(p), std::vector<SimTime>(static_cast<std::size_t>(v), backward));
  c.p2p_forward = p2p;
  c.p2p_backward = p2p;
  return c;
}

double PipelineRun::bubble_fraction(int rank) const {
  if (makespan <= SimTime::zero()) return 0;
  return 1.0 - static_cast<double>(busy[static_cast<std::size_t>(rank)].ns()) / static_cast<double>(makespan.ns());
}

PipelineRun run_pipeline(const PipelineCosts& c) {
  if (c.p < 1 || c.v < 1 || c.m < 1) throw ModelError("/training/megatron", "pipeline sizes must be at least 1");
  const int n = c.group > 0 ? c.group : c.p;
  if (c.v > 1 && (n < c.p || n > c.m))
    throw ModelError("/training/megatron/microbatch_group_size",
                     fmt::format("the interleaved schedule needs a micro-batch group size in [pp, micro_batches] = [{}, {}], found {}",
                                 c.p, c.m, n));
  if (c.v > 1 && c.m % n != 0 && c.m % n < c.p)
    throw ModelError("/training/megatron/micro_batches",
                     fmt::format("the interleaved schedule needs micro_batches ({}) mod the group size ({}) to be 0 or at least pp ({})",
                                 c.m, n, c.p));
  const auto P = static_cast<std::size_t>(c.p), V = static_cast<std::size_t>(c.v), M = static_cast<std::size_t>(c.m);
  if (c.forward.size() != P || c.backward.size() != P) throw ModelError("/training/megatron", "pipeline costs per rank");
  const std::size_t stages = P * V;
  // Ends of each virtual stage's forward and backward per micro-batch.
  std::vector<std::optional<SimTime>> f_end(stages * M), b_end(stages * M);
  auto at = [&](std::size_t k, int mb) { return k * M + static_cast<std::size_t>(mb); };

  PipelineRun run;
  run.ranks.resize(P);
  run.transfers.resize(P);
  run.rank_end.assign(P, SimTime::zero());
  run.busy.assign(P, SimTime::zero());
  run.last_backward_start.assign(P, SimTime::zero());
  run.peak_in_flight.assign(P, std::vector<int>(V, 0));
  std::vector<std::vector<PipelineOp>> order(P);
  std::vector<std::size_t> next(P, 0);
  std::vector<SimTime> free_at(P, SimTime::zero());
  std::vector<std::vector<int>> in_flight(P, std::vector<int>(V, 0));
  std::vector<int> in_flight_total(P, 0), peak_total(P, 0);
  std::size_t remaining = 0;
  for (std::size_t r = 0; r < P; ++r) {
    order[r] = pipeline_order(c.p, c.v, c.m, static_cast<int>(r), n);
    remaining += order[r].size();
  }
  const auto rank_of = [&](std::size_t k) { return k % P; };
  while (remaining > 0) {
    bool moved = false;
    for (std::size_t r = 0; r < P; ++r) {
      while (next[r] < order[r].size()) {
        const PipelineOp op = order[r][next[r]];
        const std::size_t k = static_cast<std::size_t>(op.chunk) * P + r;
        std::optional<SimTime> ready;
        if (op.forward) {
          if (k == 0) ready = SimTime::zero();
          else if (const auto& e = f_end[at(k - 1, op.micro_batch)]) ready = *e + c.p2p_forward;
        } else if (k + 1 == stages) {
          ready = f_end[at(k, op.micro_batch)];
        } else if (const auto& e = b_end[at(k + 1, op.micro_batch)]) {
          ready = *e + c.p2p_backward;
        }
        if (!ready) break;
        const SimTime start = std::max(free_at[r], *ready);
        const auto ch = static_cast<std::size_t>(op.chunk);
        const SimTime length = op.forward ? c.forward[r][ch] : c.backward[r][ch];
        const SimTime end = start + length;
        (op.forward ? f_end : b_end)[at(k, op.micro_batch)] = end;
        // The transfer this operation's input took (received by r, sent by the neighbour).
        const bool received = op.forward ? k > 0 : k + 1 < stages;
        if (received) {
          const SimTime transfer = op.forward ? c.p2p_forward : c.p2p_backward;
          const PipelineSpan iv{*ready - transfer, *ready};
          if (transfer > SimTime::zero()) {
            run.transfers[r].push_back(iv);
            run.transfers[rank_of(op.forward ? k - 1 : k + 1)].push_back(iv);
          }
        }
        run.ranks[r].push_back({op, start, end});
        run.busy[r] += length;
        free_at[r] = end;
        if (op.forward) {
          ++in_flight[r][ch];
          if (++in_flight_total[r] > peak_total[r]) {
            peak_total[r] = in_flight_total[r];
            run.peak_in_flight[r] = in_flight[r];
          }
        } else {
          --in_flight[r][ch];
          --in_flight_total[r];
          run.last_backward_start[r] = start;
        }
        ++next[r];
        --remaining;
        moved = true;
      }
    }
    // Megatron's orders never deadlock; a stall here is a bug in the order above.
    assert(moved && "pipeline schedule deadlocked");
    if (!moved) throw ModelError("/training/megatron", "the pipeline schedule deadlocked (internal error)");
  }
  for (std::size_t r = 0; r < P; ++r) {
    run.rank_end[r] = free_at[r];
    run.makespan = std::max(run.makespan, free_at[r]);
    std::sort(run.transfers[r].begin(), run.transfers[r].end(),
              [](const PipelineSpan& a, const PipelineSpan& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
  }
  return run;
}

}  // namespace ckptsim
