#pragma once
// What a checkpoint strategy costs, reduced to the few numbers the run model advances with.
//
// Every strategy is one periodic checkpoint track, plus (for in-memory strategies) a persistent
// track that uploads some in-memory checkpoints to storage in the background:
//   - a checkpoint of the state after iteration n is taken when n is a multiple of k
//     (`every_iterations`), never of a state already checkpointed (not of the state training
//     starts or restarts from);
//   - it is carried by iteration n+1, which takes T + S (S = `stall`) instead of T;
//   - it becomes usable `completion` after iteration n+1 starts (S <= completion);
//   - it lands in `tier` (memory: CPU memory of m holders; storage: persistent storage).
//   - persistent track (memory tier only): states that are multiples of kp (a multiple of k)
//     are uploaded once their in-memory checkpoint completes; usable `upload` later.
// Each strategy is one unit (run/strategy.hpp; src/run/strategies/<name>.cpp) that fills its
// part of StrategyCosts. Strategy table (first-order formulas; B_s = storage bandwidth shared by all machines,
// B_n = NIC bandwidth per machine, B_ser = serialization bandwidth per machine, and the achieved
// rates of network/achieved_bandwidth.hpp: f B_n host to host, B_send = G b_send out of GPU memory
// (f = p2p_efficiency; f B_n, capped by G B_pcie without GPUDirect RDMA),
// C = checkpoint bytes of the model, c = C / N the shard of one machine, m replicas):
//   gemini              k from the scenario; the checkpoint of a state is sent in the idle spans
//                       of the k iterations after it: S1 = T_ckpt - T from the iteration model
//                       (one iteration's spans), S = max(0, S1 - (k-1)(T_block - S1)) with
//                       T_block the blocking send time, and S = 0 from the model's smallest
//                       hiding k on (first order without the model: S = max(0, (m-1)c / B_send -
//                       k (T - T_comm))); completion = k T + S (end of the block);
//                       kp = k * max(round(interval / (k T + S)), ceil(U / (k T + S))).
//   in-memory-blocking  S = (m-1) c / B_send (GEMINI's placement, copies sent while training
//                       waits); completion = S.
//   remote-periodic     k = max(1, round(interval / T)); S = max(C / B_s, c / B_ser); completion = S.
//   remote-highfreq     S = c / B_ser (snapshot to CPU memory); upload U = C / B_s in background;
//                       completion = S + U; k = max(1, ceil(U / T)) (paper §6 HighFreq).
//   erasure-coded       groups of g machines, p parity symbols per stripe (checkpoint/erasure_code.hpp):
//                       traffic p c per machine planned like GEMINI's with m = p + 1 (same S);
//                       completion = max(k T, E) + S with encode E = p c / B_enc;
//                       retrieval peer = (g-p) c / (f B_n) + (g-p) c / B_enc + c / B_ser (repair).
//   multi-level         SCR-style levels (Moody et al., SC '10): level 1 = a snapshot into the
//                       machine's own CPU memory, S_1 = c / B_ser; level 2 = level 1 plus copies
//                       to the m - 1 partner holders of the placement, S_2 = S_1 + (m-1) c / B_send;
//                       level 3 = level 2 plus the write to storage, S_3 = S_2 + C / B_s. Every
//                       checkpoint blocks (completion = its stall); a level-i checkpoint is also
//                       a checkpoint of every level below it. Periods nest: k_1 = round(
//                       local_interval / T), k_2 = k_1 round(partner_interval / (k_1 T)), k_3 =
//                       k_2 round(persistent_interval / (k_2 T)) (no level 3 when "never").
//   torchft             per-step fault tolerance (TorchFT): no checkpoints; G replica groups of
//                       N / G machines; heal H = (C G / N) / B_heal, every machine of the group
//                       receives its shard of the whole model from its counterpart in a live
//                       group (B_heal = strategy.heal_bandwidth, default B_n).
//   diloco              asynchronous islands (DiLoCo with TorchFT): no checkpoints; G islands of
//                       N / G machines synchronize every H inner steps, outer sync
//                       A_H = 2 (G-1)/G g_o / (f_c B_n) + 2 (G-1) alpha, g_o = P w_o G / N
//                       (w_o = strategy.outer_gradient_bytes); heal as torchft's.
//   just-in-time        remote-periodic's checkpoints (fallback) plus, after a failure, a save
//                       by the surviving data-parallel replicas of J = max(C / B_s, (C G / N) / B_ser),
//                       then a recovery from storage of the interrupted minibatch's state.
//   async-two-phase     PyTorch DCP async_save / CheckFreq: a blocking staging copy of the shard
//                       into pinned CPU memory, S_stage = c / (G B_pcie), then a background phase
//                       B = max(C / B_s, c / B_ser) (to storage; tier storage) or, with a local
//                       tier of bandwidth L, B = max(c / L, c / B_ser) (tier memory, m = 1: the
//                       machine's own copy survives a software failure; local retrieval c / L +
//                       c / B_ser) with uploads to storage every kp, U = max(C / B_s, c / L);
//                       k = max(k, ceil(B / T)) (one staging buffer); the phase's throughput
//                       cost phi is charged as stall: S = S_stage + phi B (+ phi U k / kp);
//                       completion = max(S_stage + B, S).
//   none                no checkpoints.
//   moe-partial         gemini's tier and rules for a checkpoint of the dense state and K of the E
//                       experts (in rotation): r = 1 - phi + phi rho of the bytes, phi the experts'
//                       share; stale experts restored as saved or replayed (moe_partial.cpp).
//   shadow              Checkmate's shadow cluster (arXiv 2507.13522): the switch multicasts every
//                       step's reduced gradients, G = P w_g bytes, to M CPU machines that step the
//                       optimizer on a live copy; k = 1, nothing added to the training NICs;
//                       shadow step T_sh = max((G/M) / (f B_sh), (C/M) / U); S = max(0, T_sh - T)
//                       (training throttled to the shadow's pace); completion = T_sh; retrieval
//                       peer = max(C / (M f B_sh), c / (f B_n)) + c / B_ser; a failed shadow machine
//                       is out for W = replacement + (C/M) / (f B_sh), during which a training
//                       failure recovers from storage (persistent track as GEMINI's).
// One rounding rule for intervals given as durations (persistent_interval, interval): round(x)
// is the nearest whole number of periods, halves up, at least 1 (so "3h" at T = 21.34 s is
// 506 iterations for both remote-periodic and GEMINI's persistent copies, not 506 and 507).
// Retrieval (transfer into the machine's CPU memory, then load at B_ser):
//   local = c / B_ser;  peer = c / (f B_n) + c / B_ser;  storage = C / B_s + c / B_ser
//   (every machine reads its shard at once, sharing B_s; GEMINI §5). Restarting from the
//   initial state (no checkpoint yet) retrieves nothing.
// Scenario fields strategy.checkpoint_stall / strategy.checkpoint_duration override S and
// completion; training.iteration_time overrides T.
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct IterationCosts;  // checkpoint/iteration_costs.hpp (the iteration model's results)

