#pragma once
// Elastic restart (failures/elastic; docs/models.md, "Elastic restart"): a job that loses a
// machine with no standby free restarts without that machine's data-parallel unit instead of
// waiting for the replacement, trains smaller, and grows back once the replacement has arrived.
//
// Units (ParallelismModel::data_parallel_units): the machines that leave together. ZeRO-3 and
// FSDP: the lost machine alone (sharded data parallelism spreads its states over any machine
// count); Megatron: the machines of the model replicas (data-parallel indices) its ranks hold
// parts of, t·c·p / G machines per replica (megatron_layout.hpp).
//
// Rule (run model, src/run/recovery/mechanisms/elastic_restart.cpp). In a recovery episode whose hardware failures leave some
// machine without a free standby (its replacement would arrive at time A), let N' = N minus the
// machines of every unit out (those of this episode's lost machines, and units still out from
// earlier shrinks). The job shrinks when N' >= min_machines and waiting would stop it longer than
// shrinking does:
//   A - s  >  X(N') + X(N) + R,        s: when the wait would start (detection, or a save's end)
// i.e. the wait outlasts the two reshards and the extra restart a shrink and its grow cost. Then
// the episode does not wait: it retrieves the recovered state as usual, reshards it over the N'
// machines (X(N'), counted as retrieval) and restarts (R, the episode's restart). Until the grow,
// healthy-equivalent work accrues at N'/N of wall time (progress is proportional to the
// data-parallel replicas that step; the rest of the wall time is `degraded`), and a second shrink
// may follow. At the first iteration boundary once every replacement of the units out has
// arrived, the job stops, reshards back to N machines (X(N), retrieval) and restarts (R of the
// shrink's episode, restart); nothing is rolled back. A shrink that would go below min_machines
// waits instead for every outstanding replacement and restarts at N (one reshard X(N)).
//   X(M) = (c / M) / (G b_send)         (default; failures.elastic.reshard overrides it)
// c: checkpoint bytes of the whole model, M machines after the reshard, G b_send the achieved
// point-to-point rate of a machine sending out of GPU memory (network/achieved_bandwidth.hpp,
// the rule of a peer retrieval): every machine receives at most its whole new share. Units:
// bytes, bytes/s, s.
// Simplifications, stated: failures keep arriving at the whole cluster's rate while the job is
// smaller (the units out stay allocated: pessimistic by at most the share out); while smaller,
// in-memory redundancy is that of the full placement with the replaced machines' memory empty
// until the next checkpoint completes (the placement over the survivors is not re-derived);
// per-iteration time at the smaller size is taken as the full job's (the global batch shrinks
// with the replicas). Per-step fault tolerance (torchft) already trains on without a failed
// group: the run model refuses elastic restart with it.
// Sources: PyTorch elastic (torchrun --nnodes=MIN:MAX: the job restarts its workers with the
// nodes present, and again when new nodes join); DeepSpeed Universal Checkpointing (Lian et al.,
// arXiv:2406.18820, 2024: reloading ZeRO and 3D-parallel states at another data-parallel size);
// Oobleck (Jang et al., SOSP 2023) and Bamboo (Thorpe et al., NSDI 2023) train on with fewer
// pipeline replicas after failures.
#include <cstdint>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// True when elastic restart changes the run (failures.elastic.min_machines is set).
bool elastic_modelled(const FailureSpec& spec);

/// What a replica needs to shrink and grow, prepared once per run.
struct ElasticPlan {
  std::vector<int> unit_of;          ///< machine -> unit index (ParallelismModel::data_parallel_units)
  std::vector<int> unit_machines;    ///< machines per unit
  int min_machines = 0;
  SimTime grow_reshard;              ///< X(N): every shrink's cost and every grow's pause reshard back to N machines
  /// Machines of the smallest unit: a scenario whose minimum leaves no room for one is refused.
  [[nodiscard]] int smallest_unit() const;
};

/// The plan of a scenario with elastic restart. Throws ModelError (/failures/elastic/min_machines)
/// when not even the smallest unit can leave (N - smallest unit < min_machines), and when the
/// reshard to min_machines leaves the clock.
ElasticPlan elastic_plan(const Scenario& s);

/// X(M) of the header, or failures.elastic.reshard. Throws ModelError when it leaves the clock.
SimTime reshard_time(const Scenario& s, std::int64_t machines);

}  // namespace ckptsim
