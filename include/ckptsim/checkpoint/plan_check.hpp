#pragma once
// The contract of a checkpoint plan (checkpoint/plan.hpp), checked on every plan a registered
// scheduler returns (make_plan, checkpoint/scheduler.hpp) and kept by every built-in
// (tests/unit/checkpoint/plan_check_test.cpp). For the ScheduleInput it was made for (d idle
// spans, m - 1 copies of a shard of C bytes, per-chunk cost alpha, bandwidth B):
//   facts        shard_bytes = C, copies = m - 1, spans = the input's spans (starts and lengths)
//   sub-buffers  sub_buffers >= 1; chunk c goes into sub-buffer c mod sub_buffers (the
//                simulation frees it with the copy of chunk c - sub_buffers: checkpoint_run.hpp)
//   chunks       chunk c has index c (its place on the send stream); copy in 0..m-2; bytes finite,
//                > 0, at most the shard and at most chunk_limit (finite); offset >= 0
//   spans        a chunk starts inside an idle span (span 0..d-1, offset < the span's length) or
//                after the last one (span d, the leftover); a plan that blocks training has every
//                chunk before training (span -1), one that does not has none there
//   bytes        each copy's chunks add up to C (relative error 1e-9): (m - 1)·C in all
//   derived      planned_start = the span's start + offset (span d: the last span's end + offset;
//                span -1: offset); leftover_bytes = the bytes at span d; leftover_time = the end of
//                the last chunk at span d, each costing alpha + bytes/B as in the partition
//                (partition.hpp); make_plan fills these three in for a registered scheduler
//   clock        offsets and local_copy_start in [0, kLongestPlanOffset), so that no planned time
//                leaves the nanosecond clock
// Without these the simulation would index past its pools (a copy or sub-buffer out of range),
// deadlock a blocking plan on its own spans, or report bytes that were never sent.
#include <string>

#include "ckptsim/checkpoint/scheduler.hpp"

namespace ckptsim {

/// The latest a plan may place a chunk or the local copy, from its span's start (10^6 s: eleven days).
inline constexpr SimTime kLongestPlanOffset = SimTime::from_ns(1'000'000'000'000'000);

/// Fills in the derived fields of a plan made for `input` (planned starts, leftover bytes and
/// time; see the header). Chunks whose span is out of range are left for check_plan to refuse.
void complete_plan(CheckpointPlan& plan, const ScheduleInput& input);

/// Throws ModelError (parameter /strategy/scheduler) naming `scheduler` and the first rule of
/// the contract the plan breaks.
void check_plan(const CheckpointPlan& plan, const ScheduleInput& input, const std::string& scheduler);

}  // namespace ckptsim
