// Schedulers and their simulation with training traffic (checkpoint/scheduler.hpp,
// checkpoint_run.hpp, iteration_study.hpp).
#include <doctest/doctest.h>

#include <cmath>

#include "ckptsim/checkpoint/iteration_costs.hpp"
#include "ckptsim/checkpoint/iteration_study.hpp"
#include "../workload/paper_scenario.hpp"

using namespace ckptsim;

namespace {

Scenario scheduler_scenario() {
  // The paper's machines and model shape, fewer layers so each test runs quickly: 4 machines,
  // 12 layers. Checkpoint per GPU: 12 x P / 32.
  Scenario s = testing::paper_scenario(4);
  s.model.layers = 12;
  s.model.parameters = 0;  // from the shape
  return s;
}

}  // namespace

TEST_CASE("every registered scheduler sends (m-1) x shard and finishes the checkpoint") {
  const IterationStudy study = prepare_iteration_study(scheduler_scenario());
  for (const auto& entry : EnumNames<SchedulerKind>::table) {
    CAPTURE(entry.name);
    const SchedulerOutcome o = evaluate_scheduler(study, entry.value);
    CHECK(o.plan.sent_bytes() == doctest::Approx(study.input.copies * study.input.shard_bytes));
    CHECK(o.iteration_time_with_checkpoint >= study.training_iteration);
    CHECK(o.checkpoint_time > SimTime::zero());
    CHECK(o.peak_buffer_bytes <= o.gpu_buffer_bytes * (1 + 1e-12));
  }
}

TEST_CASE("gemini: pipelined sub-buffers never hold more than R bytes per GPU") {
  Scenario sc = scheduler_scenario();
  for (int p : {1, 2, 4, 8}) {
    sc.strategy.sub_buffers = p;
    const IterationStudy study = prepare_iteration_study(sc);
    const SchedulerOutcome o = evaluate_scheduler(study, SchedulerKind::gemini);
    CAPTURE(p);
    CHECK(o.gpu_buffer_bytes <= sc.strategy.gpu_buffer_bytes * (1 + 1e-12));
    CHECK(o.peak_buffer_bytes <= sc.strategy.gpu_buffer_bytes * (1 + 1e-12));
    for (const PlannedChunk& c : o.plan.chunks) CHECK(c.bytes <= sc.strategy.gpu_buffer_bytes / p);
  }
}

TEST_CASE("naive needs at least the largest span's worth of GPU buffer") {
  const IterationStudy study = prepare_iteration_study(scheduler_scenario());
  const SchedulerOutcome o = evaluate_scheduler(study, SchedulerKind::naive);
  // A span's worth: (mu·t - alpha)·B. Naive puts one chunk of that size in each span it uses
  // (only the chunk that completes a copy may be smaller), so its buffer is at least the
  // largest worth among the spans it fills.
  const auto& chunks = o.plan.chunks;
  double largest_worth = 0;
  for (std::size_t i = 0; i < chunks.size(); ++i) {
    const PlannedChunk& c = chunks[i];
    if (c.span >= static_cast<int>(study.input.spans.size())) continue;
    const bool ends_copy = i + 1 == chunks.size() || chunks[i + 1].copy != c.copy;
    if (ends_copy) continue;
    const double t = study.input.spans[static_cast<std::size_t>(c.span)].length.seconds();
    const double worth = std::floor((0.8 * t - study.input.alpha.seconds()) * study.input.bandwidth);
    // Span lengths are whole nanoseconds: allow two nanoseconds' worth of bytes of rounding.
    CHECK(std::abs(c.bytes - worth) <= 2e-9 * study.input.bandwidth + 1.0);
    largest_worth = std::max(largest_worth, worth);
  }
  REQUIRE(largest_worth > 0);
  CHECK(o.gpu_buffer_bytes >= largest_worth * (1 - 1e-6));
}

TEST_CASE("blocking: training waits for the checkpoint sends") {
  const IterationStudy study = prepare_iteration_study(scheduler_scenario());
  const SchedulerOutcome o = evaluate_scheduler(study, SchedulerKind::blocking, true);
  REQUIRE(o.run);
  // Sending (m-1)·C per GPU through a NIC shared by 8 GPUs takes at least (m-1)·C·8/B.
  const double floor_s = study.input.copies * study.input.shard_bytes / study.input.bandwidth;
  CHECK(o.run->sends_done.seconds() >= floor_s);
  // ... and the iteration grows by at least that much.
  CHECK(o.iteration_time_with_checkpoint.seconds() >= study.training_iteration.seconds() + floor_s * (1 - 1e-9));
  CHECK_FALSE(o.fits_in_one_iteration);
}