/// Where a strategy's checkpoints land: none, CPU memory (+ a persistent upload track),
/// storage, or the three levels of multi-level checkpointing; or per_step: no checkpoints, the
/// job trains as replica groups and a failed group heals from a live one (torchft); or just_in_time: periodic checkpoints in storage, and after a failure the
/// surviving data-parallel replicas save the state of the interrupted minibatch (just-in-time); or
/// islands: no checkpoints, replica groups synchronize every H steps and a failed one drops out
/// and rejoins at a synchronization (diloco).
/// Or shadow: every step's gradients reach a shadow cluster of CPU machines that holds a live copy
/// of the state (shadow, Checkmate); a failure retrieves it from there unless a shadow machine is
/// re-syncing, then from storage.
enum class CheckpointTier { none, memory, storage, multi_level, per_step, just_in_time, islands, shadow };

/// The tier takes periodic checkpoints (every k iterations, stall S, completion).
constexpr bool takes_checkpoints(CheckpointTier tier) {
  return tier != CheckpointTier::none && tier != CheckpointTier::per_step && tier != CheckpointTier::islands;
}

/// MoE partial checkpoints (moe-partial): K of the E experts of each layer per checkpoint, in
/// rotation (formulas: run/strategies/moe_partial.cpp).
struct MoePartialCosts {
  int experts = 0;                        ///< E (0: not moe-partial)
  std::int64_t experts_per_checkpoint = 0;  ///< K, a divisor of E
  double expert_fraction = 0;             ///< phi: the experts' share of the checkpoint bytes
  double machine_fraction = 0;            ///< the busiest machine's partial shard over its full shard
  double checkpoint_bytes = 0;            ///< one partial checkpoint, whole job: C (1 - phi + phi K / E)
  double full_checkpoint_bytes = 0;       ///< C
  double staleness_mean = 0;              ///< iterations, over the experts, at the restored checkpoint
  double staleness_max = 0;               ///< iterations
  bool replay = false;                    ///< stale experts replayed from logged activations
  double expert_compute_share = 0;        ///< f_x: the experts' share of an iteration's compute
  double log_bytes_per_machine = 0;       ///< activation and gradient log kept per machine (replay)
  SimTime replay_time;                    ///< added to every retrieval (replay)
};

