#pragma once
// Restart tiers (failures/restart_tiers; docs/models.md, "Restart tiers"): which tier of the
// NVIDIA Resiliency Extension (nvidia-resiliency-ext, https://github.com/NVIDIA/nvidia-resiliency-ext,
// commit d8686d9) restarts the job after a failure, when that failure is detected, and what the
// restart costs. The run model and the closed forms both ask this unit; nothing else decides.
//
// Tiers (RestartTier, ordered by how much they restart):
//   in-process  the wrapped training function restarts inside the surviving processes
//               (inprocess.Wrapper): no new interpreter, CUDA context or scheduler job;
//   in-job      the launcher (ft_launcher) restarts every worker inside the same scheduler job;
//   new job     the scheduler starts the job again.
// Fault classes and their tier (failures.restart_tiers.{software, hang, hardware}):
//   software  a crash with the machine intact: `software`;
//   hang      processes alive, no progress, machine intact: `hang`;
//   hardware  a lost machine: `hardware` when every lost machine found a free standby (for
//             in-process that standby is a pre-initialized reserve worker, "support for
//             pre-allocated and pre-initialized reserve workers", inprocess/index.rst), else a new
//             job (the machine must come from the scheduler). A hardware failure that hangs is
//             a hardware failure found by the hang timeouts.
// Hang detection follows from the timeouts in force:
//   in-process  soft_timeout + monitor_process_interval (the usage guide's "detect GIL-released
//               hang" row; Wrapper defaults 60 s and 1 s, inprocess/wrap.py);
//   in-job      the fault-tolerance heartbeat or the NCCL watchdog, min(collective_timeout,
//               safety_factor x T) + check_interval / 2 (fault_model.hpp's hang_detection).
//   With an in-process hang tier the first to fire wins: if the in-job rule fires first the
//   launcher restarts the job (in-job). Otherwise a hang keeps the in-job rule.
// Restart latency (replaces the cause's flat restart R):
//   in-process  in_process_latency + communicator_rebuild + T: the usage guide's
//               restart-latency table, destroy_process_group ~0.5 s + last_call_wait 1 s +
//               rank_assignment ~0.5 s + TCPStore barrier 0.5 s at 16k ranks = 2.5 s, plus
//               "complete pending CUDA kernels ~training iteration" (T, the iteration time),
//               plus the NCCL communicators the restarted function creates again after
//               destroy_process_group: the restart phases' communicator init at the job's ranks
//               (scenario/restart_phases.hpp; set by the loader), which the table leaves to the
//               user's function;
//   in-job      in_job_latency, default the cause's restart R (new interpreters, CUDA contexts,
//               NCCL communicators: what a restart of every process costs);
//   new job     the in-job latency + new_job_overhead (scheduler allocation, container start;
//               site-specific, default 0).
// An episode of several failures restarts once, at the highest tier and latency among them.
// Left out: the GIL-holding hang (hard_timeout + monitor interval + termination_grace_time: the
// share of hangs that hold the GIL is not published), an in-process restart that fails and falls
// back to in-job, and the user's initialize/finalize/health-check (N/A in the usage guide's table:
// add them to in_process_latency).
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// What the restart tiers see of a failure.
enum class FaultClass { software, hang, hardware };

/// The class of a failure: hardware before hang (a lost machine must be replaced whatever found it).
FaultClass fault_class(bool hardware, bool hang);

/// The tier that restarts after a failure of class `k`; `spare` = every lost machine found a
/// free standby (hardware only). `in_process_detection` / `in_job_detection` are the hang
/// detection times of the two rules (hangs only: the first to fire decides).
RestartTier restart_tier(const RestartTierSpec& spec, FaultClass k, bool spare, SimTime in_process_detection,
                         SimTime in_job_detection);

/// In-process hang detection: soft_timeout + monitor_interval.
SimTime in_process_hang_detection(const RestartTierSpec& spec);

/// Detection of a hang with the tiers in force: the in-process rule when the hang tier is
/// in-process and it fires no later than the in-job rule, else the in-job rule.
SimTime tiered_hang_detection(const RestartTierSpec& spec, SimTime in_job_detection);

/// Restart latency of `tier` after a failure whose cause restarts in `cause_restart`, at
/// iteration time T (header).
SimTime restart_latency(const RestartTierSpec& spec, RestartTier tier, SimTime cause_restart, SimTime iteration_time);

}  // namespace ckptsim
