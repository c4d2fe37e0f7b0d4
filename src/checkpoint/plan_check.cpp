// The contract of a checkpoint plan (plan_check.hpp).
#include "ckptsim/checkpoint/plan_check.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

constexpr double kPlanBytesTolerance = 1e-9;

/// Seconds for messages: nine significant digits, so that whole seconds print whole.
std::string plan_seconds(SimTime t) { return fmt::format("{:.9g}", t.seconds()); }

bool plan_offset_in_range(SimTime t) { return t >= SimTime::zero() && t < kLongestPlanOffset; }

/// Where a chunk's span begins on the clock (span in -1..d): 0 before training (-1), the idle
/// span's start (0..d-1), or after the last span (d) its end, 0 without spans.
SimTime plan_span_base(int span, const std::vector<IdleSpan>& spans) {
  const int d = static_cast<int>(spans.size());
  if (span == -1) return SimTime::zero();
  if (span == d) return spans.empty() ? SimTime::zero() : spans.back().start + spans.back().length;
  return spans[static_cast<std::size_t>(span)].start;
}

/// Whether a chunk can be placed on the clock: its span in -1..d and its offset in range.
bool placeable_chunk(const PlannedChunk& c, int d) { return c.span >= -1 && c.span <= d && plan_offset_in_range(c.offset); }

bool close_bytes(double a, double b, double scale) { return std::abs(a - b) <= kPlanBytesTolerance * std::max(1.0, scale); }

std::string plan_span_text(int span, int d) {
  if (span == -1) return "-1 (before training)";
  if (span == d) return fmt::format("{} (after the last span)", d);
  return std::to_string(span);
}

