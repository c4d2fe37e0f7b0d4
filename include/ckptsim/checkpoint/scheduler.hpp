#pragma once
// Checkpoint traffic schedulers, registered by name (GEMINI SOSP '23, Section 5 and the
// ablation of Section 7.4):
//   blocking       every chunk at the iteration start, training waits until all are sent;
//                  chunks of R/p through p sub-buffers
//   naive          one chunk per idle span, as large as the span allows (buffer: the largest
//                  span's worth); p = 1
//   single-buffer  chunks of R in one buffer: the next chunk waits for the previous copy
//   gemini         Algorithm 2: p sub-buffers of R/p, span safety mu, start-up cost alpha,
//                  leftover after the last span (checkpoint/partition.hpp)
// Every scheduler also plans the local replica's GPU-to-CPU copy at the iteration start.
//
// A program using the library adds schedulers of its own with register_scheduler (a name and a
// function from ScheduleInput to CheckpointPlan), before it loads the scenarios that name them
// in strategy.scheduler; from then on make_plan, the iteration study, `iteration`'s comparison
// (all_schedulers()), the run model's costs and the closed forms use it as they use a built-in
// (docs/library.md, "Adding a scheduler out of tree"). A registered scheduler's plan is checked
// before anything uses it (checkpoint/plan_check.hpp): a plan that breaks the contract is refused
// with a ModelError naming the scheduler and the rule, never simulated.
#include <functional>
#include <string>
#include <vector>

#include "ckptsim/checkpoint/plan.hpp"
#include "ckptsim/core/registry.hpp"

namespace ckptsim {

struct ScheduleInput {
  std::vector<IdleSpan> spans;
  double shard_bytes = 0;        ///< C per GPU
  int copies = 1;                ///< m - 1
  double buffer_bytes = 0;       ///< R
  int sub_buffers = 1;           ///< p
  double span_safety = 0.8;      ///< mu
  SimTime alpha;                 ///< per-chunk start-up cost
  double bandwidth = 0;          ///< B per GPU, bytes/s
};

using SchedulerFactory = CheckpointPlan (*)(const ScheduleInput& input);

/// The built-in schedulers, named and ordered as SchedulerKind's name table (scenario/kinds.hpp).
const Registry<SchedulerFactory>& scheduler_registry();

/// A scheduler a program registers: one checkpoint's plan for `input` (plan_check.hpp says what
/// the plan must hold; plan_for(input) is where a plan starts). It may be called from several
/// threads at once and many times per study (the smallest k repeats the spans k times), and must
/// return the same plan for the same input: outputs are deterministic.
using SchedulerFunction = std::function<CheckpointPlan(const ScheduleInput& input)>;

/// Registers `plan` as the scheduler `name`, with a one-line description; returns its id. A
/// scenario loaded afterwards may name it in strategy.scheduler. Throws InputError (file
/// "register_scheduler") for an empty function or a name add_scheduler_name refuses (empty, too
/// long, odd characters, "all", taken by a built-in or an earlier registration). Registrations
/// last as long as the process; sweep caches key on the name, so a scheduler whose code changed
/// needs a new name or a new cache directory.
SchedulerId register_scheduler(const std::string& name, const std::string& description, SchedulerFunction plan);

/// The one-line description of a scheduler, built-in or registered.
std::string scheduler_description(SchedulerId scheduler);

/// An empty plan for `input`: its shard bytes, copies and spans filled in, one sub-buffer, no
/// chunks. A registered scheduler adds its chunks (and sets sub_buffers, chunk_limit,
/// blocks_training) and returns it.
CheckpointPlan plan_for(const ScheduleInput& input);

/// Runs the scheduler `scheduler` on `input`. A registered scheduler's plan is completed (its id,
/// each chunk's planned start, the leftover) and checked (plan_check.hpp) before it is returned.
CheckpointPlan make_plan(SchedulerId scheduler, const ScheduleInput& input);

}  // namespace ckptsim
