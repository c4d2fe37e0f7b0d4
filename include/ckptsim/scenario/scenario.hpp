#pragma once
// Scenario: the sealed, validated description of one training run (docs/scenario-format.md).
//
// Plain structs in SI units: durations are SimTime, sizes are bytes (double), bandwidths are
// bytes per second, FLOP rates FLOP/s, failure rates failures per machine per second.
// Presets have been applied and every default filled in by the loader (scenario/loader.hpp);
// models below never see JSON. Bandwidths per machine are unidirectional (each direction of a
// full-duplex NIC carries this much).
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/cluster.hpp"
#include "ckptsim/scenario/kinds.hpp"
#include "ckptsim/scenario/scheduler_id.hpp"

namespace ckptsim {

struct StorageSpec {
  double bandwidth = 0;                    ///< bytes/s, aggregate, shared by every reader/writer
  std::optional<double> client_bandwidth;  ///< bytes/s one machine reads or writes at most; nullopt: no per-client limit
};

struct ModelSpec {
  std::string preset;                      ///< "" when explicit
  double parameters = 0;                   ///< total parameter count
  int layers = 0;
  int hidden = 0;
  int ffn = 0;
  int heads = 0;
  int vocabulary = 0;
  bool causal = true;                      ///< decoder (GPT, Llama): each token attends to earlier ones only
  double dropout = 0.1;                    ///< dropout probability of attention and residual branches (0: none)
  // Read by the megatron model only (workload/megatron_layout.hpp); the ZeRO-3 engines model
  // the GPT-style layer of the fields above.
  int kv_heads = 0;                        ///< key/value heads (grouped-query attention); the loader fills heads when absent
  bool gated_ffn = false;                  ///< SwiGLU: gate, up and down projections (3 FFN matrices)
  bool tied_embeddings = true;             ///< the output projection shares the input embedding
  int experts = 1;                         ///< mixture of experts: experts per layer (1: dense)
  int experts_per_token = 1;               ///< mixture of experts: experts each token is routed to (top-k)
};

/// DeepSpeed ZeRO-3 knobs (deepspeed/runtime/zero/config.py at v0.7.3; defaults as there).
/// Counts are parameters (elements), not bytes.
struct Zero3Spec {
  double prefetch_bucket_size = 5e7;       ///< stage3_prefetch_bucket_size
  double param_persistence_threshold = 1e5;  ///< stage3_param_persistence_threshold
  double max_live_parameters = 1e9;        ///< stage3_max_live_parameters
  double max_reuse_distance = 1e9;         ///< stage3_max_reuse_distance
  double reduce_bucket_size = 5e8;         ///< reduce_bucket_size
  double sub_group_size = 1e9;             ///< sub_group_size: optimizer-step granularity
  /// The parameter coordinator's trace state in the steady state (workload/deepspeed_zero3.hpp).
  Zero3Trace trace = Zero3Trace::complete;
};

/// PyTorch FSDP knobs (torch.distributed.fsdp.FullyShardedDataParallel, PyTorch 2.1 defaults;
/// workload/fsdp.hpp). The wrapped unit is one transformer block; the root holds the rest.
struct FsdpSpec {
  FsdpSharding sharding_strategy = FsdpSharding::full_shard;
  FsdpBackwardPrefetch backward_prefetch = FsdpBackwardPrefetch::backward_pre;
  bool forward_prefetch = false;
  bool limit_all_gathers = true;
};

/// Megatron-LM's parallel layout and knobs (megatron/training/arguments.py defaults;
/// workload/megatron_layout.hpp). World = tp x cp x dp x pp GPUs; expert parallelism splits the
/// experts over ep of the dp x cp ranks of a stage.
struct MegatronSpec {
  int tp = 1;                              ///< --tensor-model-parallel-size
  int pp = 1;                              ///< --pipeline-model-parallel-size
  std::optional<std::int64_t> dp;          ///< data-parallel size; the loader fills GPUs / (tp cp pp) when absent
  int cp = 1;                              ///< --context-parallel-size
  int ep = 1;                              ///< --expert-model-parallel-size
  int virtual_stages = 1;                  ///< model chunks per pipeline rank (--num-layers-per-virtual-pipeline-stage); > 1: interleaved 1F1B
  int micro_batches = 1;                   ///< micro-batches per pipeline per step (global batch / (micro batch x dp))
  /// --microbatch-group-size-per-virtual-pipeline-stage: contiguous micro-batches per model chunk
  /// in the interleaved schedule (Megatron-LM's default: pp when absent).
  std::optional<std::int64_t> microbatch_group_size;
  /// --deallocate-pipeline-outputs (megatron/training/argument_utils.py sets it): a stage's output
  /// tensor is freed once sent to the next stage; false keeps it until its backward.
  bool deallocate_pipeline_outputs = true;
  std::optional<std::int64_t> first_stage_layers;  ///< --decoder-first-pipeline-num-layers
  std::optional<std::int64_t> last_stage_layers;   ///< --decoder-last-pipeline-num-layers
  bool sequence_parallel = false;          ///< --sequence-parallel
  Recomputation recomputation = Recomputation::none;  ///< --recompute-granularity
  bool distributed_optimizer = false;      ///< --use-distributed-optimizer
  bool overlap_grad_reduce = false;        ///< --overlap-grad-reduce
  bool overlap_param_gather = false;       ///< --overlap-param-gather
  bool grad_reduce_in_fp32 = false;        ///< --accumulate-allreduce-grads-in-fp32
  /// --fp16 (else --bf16 under training.mixed_precision): fp16 adds the dynamic grad scaler's
  /// unscale, inf/NaN check and found-inf all-reduce to the optimizer step.
  bool fp16 = false;
  double clip_grad = 1.0;                  ///< --clip-grad (Megatron's default 1.0); 0: no gradient norm or clip
  /// --moe-expert-capacity-factor: each expert takes at most ceil(T·k/E · factor) tokens of a
  /// rank, the rest are dropped; nullopt: dropless (Megatron's default).
  std::optional<double> moe_capacity_factor;
  bool moe_pad_to_capacity = false;        ///< --moe-pad-expert-input-to-capacity: every expert gets exactly its capacity
  /// The busiest expert's tokens over the mean (a stated input, 1: balanced): it sets the expert
  /// step's time, since the all-to-alls and the expert GEMMs wait for it.
  double moe_load_imbalance = 1.0;
  bool tp_across_machines = false;         ///< allow a tensor group to span machines (NVLink domains)
  /// --ckpt-fully-parallel-load (megatron/training/arguments.py, store_true: off by default): the
  /// data-parallel ranks split the read of the state they all hold and exchange it; off, every
  /// data-parallel rank reads its own copy from storage (workload/megatron_iteration.hpp,
  /// megatron_storage_bytes).
  bool fully_parallel_load = false;
};

struct TrainingSpec {
  Parallelism parallelism = Parallelism::zero3;
  EngineKind engine = EngineKind::deepspeed_zero3;  ///< which library runs it
  int micro_batch = 8;                     ///< sequences per GPU per iteration
  int sequence_length = 512;
  double checkpoint_bytes_per_parameter = 12;  ///< Adam exp_avg + exp_avg_sq + fp32 master
  double serialization_bandwidth = 0;      ///< bytes/s per machine: snapshot to / reload from CPU memory
  /// Explicit override of the kernel model (a calibration result): every compute task takes
  /// FLOPs / (gpu_peak_flops x this). nullopt: the kernel model (workload/kernel_time.hpp).
  std::optional<double> compute_efficiency;
  AttentionKind attention = AttentionKind::unfused;  ///< workload/kernels.hpp
  CrossEntropyKind cross_entropy = CrossEntropyKind::megatron_fp32;  ///< workload/kernels.hpp
  GeluKind gelu = GeluKind::fused;  ///< workload/kernels.hpp, caching_allocator.hpp (zero3 only)
  bool activation_recomputation = true;
  bool mixed_precision = true;
  /// w: bytes of one 16-bit (mixed precision) or fp32 parameter, gradient or activation word.
  [[nodiscard]] double word_bytes() const { return mixed_precision ? 2.0 : 4.0; }
  std::optional<SimTime> iteration_time;   ///< explicit: overrides the iteration model
  /// Host (Python) time of one engine hook call: DeepSpeed's pre/post submodule forward and
  /// backward hooks, FSDP's pre/post forward and backward hooks per unit. 0: not modelled (no
  /// published per-hook figure, docs/models.md).
  SimTime hook_host_time;
  /// The job is known to run on these GPUs (a measured run): where the iteration model's GPU
  /// memory says it does not fit, results carry that verdict as a warning instead of refusing
  /// the scenario (run/run_checks.hpp).
  bool known_to_run = false;
  Zero3Spec zero3;
  FsdpSpec fsdp;
  MegatronSpec megatron;                   ///< parallelism megatron only
};

struct StrategySpec {
  StrategyKind kind = StrategyKind::gemini;
  int replicas = 2;                        ///< m, including the local one (gemini, in-memory-blocking)
  PlacementScheme placement = PlacementScheme::group;
  int replication_jump = 1;                ///< clique placement: machines between a checkpoint's holders
  int every_iterations = 1;                ///< checkpoint every k iterations (gemini, in-memory-blocking)
  double gpu_buffer_bytes = 128.0 * 1024 * 1024;  ///< R, the receiver's GPU buffer for checkpoint chunks
  int sub_buffers = 4;                     ///< p
  double span_safety = 0.8;                ///< mu, the usable share of each idle span
  SchedulerId scheduler = SchedulerKind::gemini;    ///< traffic scheduler (iteration model): a built-in or a registered one
  std::optional<SimTime> persistent_interval = hours(3);  ///< gemini / in-memory-blocking; nullopt = never
  SimTime interval = hours(3);             ///< remote-periodic checkpoint interval
  SimTime local_interval = minutes(10);    ///< multi-level: level 1 (own CPU memory) interval
  SimTime partner_interval = minutes(30);  ///< multi-level: level 2 (partners' CPU memory) interval
  /// Adaptive persistent interval (remote-periodic's interval, multi-level's level 3): at every
  /// restart, Daly's interval for the failure rate estimated from the failures seen so far.
  bool adaptive_interval = false;
  SimTime adaptive_prior_mtbf = days(1);   ///< cluster MTBF the estimate starts from (weight: one failure)
  /// Explicit costs that bypass the first-order formulas / iteration model:
  std::optional<SimTime> checkpoint_stall;      ///< training blocked per checkpoint
  std::optional<SimTime> checkpoint_duration;   ///< from start until the checkpoint is complete
  /// erasure-coded (checkpoint/erasure_code.hpp): coding groups of g machines, p parity symbols
  /// per stripe of g, encoded on the CPU at encode_bandwidth (bytes/s per machine).
  int group_size = 8;
  int parity = 1;
  double encode_bandwidth = 10e9;
  /// torchft (run/strategies/torchft.cpp): G replica groups (HSDP: a whole copy of the model per
  /// group of N / G machines), the fewest a step needs (TorchFT's min_replica_size), the bound on
  /// a failed step's collective (Manager timeout) and the lighthouse's heartbeat timeout, and the
  /// per-machine bandwidth a healing group copies its state at (nullopt: the NIC's).
  int replica_groups = 2;
  int min_replica_groups = 1;
  SimTime step_timeout = seconds(60);
  SimTime heartbeat_timeout = seconds(5);
  std::optional<double> heal_bandwidth;
  /// torchft's cost per step (run/strategies/torchft.cpp): the transport of its all-reduce across
  /// the replica groups, and its should_commit vote's latency (a device synchronize and an RPC
  /// answered once every rank of the group has voted; 0: no measurement found).
  FtTransport ft_transport = FtTransport::nccl;
  SimTime ft_commit_latency = SimTime::zero();
  /// diloco (run/strategies/diloco.cpp): the islands (replica_groups) synchronize every H =
  /// sync_every inner steps (DiLoCo's H = 500, arXiv 2311.08105 section 3), all-reducing the
  /// pseudo-gradient, outer_gradient_bytes bytes per parameter (4: fp32, the dtype of the
  /// parameters TorchFT's DiLoCo subtracts, torchft/local_sgd.py).
  int sync_every = 500;
  double outer_gradient_bytes = 4;
  /// async-two-phase (run/strategies/async_two_phase.cpp): the local tier's write and read
  /// bandwidth per machine (a local NVMe array; nullopt: no local tier, the background phase
  /// writes to storage only), and the share of training throughput the background phase costs
  /// while it runs (0: none).
  std::optional<double> local_bandwidth;
  /// async-two-phase: the staging copy's rate per machine (bytes/s); nullopt = GPUs x PCIe (pinned).
  std::optional<double> staging_bandwidth;
  double persist_throughput_cost = 0;
  /// moe-partial (run/strategies/moe_partial.cpp): experts K of each MoE layer's E saved by each
  /// checkpoint, in rotation (nullopt: all E, a full checkpoint), and whether a recovery replays
  /// the stale experts' lost iterations from logged activations (MoEvement) instead of restoring
  /// them as saved (MoC-System).
  std::optional<std::int64_t> moe_experts_per_checkpoint;
  bool moe_replay = false;
  /// shadow (run/strategies/shadow.cpp; Checkmate, arXiv 2507.13522): the shadow cluster's CPU
  /// machines (required under shadow), each one's optimizer-update rate in checkpoint bytes per
  /// second (required: no published per-machine figure is a default), the mean time between
  /// failures of one shadow machine (required), the replacement of a failed one (nullopt: the
  /// training machines' failures.replacement.fixed), its NIC (nullopt: cluster.network_bandwidth),
  /// and the gradients' bytes per parameter (nullopt: the training's word, 2 bytes with mixed precision, ZeRO's 2 Psi, else 4).
  std::optional<std::int64_t> shadow_machines;
  std::optional<double> shadow_update_bandwidth;
  std::optional<SimTime> shadow_machine_mtbf;
  std::optional<SimTime> shadow_replacement;
  std::optional<double> shadow_network_bandwidth;
  /// Optional rather than defaulted, so that a scenario of another strategy writes no shadow
  /// field into its effective scenario (results stay as they were before shadow existed).
  std::optional<double> shadow_gradient_bytes;
};

/// How long a hardware failure waits for a replacement when no standby machine is free.
struct ReplacementSpec {
  ReplacementDistribution distribution = ReplacementDistribution::fixed;
  SimTime fixed = minutes(5);
  SimTime low = minutes(4);                ///< uniform
  SimTime high = minutes(7);
  SimTime median = minutes(5);             ///< lognormal
  double sigma = 0.25;                     ///< lognormal shape
};

/// One row of a failure cause table (failures/causes): what share of the machine failures it
/// accounts for, whether the machine loses its CPU memory and needs a replacement (hardware) or
/// only its processes restart (software), and how long detection and restart take for it.
struct FailureCauseSpec {
  std::string name;                        ///< [a-z0-9_-]+, unique in the table
  double share = 0;                        ///< relative weight (> 0); the table is normalized
  bool hardware = true;
  std::optional<SimTime> detection;        ///< nullopt: failures.detection
  std::optional<SimTime> restart;          ///< nullopt: failures.restart
  bool operator==(const FailureCauseSpec&) const = default;
};

/// The cause table: empty = no causes (hardware_fraction decides the outcome). `preset` names
/// the published table it was filled from ("" when written out in the scenario).
struct FailureCauseTable {
  std::string preset;
  std::vector<FailureCauseSpec> causes;
  /// The same table in effect (where it came from aside: the effective scenario writes rows).
  bool operator==(const FailureCauseTable& other) const { return causes == other.causes; }
};

/// One kind of failure domain (rack, leaf switch, power domain): consecutive machine indices
/// [d*machines, (d+1)*machines) form domain d; a domain failure takes all of them down at once.
struct DomainSpec {
  int machines = 0;                        ///< machines per domain; 0 = this kind is not modelled
  double rate = 0;                         ///< failures per domain per second
  double hardware_fraction = 1.0;          ///< share of domain failures whose machines lose CPU memory
};

/// The one rule for a failure domain's size, applied by the loader (failures.domains.*.machines)
/// and by `ckptsim placement --domain-size`: from 1 to the cluster's machine count (the last
/// domain may be partial).
constexpr bool domain_size_fits(int domain_machines, int machines) {
  return domain_machines >= 1 && domain_machines <= machines;
}

enum class DomainKind { rack = 0, leaf = 1, power = 2 };
constexpr int kDomainKinds = 3;

struct LemonSpec {
  LemonModel model = LemonModel::none;
  double fraction = 0.05;                  ///< fraction model: share of machines that are lemons
  double multiple = 10;                    ///< fraction model: a lemon's rate / the base rate
  double gamma_shape = 1.0;                ///< gamma model: rate multiplier ~ Gamma(k, 1/k) (mean 1)
  int quarantine_failures = 0;             ///< k: replace a machine failing k times within the window; 0 = never
  SimTime quarantine_window = days(7);
};

/// Hangs (failures/hangs): failures that leave processes alive but stuck in a collective, found
/// by timeouts rather than by a process exit (failure/fault_model.hpp has the detection rule).
struct HangSpec {
  double fraction = 0;                     ///< share of failures that hang (0 = every failure crashes)
  SimTime collective_timeout = minutes(10);   ///< PyTorch ProcessGroupNCCL default timeout
  double heartbeat_safety_factor = 5.0;    ///< NVRx FaultToleranceConfig.safety_factor
  SimTime check_interval = seconds(5);     ///< NVRx FaultToleranceConfig.workload_check_interval
};

/// Fail-slow stragglers (failures/stragglers): a machine runs slow for a while; the synchronous
/// job runs at `speed` while any straggler is present, until it recovers or is evicted.
struct StragglerSpec {
  double rate = 0;                         ///< straggler onsets per machine per second (0 = none)
  double speed = 0.5;                      ///< job throughput while a straggler is present / healthy
  SimTime duration = hours(1);             ///< mean of the exponential straggler duration
  std::optional<SimTime> eviction = minutes(10);  ///< onset to eviction (detection + decision); nullopt = never
};

/// Misdiagnosis (failures/misdiagnosis): a hardware failure's diagnosis evicts a healthy machine;
/// the faulty one stays and fails again.
struct MisdiagnosisSpec {
  double fraction = 0;                     ///< share of hardware failures misdiagnosed
  SimTime recurrence = hours(1);           ///< mean of the exponential time to the fault's recurrence
};

/// Silent data corruption (failures/silent_corruption): a machine computes wrong values without
/// failing; found `detection` later (loss spike, checksum), the run rolls back past it.
struct SilentCorruptionSpec {
  double rate = 0;                         ///< corruptions per machine per second (0 = none)
  SimTime detection = hours(1);            ///< corruption to detection
};

/// Live migration (failures/migration; failure/migration.hpp): a hardware failure announced early
/// enough is averted by moving the machine's state to a free standby at an iteration boundary.
struct MigrationSpec {
  double fraction = 0;                     ///< share of single-machine hardware failures predicted in time (0 = off)
  std::optional<SimTime> pause;            ///< the job's pause per migration; nullopt = derived (failure/migration.hpp)
};

/// Elastic restart (failures/elastic; failure/elastic.hpp): a lost machine with no free standby
/// takes its data-parallel replica out of the job, which restarts at the smaller size instead of
/// waiting for the replacement, and grows back once the replacement has arrived.
struct ElasticSpec {
  std::optional<std::int64_t> min_machines;  ///< the smallest size the job may shrink to (torchrun --nnodes MIN); nullopt = off
  std::optional<SimTime> reshard;            ///< time of one resharding; nullopt = derived (failure/elastic.hpp)
};

/// Restart tiers (failures/restart_tiers; failure/restart_tiers.hpp, docs/models.md "Restart
/// tiers"): which tier restarts the job after each class of fault, and what each tier costs.
/// Defaults: nvidia-resiliency-ext at commit d8686d9 (inprocess/wrap.py, Wrapper; the in-process
/// usage guide's restart-latency table, docs/source/inprocess/usage_guide.rst).
struct RestartTierSpec {
  bool enabled = false;                          ///< off: every restart costs the cause's restart
  RestartTier software = RestartTier::in_process;  ///< a crash with the machine intact
  RestartTier hang = RestartTier::in_process;      ///< a hang with the machine intact
  RestartTier hardware = RestartTier::in_job;      ///< a lost machine when a standby is free (else new job)
  SimTime in_process_latency = milliseconds(2500);  ///< destroy_process_group 0.5 + last_call_wait 1 + rank_assignment 0.5 + barrier 0.5 s
  SimTime soft_timeout = seconds(60);            ///< Wrapper soft_timeout: a rank without progress for this long aborts
  SimTime monitor_interval = seconds(1);         ///< Wrapper monitor_process_interval
  std::optional<SimTime> in_job_latency;         ///< every worker restarts; nullopt = the cause's restart
  SimTime new_job_overhead = SimTime::zero();    ///< a new scheduler job beyond an in-job restart (default: the new-job phases)
  /// new_job_overhead was not written and is the new-job phases' sum (set by the loader).
  bool new_job_overhead_from_phases = false;
  /// An in-process restart's new NCCL communicators, after destroy_process_group: the restart
  /// phases' communicator init at the job's ranks (set by the loader; not a field).
  SimTime communicator_rebuild = SimTime::zero();
};

/// Restart as phases (failures/restart_phases; scenario/restart_phases.hpp, docs/models.md
/// "Restart phases"): the defaults of failures.restart and of a new job's overhead, as sums of
/// named phases at the job's scale. Defaults and their sources: restart_phases.hpp.
struct RestartPhasesSpec {
  SimTime process_start = seconds(5);              ///< a worker process (container) started
  SimTime rendezvous_per_rank = microseconds(1017);  ///< TCPStore accepting every rank in turn
  SimTime nccl_init_fixed = milliseconds(660);     ///< NCCL init's part that does not grow with the ranks
  SimTime nccl_bootstrap_step = microseconds(896);   ///< one step of a bootstrap ring all-gather
  int nccl_bootstrap_rings = 1;                    ///< 1: NCCL <= 2.28 (R - 1 steps); 2: NCCL 2.29 (R / 2)
  SimTime warmup = seconds(253);                   ///< model and optimizer construction, compilation, warm-up
  SimTime first_iteration = SimTime::zero();       ///< the first step's extra time
  SimTime requeue = seconds(121);                  ///< a new job: the scheduler's requeue delay
  SimTime health_check = SimTime::zero();          ///< a new job: node health checks
  SimTime image_pull = milliseconds(55600);        ///< a new job: the container image on a fresh node
};

struct FailureSpec {
  FailureProcessKind process = FailureProcessKind::exponential;
  double rate = 0;                         ///< failures per machine per second (exponential)
  double weibull_shape = 0.7;              ///< k (weibull)
  SimTime weibull_scale = days(60);        ///< lambda, per machine (weibull)
  std::string trace_file;                  ///< CSV (trace), resolved relative to the scenario
  double hardware_fraction = 0.5;          ///< share of failures that are hardware
  SimTime detection = seconds(15);
  SimTime restart = seconds(253);          ///< an in-job restart of every process (default: the restart phases)
  RestartPhasesSpec restart_phases;
  /// failures.restart was not written and is the sum of the restart phases at this scale (set
  /// by the loader): the phases are then in effect, written into the effective scenario and read.
  bool restart_from_phases = false;
  ReplacementSpec replacement;
  FailureCauseTable causes;
  std::array<DomainSpec, kDomainKinds> domains{
      DomainSpec{0, 0, 1.0}, DomainSpec{0, 0, 0.0}, DomainSpec{0, 0, 1.0}};  ///< by DomainKind
  LemonSpec lemons;
  HangSpec hangs;
  StragglerSpec stragglers;
  MisdiagnosisSpec misdiagnosis;
  SilentCorruptionSpec silent_corruption;
  MigrationSpec migration;
  ElasticSpec elastic;
  RestartTierSpec restart_tiers;
  [[nodiscard]] const DomainSpec& domain(DomainKind k) const { return domains[static_cast<std::size_t>(k)]; }
};

struct RunSpec {
  std::optional<SimTime> duration;         ///< exactly one of duration / iterations is set
  std::optional<std::int64_t> iterations;
  int replicas = 100;                      ///< Monte Carlo replicas
  std::uint64_t seed = 1;
};

struct Scenario {
  std::string name;
  std::string source_file;                 ///< where it was loaded from ("" if built in code)
  /// The table pointers the loaded document writes, sorted (the top-level "seed" as /run/seed);
  /// empty for a scenario built in code. What the user said, as against defaults and presets:
  /// the warnings about fields nothing reads name only these (run/unread_fields.hpp).
  std::vector<std::string> written;
  /// Those of `written` whose value equals what the field held without it (its default, or its
  /// preset's value), sorted: writing them changes nothing (an effective scenario read back).
  std::vector<std::string> written_unchanged;
  ClusterSpec cluster;
  StorageSpec storage;
  ModelSpec model;
  TrainingSpec training;
  StrategySpec strategy;
  FailureSpec failures;
  RunSpec run;

  /// Checkpoint bytes of the whole model (parameters x bytes per parameter).
  [[nodiscard]] double checkpoint_bytes() const {
    return model.parameters * training.checkpoint_bytes_per_parameter;
  }
  /// One machine's shard of the checkpoint (ZeRO-3 partitions states evenly over machines).
  [[nodiscard]] double checkpoint_bytes_per_machine() const {
    return checkpoint_bytes() / static_cast<double>(cluster.machines);
  }
};

}  // namespace ckptsim
