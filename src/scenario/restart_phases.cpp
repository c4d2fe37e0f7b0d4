// Restart as phases (restart_phases.hpp).
#include "ckptsim/scenario/restart_phases.hpp"

#include <algorithm>


namespace ckptsim {

SimTime RestartPhases::total() const {
  return process_start + rendezvous + communicator_init + warmup + first_iteration;
}

SimTime NewJobPhases::total() const { return requeue + health_check + image_pull; }

std::int64_t nccl_bootstrap_steps(std::int64_t ranks, int rings) {
  if (ranks <= 1) return 0;
  return rings >= 2 ? (ranks + 1) / 2 : ranks - 1;
}

RestartPhases restart_phases(const RestartPhasesSpec& spec, std::int64_t ranks) {
  RestartPhases p;
  p.process_start = spec.process_start;
  p.rendezvous = spec.rendezvous_per_rank * ranks;
  p.communicator_init = spec.nccl_init_fixed + spec.nccl_bootstrap_step * (3 * nccl_bootstrap_steps(ranks, spec.nccl_bootstrap_rings));
  p.warmup = spec.warmup;
  p.first_iteration = spec.first_iteration;
  return p;
}

NewJobPhases new_job_phases(const RestartPhasesSpec& spec) { return {spec.requeue, spec.health_check, spec.image_pull}; }

GroupRestart replica_group_restart(const RestartPhasesSpec& spec, const ClusterSpec& cluster, int groups) {
  const int g = std::max(1, groups);
  GroupRestart r;
  r.ranks = static_cast<std::int64_t>(std::max(1, cluster.machines / g)) * std::max(1, cluster.gpus_per_machine);
  r.phases = restart_phases(spec, r.ranks);
  r.across_groups = restart_phases(spec, g).communicator_init;
  return r;
}

}  // namespace ckptsim