struct StrategyCosts {
  StrategyKind strategy = StrategyKind::none;
  SimTime iteration_time;                 ///< T
  CheckpointTier tier = CheckpointTier::none;
  std::int64_t every_iterations = 1;      ///< k
  SimTime stall;                          ///< S, added to each carrying iteration
  SimTime completion;                     ///< from the carrying iteration's start to usable
  std::int64_t persistent_every_iterations = 0;  ///< kp (0 = no persistent track)
  SimTime upload;                         ///< persistent track: upload duration
  SimTime retrieval_local;
  SimTime retrieval_peer;
  SimTime retrieval_storage;
  /// The checkpoint in storage, whole job, bytes (workload/parallelism_model.hpp,
  /// StorageCheckpointBytes): what a save writes and what a load reads.
  double storage_save_bytes = 0;
  double storage_load_bytes = 0;
  int replicas = 1;                       ///< m (memory tier; 1 for erasure-coded: one copy, coded)
  /// Multi-level: level 1 every k (every_iterations, stall S), level 2 every k2 (a multiple of
  /// k, stall partner_stall), level 3 every kp (persistent_every_iterations, a multiple of k2,
  /// stall persistent_stall); 0 = the level is not used. Stalls are cumulative (S <= S2 <= S3).
  std::int64_t partner_every_iterations = 0;
  SimTime partner_stall;
  SimTime persistent_stall;
  /// remote-periodic / multi-level: the persistent period follows Daly's interval for the
  /// failure rate seen so far (run/interval_policy.hpp), from this prior cluster MTBF.
  bool adaptive_interval = false;
  SimTime adaptive_prior_mtbf;
  PlacementScheme placement = PlacementScheme::group;  ///< memory tier
  int replication_jump = 1;                            ///< J of the clique placement
  int group_size = 0;                     ///< g (erasure-coded; 0 otherwise)
  int parity = 0;                         ///< p (erasure-coded; 0 otherwise)
  SimTime encode;                         ///< E = p c / B_enc per checkpoint (erasure-coded)
  /// Per-step fault tolerance (tier per_step; run/group_outages.hpp): G replica groups, the
  /// fewest groups a step needs, the time a recovering group takes to copy the state from a
  /// live peer, the bound on a failed step's collective, and the heartbeat timeout after which
  /// the next quorum leaves the failed group out. The survivors resume
  /// max(heartbeat_timeout, min(detection, step_timeout)) after a failure.
  int replica_groups = 0;
  int min_groups = 1;
  SimTime heal;
  /// Per-step fault tolerance's own cost on every step (torchft: the gradient all-reduce across
  /// the replica groups and the should_commit vote; run/strategies/torchft.cpp): each step takes
  /// T + ft_step, the ft_step counted as fault-tolerance time, not training.
  SimTime ft_step;
  /// A failed group's restart when the restart phases are in effect (failures.restart not
  /// written): the phases at the group's ranks (N / G machines) plus its communicator across
  /// the groups, instead of the whole job's restart; zero otherwise (the causes' restarts as
  /// written). run/strategies/torchft.cpp.
  SimTime group_restart;
  /// The communicator across the replica groups re-created at a quorum change (G ranks), which
  /// every group waits for twice per failure (the group leaves, and rejoins); zero without the
  /// restart phases.
  SimTime reconfigure;
  SimTime step_timeout = SimTime::max();
  SimTime heartbeat_timeout;
  /// Islands (tier islands; diloco, run/strategies/diloco.cpp): the islands (replica_groups)
  /// synchronize every H = sync_every inner steps; the outer synchronization's all-reduce of the
  /// pseudo-gradient takes outer_sync, not overlapped with the inner steps.
  std::int64_t sync_every = 0;
  SimTime outer_sync;
  /// Just-in-time (tier just_in_time; replica_groups G data-parallel replicas of every shard):
  /// the surviving replicas' save after a failure, J = max(C / B_s, c_G / B_ser).
  SimTime jit_save;
  /// Async-two-phase (run/strategies/async_two_phase.cpp): the blocking staging copy and the
  /// background phase that follows it.
  SimTime staging;
  SimTime background;
  /// MoE partial checkpoints (moe-partial, run/strategies/moe_partial.cpp; zero otherwise).
  MoePartialCosts moe;
  /// Shadow-cluster replication (tier shadow; run/strategies/shadow.cpp): M shadow machines
  /// (not counted in the cluster's machines), the gradient bytes multicast to them per step (the
  /// whole model's, P w_g), each shadow machine's step (max of its gradient ingress and its
  /// optimizer update), the outage of one failed shadow machine (replacement + its shard's
  /// re-sync), the re-sync of the whole shadow after a recovery from storage, and the rate of
  /// shadow machine failures (all M together, per second).
  int shadow_machines = 0;
  double shadow_gradient_bytes = 0;
  SimTime shadow_step;
  SimTime shadow_outage;
  SimTime shadow_resync;
  double shadow_failure_rate = 0;
  /// What qualifies these costs, one sentence each, for every report that prints them (run,
  /// analyze, sweep points, Python): fields the scenario writes that nothing reads
  /// (run/unread_fields.hpp), a job priced although it does not fit its GPUs (--force). Empty
  /// for most scenarios; the JSON writers add "warnings" only when it is not.
  std::vector<std::string> warnings;
  [[nodiscard]] bool erasure_coded() const { return group_size > 0; }
};

