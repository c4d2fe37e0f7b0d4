#pragma once
// Where one iteration's time goes on the compute stream, and the idle spans in both views.
//
// Phases: the compute stream's busy time per category (forward, recomputed forward, backward,
// boundary, optimizer step; categories of task_graph.hpp), the sum of its compute operations'
// durations.
// Exposed time: every moment the compute stream waits (before each of its operations, and after
// its last until the iteration ends), attributed to a cause by walking back the chain of binding
// dependencies — from the waiting operation to the dependency that ended last (on a tie, a host
// wait), and so on — until
// the wait began. Each step of the chain covers [ready, end] of one task and counts as that
// task's cause (stream_program.hpp: the engine labels each operation); once the chain has passed
// a host wait, everything earlier counts as that wait's cause (the host was held back, so what
// came before only mattered through it). So
//     iteration time = sum of phases + sum over causes of exposed time        (exactly).
// Causes: on-demand gather, in-flight limit, host sync, bandwidth (stream_program.hpp, Cause).
#include <array>
#include <vector>

#include "ckptsim/workload/iteration_model.hpp"

namespace ckptsim {

struct PhaseTime {
  TaskCategory category = TaskCategory::forward;
  SimTime time;
};

struct IterationBreakdown {
  std::vector<PhaseTime> phases;                       ///< categories present, in enum order
  std::array<SimTime, kExposureCauses.size()> exposed; ///< by kExposureCauses index
  SimTime profiler_idle;                               ///< machine 0
  SimTime silent_idle;                                 ///< machine 0
  [[nodiscard]] SimTime compute() const;               ///< sum of phases
  [[nodiscard]] SimTime exposed_total() const;
  [[nodiscard]] SimTime phase(TaskCategory category) const;  ///< zero when absent
  [[nodiscard]] SimTime exposed_by(Cause cause) const;
};

IterationBreakdown breakdown(const IterationModel& model);

/// Idle-span length distribution: count, total, longest, and counts per decade
/// [0, 1 ms), [1, 10 ms), [10, 100 ms), [100 ms, 1 s), [1 s, inf).
struct SpanDistribution {
  std::size_t count = 0;
  SimTime total;
  SimTime longest;
  std::vector<std::size_t> histogram;
  static const std::vector<SimTime>& bucket_upper_bounds();  ///< 1 ms, 10 ms, 100 ms, 1 s
};
SpanDistribution span_distribution(const std::vector<IdleSpan>& spans);

}  // namespace ckptsim
