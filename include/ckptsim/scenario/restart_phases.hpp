#pragma once
// Restart as phases (docs/models.md, "Restart phases"): what restarting every process of a
// training job costs, as a sum of named phases, each a function of the job's scale (R ranks =
// machines x GPUs per machine, one process per GPU) with its own scenario field
// (failures.restart_phases.*) and a cited default. The sums are the defaults of two fields,
// resolved by the loader so that every model reads them as before:
//   failures.restart                      an in-job restart (torchrun or the NVIDIA Resiliency
//                                         Extension's ft_launcher restarts every worker inside
//                                         the same scheduler job): in_job(R) below;
//   failures.restart_tiers.new_job.overhead  what a new scheduler job adds to it: new_job().
// A written failures.restart (or new_job.overhead) overrides the whole sum, as before; the phases
// are then not read (and a scenario that writes both gets a warning naming the phases).
//
//   in_job(R) = process_start + rendezvous(R) + communicator_init(R) + warmup + first_iteration
//   process_start        a worker process (a container) started: 5 s, Kubernetes' pod startup
//                        SLO (99th percentile per cluster-day, stateless pods, image pull
//                        excluded; kubernetes/community sig-scalability/slos/pod_startup_latency.md)
//   rendezvous(R)        R x rendezvous_per_rank: torch.distributed's TCPStore server accepts
//                        every rank in turn; the libuv backend (default since PyTorch 2.4) took
//                        about 100 s for 98,304 ranks (PyTorch tutorial "TCPStore libuv
//                        backend"): 1.017 ms per rank
//   communicator_init(R) nccl_init_fixed + 3 x S(R) x nccl_bootstrap_step: NCCL's initialization
//                        runs three ring all-gathers of every rank's peer information over
//                        sockets (bootstrapInit's ringAllInfo, initTransportsRank's peerInfo and
//                        allGather3Data; NVIDIA/nccl src/bootstrap.cc, src/init.cc), each of
//                        S = R - 1 sequential steps up to NCCL 2.28 and ceil(R / 2) from 2.29,
//                        which runs two rings at once (nccl_bootstrap_rings = 2). Nothing in the
//                        initialization grows as log R. Fixed part 0.66 s: the whole
//                        initialization of 8 ranks on one node (kernels 0.42, bootstrap 0.07,
//                        all-gathers 0.03, topology 0.06, graphs 0.05, connections 0.02 s;
//                        NVIDIA/nccl-tests issue 273). The step, 0.896 ms: (265 - 0.66) s /
//                        (3 x 98,303) from stock NCCL's ~265 s initialization at 98,304 GPUs
//                        (Si et al., "Collective Communication for 100k+ GPUs", arXiv
//                        2510.20171, as summarized; a component measurement of NCCL init)
//   warmup               model and optimizer construction, compilation, loading into the engine,
//                        warm-up: a user input; default GEMINI's measured restart warm-up, 253 s
//                        (GPT-2 100B under DeepSpeed ZeRO-3 on 16 x p4d, Wang et al., SOSP '23,
//                        one step of its measured recovery), which already holds that scale's
//                        5 + 0.13 + 1.0 s of the phases above (2.4 %: kept, not subtracted)
//   first_iteration      the first step's extra time beyond a steady one (NCCL >= 2.22 sets up
//                        connections at the first collective, NCCL_RUNTIME_CONNECT; allocator
//                        and compile caches warm): a user input, default 0 (no measurement found)
//   new_job = requeue + health_check + image_pull
//   requeue              Slurm holds a requeued job back requeue_delay + 1 s, requeue_delay
//                        defaulting to cred_expire, 120 s (SchedMD/slurm src/slurmctld/
//                        job_mgr.c, slurm.conf(5)): 121 s
//   health_check         node health checks before the job starts: a user input, default 0 (no
//                        published duration found)
//   image_pull           the container image pulled on a fresh node: 55.6 s, containerd pulling
//                        pytorch/pytorch on one Azure VM (containerd pull request 4653)
// Checkpoint load is not a phase here: it is each tier's retrieval (run/strategy_costs.hpp).
// Source notes and the search for each phase: docs/references.md, "Restart phases".
#include <cstdint>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// One in-job restart of a job of `ranks` ranks, phase by phase.
struct RestartPhases {
  SimTime process_start;
  SimTime rendezvous;
  SimTime communicator_init;
  SimTime warmup;
  SimTime first_iteration;
  [[nodiscard]] SimTime total() const;
};

/// What a new scheduler job adds to an in-job restart, phase by phase.
struct NewJobPhases {
  SimTime requeue;
  SimTime health_check;
  SimTime image_pull;
  [[nodiscard]] SimTime total() const;
};

/// The bootstrap ring all-gather's sequential steps for `ranks` ranks with `rings` rings at once:
/// ranks - 1 (one ring), ceil(ranks / 2) (two), 0 for one rank.
std::int64_t nccl_bootstrap_steps(std::int64_t ranks, int rings);

/// The phases at `ranks` ranks. Throws ClockOverflow beyond the clock (the loader's clock
/// checks bound the inputs first).
RestartPhases restart_phases(const RestartPhasesSpec& spec, std::int64_t ranks);

NewJobPhases new_job_phases(const RestartPhasesSpec& spec);

/// One replica group's restart under per-step fault tolerance (run/strategies/torchft.cpp): the
/// group restarts as a job of its own N / G machines (R_g = (N / G) x GPUs ranks), plus its
/// communicator across the G groups, communicator_init(G).
struct GroupRestart {
  std::int64_t ranks = 0;      ///< R_g
  RestartPhases phases;        ///< the in-job phases at R_g
  SimTime across_groups;       ///< communicator_init(G)
  [[nodiscard]] SimTime total() const { return phases.total() + across_groups; }
};
GroupRestart replica_group_restart(const RestartPhasesSpec& spec, const ClusterSpec& cluster, int groups);

}  // namespace ckptsim