/// The restart a failure cause pays under these costs: a replica group's restart (group_restart,
/// set by per-step fault tolerance with the restart phases in effect) where the cause takes the
/// scenario's whole-job restart, else the cause's own. The run model and the per-step closed form
/// both ask this.
inline SimTime cause_restart_under(const StrategyCosts& c, SimTime scenario_restart, SimTime cause_restart) {
  return c.group_restart > SimTime::zero() && cause_restart == scenario_restart ? c.group_restart : cause_restart;
}

/// Time ZeRO-3 keeps each machine's NIC busy per iteration, to first order: parameters are
/// all-gathered twice (forward, backward) and gradients reduce-scattered once, each moving
/// (N-1)/N of the fp16 model (2 bytes/parameter) through every machine's NIC (ring algorithms).
SimTime first_order_communication_time(const Scenario& scenario);

/// First-order iteration time when the scenario gives none and no iteration model result is
/// passed: max(compute, ZeRO-3 communication), see strategy_costs.cpp.
SimTime first_order_iteration_time(const Scenario& scenario);

/// Costs of scenario.strategy. `iteration` (may be null) supplies the iteration model's results;
/// explicit scenario fields win over both.
StrategyCosts compute_strategy_costs(const Scenario& scenario, const IterationCosts* iteration);

/// Inputs every strategy's cost function (run/strategy.hpp, Strategy::costs) shares.
struct CostInputs {
  const Scenario& s;
  const IterationCosts* iteration;  ///< may be null
  SimTime t;                        ///< iteration time
  double shard;                     ///< checkpoint bytes per machine
  SimTime storage_transfer;         ///< whole checkpoint through the shared storage bandwidth
  SimTime load;                     ///< shard through the serialization bandwidth
  /// What a load from storage reads through the storage bandwidths (the parallelism unit's
  /// storage_bytes().load; more than the upload when ranks read the same state).
  SimTime storage_load = SimTime::zero();
};

}  // namespace ckptsim