/// The first rule `plan` breaks, or "" (the header's list, in order).
std::string broken_plan_rule(const CheckpointPlan& plan, const ScheduleInput& in) {
  const int d = static_cast<int>(in.spans.size());
  if (plan.shard_bytes != in.shard_bytes)
    return fmt::format("its shard_bytes is {}, the input's {} (plan_for(input) fills it in)", plan.shard_bytes, in.shard_bytes);
  if (plan.copies != in.copies) return fmt::format("its copies is {}, the input's {}", plan.copies, in.copies);
  if (plan.spans.size() != in.spans.size()) return fmt::format("it has {} spans, the input {}", plan.spans.size(), in.spans.size());
  for (std::size_t k = 0; k < in.spans.size(); ++k)
    if (plan.spans[k].start != in.spans[k].start || plan.spans[k].length != in.spans[k].length)
      return fmt::format("its span {} differs from the input's", k);
  if (plan.sub_buffers < 1) return fmt::format("sub_buffers is {}, expected at least 1", plan.sub_buffers);
  if (!(std::isfinite(plan.chunk_limit) && plan.chunk_limit >= 0))
    return fmt::format("chunk_limit is {}, expected a finite number of bytes, zero or more", plan.chunk_limit);
  if (!plan_offset_in_range(plan.local_copy_start))
    return fmt::format("local_copy_start is {} s, expected 0 or more and below {} s", plan_seconds(plan.local_copy_start),
                       plan_seconds(kLongestPlanOffset));
  std::vector<double> per_copy(static_cast<std::size_t>(std::max(0, in.copies)), 0.0);
  double leftover = 0;
  SimTime leftover_end;
  for (std::size_t i = 0; i < plan.chunks.size(); ++i) {
    const PlannedChunk& c = plan.chunks[i];
    const auto at = [&](const std::string& what) { return fmt::format("chunk {}: {}", i, what); };
    if (c.index != static_cast<int>(i)) return at(fmt::format("its index is {}, expected its place in the list, {}", c.index, i));
    if (c.copy < 0 || c.copy >= in.copies)
      return at(fmt::format("its copy is {}, expected 0 to {} (copies m - 1 = {})", c.copy, in.copies - 1, in.copies));
    if (!(std::isfinite(c.bytes) && c.bytes > 0)) return at(fmt::format("its bytes are {}, expected a finite number above 0", c.bytes));
    if (c.bytes > in.shard_bytes * (1 + kPlanBytesTolerance))
      return at(fmt::format("its {} bytes exceed the shard's {}", c.bytes, in.shard_bytes));
    if (c.bytes > plan.chunk_limit * (1 + kPlanBytesTolerance))
      return at(fmt::format("its {} bytes exceed the plan's chunk_limit of {}", c.bytes, plan.chunk_limit));
    if (c.sub_buffer != c.index % plan.sub_buffers)
      return at(fmt::format("its sub_buffer is {}, expected index mod sub_buffers = {}", c.sub_buffer, c.index % plan.sub_buffers));
    if (c.span < -1 || c.span > d)
      return at(fmt::format("its span is {}, expected -1 (before training, blocking plans), 0 to {} (the idle spans) or {} "
                            "(after the last span)",
                            c.span, d - 1, d));
    if (plan.blocks_training != (c.span == -1))
      return at(plan.blocks_training ? fmt::format("its span is {}, and a plan that blocks training sends every chunk before "
                                                   "training (span -1)",
                                                   plan_span_text(c.span, d))
                                     : "its span is -1 (before training), which only a plan that blocks training may use");
    if (!plan_offset_in_range(c.offset))
      return at(fmt::format("its offset is {} s, expected 0 or more and below {} s", plan_seconds(c.offset), plan_seconds(kLongestPlanOffset)));
    if (c.span >= 0 && c.span < d && c.offset >= in.spans[static_cast<std::size_t>(c.span)].length)
      return at(fmt::format("it starts {} s into span {}, which lasts {} s: outside the span", plan_seconds(c.offset), c.span,
                            plan_seconds(in.spans[static_cast<std::size_t>(c.span)].length)));
    const SimTime base = plan_span_base(c.span, in.spans);
    if (c.planned_start != base + c.offset)
      return at(fmt::format("its planned_start is {} s, expected its span's start plus its offset, {} s", plan_seconds(c.planned_start),
                            plan_seconds(base + c.offset)));
    per_copy[static_cast<std::size_t>(c.copy)] += c.bytes;
    if (c.span == d) {
      leftover += c.bytes;
      const SimTime send = in.bandwidth > 0 ? transfer_time(c.bytes, in.bandwidth) : SimTime::zero();
      leftover_end = std::max(leftover_end, c.offset + in.alpha + send);
    }
  }
  for (std::size_t j = 0; j < per_copy.size(); ++j)
    if (!close_bytes(per_copy[j], in.shard_bytes, in.shard_bytes))
      return fmt::format("the chunks of copy {} add up to {} bytes, expected the shard's {}", j, per_copy[j], in.shard_bytes);
  if (!close_bytes(plan.leftover_bytes, leftover, in.shard_bytes))
    return fmt::format("leftover_bytes is {}, the chunks after the last span hold {}", plan.leftover_bytes, leftover);
  if (plan.leftover_time != leftover_end)
    return fmt::format("leftover_time is {} s, the chunks after the last span end {} s after it", plan_seconds(plan.leftover_time),
                       plan_seconds(leftover_end));
  return {};
}

}  // namespace

void complete_plan(CheckpointPlan& plan, const ScheduleInput& input) {
  const int d = static_cast<int>(input.spans.size());
  plan.leftover_bytes = 0;
  plan.leftover_time = SimTime::zero();
  for (PlannedChunk& c : plan.chunks) {
    if (!placeable_chunk(c, d)) continue;  // check_plan names it
    c.planned_start = plan_span_base(c.span, input.spans) + c.offset;
    // Sizes check_plan refuses (beyond the shard, not positive) would only overflow the clock here.
    if (c.span != d || !(c.bytes > 0 && c.bytes <= input.shard_bytes * (1 + kPlanBytesTolerance)) || !(input.bandwidth > 0))
      continue;
    plan.leftover_bytes += c.bytes;
    plan.leftover_time = std::max(plan.leftover_time, c.offset + input.alpha + transfer_time(c.bytes, input.bandwidth));
  }
}

void check_plan(const CheckpointPlan& plan, const ScheduleInput& input, const std::string& scheduler) {
  const std::string broken = broken_plan_rule(plan, input);
  if (!broken.empty())
    throw ModelError("/strategy/scheduler",
                     fmt::format("the scheduler \"{}\" returned a plan that breaks the plan contract (checkpoint/plan_check.hpp): {}",
                                 scheduler, broken));
}

}  // namespace ckptsim
