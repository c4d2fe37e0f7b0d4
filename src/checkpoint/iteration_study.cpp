#include "ckptsim/checkpoint/iteration_study.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "ckptsim/checkpoint/partition.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/network/topology.hpp"
#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "ckptsim/workload/parallelism_model.hpp"
#include "ckptsim/workload/profile.hpp"

namespace ckptsim {

int study_holders(const Scenario& scenario) {
  const int n = std::max(1, scenario.cluster.machines);
  const CheckpointLayout layout = checkpoint_layout(scenario.strategy.kind);
  if (layout == CheckpointLayout::erasure_code) return std::clamp(scenario.strategy.parity + 1, 1, n);
  // The replicas are taken as written for the layout whose copies the scheduler plans; for the
  // others they are clamped (see prepare_iteration_study).
  const bool validated = layout == CheckpointLayout::replicas;
  return validated ? std::max(1, scenario.strategy.replicas) : std::clamp(scenario.strategy.replicas, 1, n);
}

IterationStudy prepare_iteration_study(const Scenario& scenario, const std::optional<IterationProfile>& imported) {
  IterationStudy s{scenario, simulate_parallelism(scenario), {}, {}, {}, 0, {}, {}};
  s.modelled_iteration = s.model.profile.iteration_time;
  if (imported) {
    s.model.profile = *imported;
    s.model.profile.imported = true;
    s.model.profile.machine_spans.resize(scenario.cluster.machines,
                                         imported->machine_spans.empty() ? std::vector<IdleSpan>{} : imported->machine_spans.front());
  }
  s.training_iteration = s.model.profile.iteration_time;
  const int n = scenario.cluster.machines;
  const int g = std::max(1, scenario.cluster.gpus_per_machine);
  // The loader checks that the placement fits only for strategies that keep checkpoints in CPU
  // memory. For the others the schedulers are still compared (the iteration costs, `ckptsim
  // iteration`), on at most N replicas and on "mixed" where "group" does not fit (fuzz finding:
  // remote-highfreq on 15 machines escaped as a PlacementError).
  const CheckpointLayout layout = checkpoint_layout(scenario.strategy.kind);
  const bool validated = layout == CheckpointLayout::replicas;
  const int m = study_holders(scenario);
  const bool group_fits = groups_tile(scenario.strategy.placement, n, m, scenario.strategy.replication_jump);
  if (layout == CheckpointLayout::erasure_code) {
    // Erasure-coded groups send p c per machine (checkpoint/erasure_code.hpp), planned as p
    // copies to the p next machines: the same bytes through every NIC as the real destinations,
    // spread over the g - 1 other members of the group.
    s.placement = ring_placement(n, m);
  } else {
    s.placement = make_placement(validated || group_fits ? scenario.strategy.placement : PlacementScheme::mixed, n, m,
                                 scenario.run.seed, scenario.strategy.replication_jump);
  }
  const double params = scenario.model.parameters > 0 ? scenario.model.parameters : s.model.workload.shape.parameters();
  s.input.spans = s.model.profile.common_spans();
  // The even split of the checkpoint, or the largest shard where the layout splits it unevenly
  // (Megatron's pipeline stages: every machine's plan moves the fullest stage's shard).
  s.input.shard_bytes = s.model.checkpoint_shard_bytes.value_or(params * scenario.training.checkpoint_bytes_per_parameter / n / g);
  s.input.copies = m - 1;
  s.input.buffer_bytes = scenario.strategy.gpu_buffer_bytes;
  s.input.sub_buffers = scenario.strategy.sub_buffers;
  s.input.span_safety = scenario.strategy.span_safety;
  s.input.alpha = scenario.cluster.network.latency;
  // The planner sizes chunks with the rate a send gets alone (network/achieved_bandwidth.hpp):
  // f·B_n/G, and no more than the GPU's PCIe link where sends are staged through host memory.
  s.input.bandwidth = p2p_gpu_send_bandwidth(scenario.cluster);
  s.free_gpu_memory = s.model.memory.free();
  if (!imported && s.model.group_spans.size() > 1 && copies_stay_in_groups(s.placement, s.model.group_of))
    s.span_groups = make_span_groups(scenario, s.model, s.placement, s.input);
  return s;
}

std::vector<SpanGroup> make_span_groups(const Scenario& scenario, const IterationModel& model, const Placement& placement,
                                        const ScheduleInput& input) {
  std::vector<SpanGroup> groups(model.group_spans.size());
  std::vector<std::vector<int>> members(groups.size());
  for (std::size_t j = 0; j < model.group_of.size(); ++j)
    members[static_cast<std::size_t>(model.group_of[j])].push_back(static_cast<int>(j));
  for (std::size_t k = 0; k < groups.size(); ++k) {
    SpanGroup& g = groups[k];
    g.input = input;
    g.input.spans = model.group_spans[k];
    const std::vector<int>& m = members[k];
    if (m.empty()) continue;
    const int first = m.front();
    const int count = static_cast<int>(m.size());
    const bool block = m.back() - first + 1 == count;
    if (!block || !block_splits_as_cluster(scenario.cluster.network, first, count)) continue;
    ClusterSpec alone = scenario.cluster;
    alone.machines = count;
    g.topology = Topology::build(alone);
    g.placement.scheme = placement.scheme;
    g.placement.machines = count;
    g.placement.replicas = placement.replicas;
    for (int j = first; j < first + count; ++j) {
      std::vector<int> holders;
      for (int h : placement.holders[static_cast<std::size_t>(j)]) holders.push_back(h - first);
      g.placement.holders.push_back(std::move(holders));
    }
  }
  return groups;
}

SimTime IterationStudy::planned_idle_time() const {
  if (span_groups.empty()) return model.profile.idle_time(0);
  SimTime least = SimTime::max();
  for (const SpanGroup& group : span_groups) {
    least = std::min(least, total_length(group.input.spans));
  }
  return least;
}

bool copies_stay_in_groups(const Placement& placement, const std::vector<int>& group_of) {
  for (std::size_t j = 0; j < placement.holders.size(); ++j)
    for (int h : placement.holders[j])
      if (j >= group_of.size() || static_cast<std::size_t>(h) >= group_of.size() ||
          group_of[static_cast<std::size_t>(h)] != group_of[j])
        return false;
  return true;
}

SchedulerOutcome evaluate_scheduler(const IterationStudy& study, SchedulerId scheduler, bool keep_run) {
  if (study.span_groups.empty())
    return evaluate_plan(study, study.input, scheduler, keep_run, study.model.topology, study.placement);
  // One plan per span group; every machine waits for the slowest group (header).
  SchedulerOutcome worst;
  bool first = true;
  for (const SpanGroup& group : study.span_groups) {
    const bool alone = group.topology.has_value();
    SchedulerOutcome o = evaluate_plan(study, group.input, scheduler, keep_run, alone ? *group.topology : study.model.topology,
                                       alone ? group.placement : study.placement);
    const int every = std::max(worst.min_every_iterations, o.min_every_iterations);
    const double peak = std::max(worst.peak_buffer_bytes, o.peak_buffer_bytes);
    const bool fits = worst.fits_in_one_iteration && o.fits_in_one_iteration;
    const bool oom = worst.oom || o.oom;
    const SimTime checkpoint = std::max(worst.checkpoint_time, o.checkpoint_time);
    if (first || o.iteration_time_with_checkpoint > worst.iteration_time_with_checkpoint ||
        (o.iteration_time_with_checkpoint == worst.iteration_time_with_checkpoint && o.checkpoint_time > worst.checkpoint_time))
      worst = std::move(o);
    if (!first) {
      worst.min_every_iterations = every;
      worst.peak_buffer_bytes = peak;
      worst.fits_in_one_iteration = fits;
      worst.oom = oom;
      worst.checkpoint_time = checkpoint;
    }
    first = false;
  }
  return worst;
}

SchedulerOutcome evaluate_plan(const IterationStudy& study, const ScheduleInput& input, SchedulerId scheduler,
                               bool keep_run, const Topology& topology, const Placement& placement) {
  SchedulerOutcome o;
  o.plan = make_plan(scheduler, input);
  const int g = std::max(1, study.scenario.cluster.gpus_per_machine);
  const SimTime alpha = input.alpha;
  const SendLinks links = SendLinks::of(study.scenario.cluster);
  if (!study.model.has_training_graph()) {
    // Measured spans or a closed-form parallelism model, no simulated training traffic: the
    // chunks run at their planned clock times; the iteration lengthens only by checkpoint work
    // the optimizer must wait for (from the step's start when the model knows it, else from the
    // iteration's end).
    CheckpointRun r = run_checkpoint_alone(topology, o.plan, placement, g, alpha, links);
    const SimTime local = r.run.timing[static_cast<std::size_t>(r.local_copy_task)].end;
    const SimTime done = std::max(r.sends_done, local);
    const bool measured = study.model.profile.imported;
    const SimTime step = measured ? study.training_iteration : study.model.step_start.value_or(study.training_iteration);
    SimTime delay = done > step ? done - step : SimTime::zero();
    // A closed-form parallelism model (it knows its step start) holds the NIC outside the spans
    // with training traffic: the chunks planned there (the leftover after the last span) share it,
    // and the training traffic waits for at least their NIC time (parallelism_model.hpp). A
    // measured profile says nothing of the time after its last span: the same (a profile that
    // states it idle made it a span, workload/profile.hpp).
    if (study.model.step_start || measured) delay = std::max(delay, o.plan.leftover_time);
    SimTime end = study.training_iteration + delay;
    if (o.plan.blocks_training) end = r.sends_done + study.training_iteration;
    o.iteration_time_with_checkpoint = end;
    o.checkpoint_time = r.checkpoint_time;
    o.peak_buffer_bytes = r.peak_buffer_bytes;
    if (keep_run) o.run = std::move(r);
  } else {
    CheckpointRun r = run_with_checkpoint(study.model, o.plan, study.placement, g, alpha, links);
    o.iteration_time_with_checkpoint = r.iteration_time;
    o.checkpoint_time = r.checkpoint_time;
    o.peak_buffer_bytes = r.peak_buffer_bytes;
    if (keep_run) o.run = std::move(r);
  }
  o.gpu_buffer_bytes = o.plan.buffer_bytes();
  o.oom = o.gpu_buffer_bytes > study.free_gpu_memory;
  o.fits_in_one_iteration = o.plan.blocks_training ? false : o.plan.leftover_bytes <= 0;
  o.min_every_iterations = min_every_iterations(input, scheduler);
  return o;
}

int min_every_iterations(const ScheduleInput& input, SchedulerId scheduler, int limit) {
  if (input.copies <= 0 || input.shard_bytes <= 0) return 1;
  const SchedulerId name = scheduler == SchedulerKind::blocking ? SchedulerKind::gemini : scheduler;
  auto hides = [&](int k) {
    ScheduleInput repeated = input;
    repeated.spans.clear();
    repeated.spans.reserve(input.spans.size() * static_cast<std::size_t>(k));
    for (int i = 0; i < k; ++i) repeated.spans.insert(repeated.spans.end(), input.spans.begin(), input.spans.end());
    const CheckpointPlan plan = make_plan(name, repeated);
    return !plan.blocks_training && plan.leftover_bytes <= 0;
  };
  const CheckpointPlan one = make_plan(name, input);
  if (!one.blocks_training && one.leftover_bytes <= 0) return 1;
  // A plan that blocks training on one iteration's spans is taken to block on k iterations'
  // spans, which repeat the same lengths (a registered scheduler falling back to blocking): no
  // search through ever longer span lists (header).
  if (one.blocks_training) return limit + 1;
  // First guess from usable time: k0 = ceil(time needed / usable time per iteration).
  double usable = 0;
  for (const IdleSpan& s : input.spans) usable += std::max(0.0, input.span_safety * s.length.seconds() - input.alpha.seconds());
  if (usable <= 0) return limit + 1;
  const double needed = input.copies * input.shard_bytes / input.bandwidth;
  int lo = 1;  // does not hide
  int hi = std::max(2, static_cast<int>(std::ceil(needed / usable)));
  while (hi <= limit && !hides(hi)) {
    lo = hi;
    hi = std::min(limit + 1, hi * 2);
  }
  if (hi > limit) return limit + 1;
  while (hi - lo > 1) {  // leftover shrinks as spans are added: bisect
    const int mid = lo + (hi - lo) / 2;
    if (hides(mid)) hi = mid; else lo = mid;
  }
  return hi;
}

std::vector<std::string> profile_time_warnings(const IterationStudy& study) {
  if (!study.model.profile.imported || study.modelled_iteration <= SimTime::zero()) return {};
  const double measured = study.training_iteration.seconds();
  const double modelled = study.modelled_iteration.seconds();
  const double change = measured / modelled - 1.0;
  if (std::abs(change) <= kProfileTimeTolerance) return {};
  return {fmt::format("the measured profile's iteration time {:.4g} s is {:+.0f}% from the model's {:.4g} s for this scenario "
                      "(more than {:.0f}%): the idle spans and iteration time come from the profile, everything else (memory, "
                      "checkpoint shard, phases) from the scenario; check that the profile was measured on this job, or calibrate "
                      "the scenario (ckptsim calibrate)",
                      measured, 100.0 * change, modelled, 100.0 * kProfileTimeTolerance)};
}

}  // namespace ckptsim