TEST_CASE("GPT-2 100B on 16 p4d: gemini's costs against blocking and the idle time") {
  const Scenario sc = testing::paper_scenario(16);
  const IterationStudy study = prepare_iteration_study(sc);
  const IterationCosts c = compute_iteration_costs(sc);
  // Blocking: 9.40e9 B / 6.25e9 B/s (one remote copy, 50e9 B/s shared by 8 GPUs) = 1.50 s plus
  // per-chunk latency.
  CHECK(c.blocking_checkpoint_time.seconds() == doctest::Approx(1.504).epsilon(0.01));
  CHECK(c.gpu_buffer_bytes == doctest::Approx(128.0 * 1024 * 1024));
  CHECK_FALSE(c.oom);
  CHECK(c.checkpoint_time < c.iteration_time_with_checkpoint);
  // Interleaving costs less than blocking, and a checkpoint hidden in k iterations needs k
  // iterations' usable idle time (0.8 of each span, less at least one start-up cost per span)
  // for its (m-1)·C/B of sending: k >= that / usable time per iteration.
  CHECK(c.iteration_time_with_checkpoint - c.iteration_time <= c.blocking_checkpoint_time);
  double usable = 0;
  for (const IdleSpan& span : study.input.spans) usable += std::max(0.0, 0.8 * span.length.seconds() - study.input.alpha.seconds());
  REQUIRE(usable > 0);
  const double sending = study.input.copies * study.input.shard_bytes / study.input.bandwidth;
  CHECK(c.min_every_iterations >= static_cast<int>(std::ceil(sending / usable * (1 - 1e-9))));
}

TEST_CASE("a checkpoint that does not fit: smallest k that hides it") {
  // Hand-made: one span of 1 s per iteration, mu = 1, alpha = 0, B = 1e9: 1 GB per iteration.
  // 3.5 GB to send (shard 1.75 GB, 2 copies) -> k = 4 iterations.
  ScheduleInput in;
  in.spans = {{seconds(2.0), seconds(1.0), -1}};
  in.shard_bytes = 1.75e9;
  in.copies = 2;
  in.buffer_bytes = 128e6;
  in.sub_buffers = 4;
  in.span_safety = 1.0;
  in.alpha = SimTime::zero();
  in.bandwidth = 1e9;
  CHECK(min_every_iterations(in, SchedulerKind::gemini) == 4);
  const CheckpointPlan plan = make_plan(SchedulerKind::gemini, in);
  CHECK(plan.leftover_bytes == doctest::Approx(2.5e9));
  // Leftover chunks start after the last span's end (3 s).
  for (const PlannedChunk& c : plan.chunks) {
    if (c.span == 1) CHECK(c.planned_start >= seconds(3.0));
  }
}


TEST_CASE("a sub-buffer is reused only after its GPU-to-CPU copy ended") {
  const IterationStudy study = prepare_iteration_study(scheduler_scenario());
  for (const SchedulerKind kind : {SchedulerKind::gemini, SchedulerKind::single_buffer}) {
    CAPTURE(name_of(kind));
    const SchedulerOutcome o = evaluate_scheduler(study, kind, true);
    REQUIRE(o.run);
    const CheckpointRun& r = *o.run;
    const auto p = static_cast<std::size_t>(o.plan.sub_buffers);
    for (std::size_t c = 0; c < r.send_tasks.size(); ++c) {
      const TaskTiming& send = r.run.timing[static_cast<std::size_t>(r.send_tasks[c])];
      const TaskTiming& copy = r.run.timing[static_cast<std::size_t>(r.copy_tasks[c])];
      CHECK(copy.start >= send.end);  // the copy reads what arrived
      if (c >= p) CHECK(send.ready >= r.run.timing[static_cast<std::size_t>(r.copy_tasks[c - p])].end);
      if (c >= 1) CHECK(send.ready >= r.run.timing[static_cast<std::size_t>(r.send_tasks[c - 1])].end);
    }
  }
}
