#pragma once
// Live migration (failures/migration; docs/models.md, "Live migration"): a machine that is failing
// but has not yet failed is moved out of the job before it fails.
//
// Which failures: a share `fraction` of the single-machine hardware failures (stream migration,
// one draw per such failure) is announced early enough: by rising correctable-error counts, XID
// warnings, thermal or power alerts, or a drained host's maintenance notice. Domain failures,
// hangs, straggler evictions and silent-corruption detections are not announced. A predicted
// failure is not misdiagnosed (the warning names the machine).
//
// What happens (run model, src/run/recovery/mechanisms/live_migration.cpp): at the iteration boundary before the fault, if a
// standby machine is free, the job pauses for P while the machine's state (its GPUs' share of the
// checkpointed state, from which the half-precision weights are rebuilt, and the in-memory copies
// it holds for its peers) moves to the standby, and the job resumes on it: no progress is rolled
// back, no CPU memory is lost, nothing is detected. The failing machine goes to repair; the standby
// pool gets a machine back one replacement delay later. With no standby free the failure happens
// as any other. Under per-step fault tolerance the machine's replica group leaves the quorum at the
// boundary and rejoins P later; the others train on.
//
// The pause (default; `pause` overrides it):
//   P = c_machine / (G b_send) + L_ip
// c_machine = checkpoint bytes per machine (Scenario::checkpoint_bytes_per_machine), G b_send the
// achieved point-to-point rate of a machine sending out of GPU memory (network/achieved_bandwidth.hpp,
// the same rule as a peer retrieval), L_ip the in-process restart latency of the restart tiers
// (failures.restart_tiers.in_process.latency, 2.5 s: destroy_process_group, last_call_wait,
// rank_assignment, barrier; nvidia-resiliency-ext's usage guide), the switch-over of the process
// group to the standby. Units: bytes, bytes/s, s.
//
// Sources: live migration of training jobs, Singularity (Shukla et al., arXiv:2202.07848, 2022:
// transparent migration of a running job's state between machines); failure prediction ahead of
// the fault from device telemetry (e.g. correctable ECC and XID counts in NVIDIA DCGM health checks).
// No public figure gives the share of GPU-machine failures that are announced in time: the
// default fraction is 0 (off), and a scenario that sets it states its own.
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// True when live migration changes the run (a fraction above 0).
bool migration_modelled(const FailureSpec& spec);

/// The pause P of one migration (formula above), or the scenario's failures.migration.pause.
/// Throws ModelError (pointer /failures/migration/pause) when the derived pause leaves the clock.
SimTime migration_pause(const Scenario& s);

}  // namespace ckptsim
