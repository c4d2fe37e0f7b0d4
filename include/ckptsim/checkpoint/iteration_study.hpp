#pragma once
// The iteration study behind `ckptsim iteration`, `ckptsim schedule` and IterationCosts:
// simulate one iteration, make a scheduler's plan from its idle spans, simulate the plan with
// the training traffic, and judge the result.
//
// Inputs from the scenario: shard per GPU C = checkpoint_bytes_per_machine() / G (model
// parameters x checkpoint bytes per parameter / N / G); m - 1 remote copies (strategy.replicas);
// R = strategy.gpu_buffer_bytes, p = strategy.sub_buffers, mu = strategy.span_safety;
// alpha = cluster.network.latency; per-GPU bandwidth B = p2p_efficiency x network_bandwidth / G
// (the G GPUs of a machine send at once through its NIC, at the achieved point-to-point rate;
// without GPUDirect RDMA no more than gpu_cpu_bandwidth, the PCIe link the sends are staged over).
// Out of memory: the plan's GPU buffer exceeds the memory the model leaves free per GPU
// (workload/gpu_memory.hpp, every term with its source).
// Span groups (a parallelism model whose machines see different idle spans, e.g. Megatron's
// pipeline stages, IterationModel::group_of): when every holder of each machine's copies is in
// the machine's group (a data-parallel peer under group placement), senders and receivers share
// their idle spans, so each group plans in its own spans; the outcome is the worst group's
// (every machine waits for the slowest: the optimizer step is synchronous). Otherwise one plan
// in the spans in which every machine is idle.
// A measured profile (workload/profile.hpp) replaces the model's idle spans and iteration time;
// the model's own iteration time is kept beside it (modelled_iteration), and
// profile_time_warnings says when the two differ by more than kProfileTimeTolerance. With
// measured spans the training traffic is not simulated: the chunks run at their planned times,
// and the part of the checkpoint left after the last span delays the iteration by at least its
// NIC time (it shares the NIC with training traffic); a profile that states the network idle
// after its last span (idle_after_last_span) has that time as one more span.
// Smallest k: the least number of iterations whose idle spans (the iteration's spans repeated
// k times) hold the whole checkpoint under the scheduler's partition with no leftover.
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/checkpoint/checkpoint_run.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/checkpoint/plan.hpp"
#include "ckptsim/checkpoint/scheduler.hpp"
#include "ckptsim/workload/iteration_model.hpp"

namespace ckptsim {

/// One span group's plan (the header's "Span groups"): its spans, and where its plan is simulated.
struct SpanGroup {
  ScheduleInput input;  ///< the study's input with the group's own spans
  /// The group alone, when its machines are one block [first, first + count) that the network
  /// splits as it splits the whole cluster (network/topology.hpp, block_splits_as_cluster): a
  /// cluster of `count` machines and the block's placement renumbered from 0. nullopt: every machine.
  std::optional<Topology> topology;
  Placement placement;
};

struct IterationStudy {
  Scenario scenario;
  IterationModel model;        ///< profile replaced by the imported one when given
  Placement placement;
  ScheduleInput input;         ///< spans, C, m-1, R, p, mu, alpha, B
  /// One plan per span group (IterationModel::group_of; Megatron's pipeline stages) when every
  /// machine's copies stay inside its group. Empty: every machine runs the plan of `input`, whose
  /// spans are those in which every machine is idle.
  std::vector<SpanGroup> span_groups;
  /// Idle time the plans can use: machine 0's spans, or with span groups the least of any group's.
  [[nodiscard]] SimTime planned_idle_time() const;
  double free_gpu_memory = 0;  ///< bytes per GPU left by the model
  SimTime training_iteration;  ///< simulated (or imported) iteration time without checkpoint
  SimTime modelled_iteration;  ///< the model's own iteration time (= training_iteration unless imported)
};

/// A measured iteration time further than this fraction from the model's draws a warning.
inline constexpr double kProfileTimeTolerance = 0.10;

/// With an imported profile whose iteration time differs from the model's by more than
/// kProfileTimeTolerance: a warning giving both times (empty otherwise).
std::vector<std::string> profile_time_warnings(const IterationStudy& study);

struct SchedulerOutcome {
  CheckpointPlan plan;
  std::optional<CheckpointRun> run;          ///< kept when asked (traces)
  SimTime iteration_time_with_checkpoint;
  SimTime checkpoint_time;
  double gpu_buffer_bytes = 0;               ///< reserved per GPU (plan.buffer_bytes())
  double peak_buffer_bytes = 0;              ///< simulated peak occupancy per GPU
  bool oom = false;
  bool fits_in_one_iteration = true;         ///< no leftover after the last span
  int min_every_iterations = 1;
};

/// Simulates the scenario's iteration; `imported` replaces the simulated idle spans.
IterationStudy prepare_iteration_study(const Scenario& scenario, const std::optional<IterationProfile>& imported = {});

/// m, the holders of each shard whose checkpoint the study plans (m - 1 copies): the replicas
/// for gemini and in-memory-blocking, p + 1 for erasure-coded, otherwise the replicas clamped to
/// 1..N (the schedulers are compared for every strategy). The chunk estimate of
/// iteration_work.hpp counts the same copies.
int study_holders(const Scenario& scenario);

/// Plans and simulates one scheduler: one plan, or one per span group (the worst group's outcome).
SchedulerOutcome evaluate_scheduler(const IterationStudy& study, SchedulerId scheduler, bool keep_run = false);

/// Plans `input` (the study's, or one span group's) and simulates it on every machine of
/// `topology` with `placement` (the study's, or a span group's own).
SchedulerOutcome evaluate_plan(const IterationStudy& study, const ScheduleInput& input, SchedulerId scheduler,
                               bool keep_run, const Topology& topology, const Placement& placement);

/// The span groups of a study whose copies stay in their groups (prepare_iteration_study).
std::vector<SpanGroup> make_span_groups(const Scenario& scenario, const IterationModel& model, const Placement& placement,
                                        const ScheduleInput& input);

/// True when every holder of each machine's copies is in the machine's span group.
bool copies_stay_in_groups(const Placement& placement, const std::vector<int>& group_of);

/// Smallest k (1 <= k <= limit) whose k iterations of spans hide the checkpoint; limit + 1
/// when none does. Blocking uses gemini's partition (it has no spans of its own). For any other
/// scheduler a plan that blocks training hides nothing, and one that blocks on one iteration's
/// spans is taken to block on k iterations' (the same lengths repeated): limit + 1 at once (a
/// registered scheduler may fall back to blocking where no span can carry its plan).
inline constexpr int kMinEverySearchLimit = 100000;
int min_every_iterations(const ScheduleInput& input, SchedulerId scheduler, int limit = kMinEverySearchLimit);

}  // namespace ckptsim
