// Parameters owned by strategy: the checkpoint and recovery strategies (each strategy's parameters()
// in run/strategies/ names the rows it reads). Read by run/strategy.hpp, run/strategies/. Rows of the
// parameter table (parameters.hpp): each says which models read it.
#include <string>

#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "parameter_blocks.hpp"

namespace ckptsim {
namespace {

/// moe-partial's rows are written into the effective scenario only under moe-partial, so the
/// other strategies' scenarios keep their effective form and hash.
bool moe_partial_strategy_only(const Scenario& s) { return s.strategy.kind == StrategyKind::moe_partial; }

}  // namespace

ParameterBlock strategy_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"strategy", {
    {"/strategy/kind", U::name, C::none, P::required, R::iteration | R::costs | R::run | R::placement, "checkpoint and recovery strategy",
     [](Scenario& s) -> FieldRef { return &s.strategy.kind; }, &strategy_kind_names},
    {"/strategy/replicas", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs | R::run | R::placement, "in-memory replicas m, the local one included",
     [](Scenario& s) -> FieldRef { return &s.strategy.replicas; }},
    {"/strategy/placement", U::name, C::none, P::defaulted, R::iteration | R::run | R::placement, "replica placement scheme",
     [](Scenario& s) -> FieldRef { return &s.strategy.placement; }, &placement_names},
    {"/strategy/replication_jump", U::integer, C::at_least_one, P::defaulted, R::iteration | R::run | R::placement, "clique placement: machines between successive holders of a checkpoint (NVIDIA Resiliency Extension's replication_jump over the GPUs per machine; 1 = consecutive machines, as group)",
     [](Scenario& s) -> FieldRef { return &s.strategy.replication_jump; }},
    {"/strategy/every_iterations", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "in-memory checkpoint every k iterations",
     [](Scenario& s) -> FieldRef { return &s.strategy.every_iterations; }},
    {"/strategy/gpu_buffer", U::bytes, C::positive, P::defaulted, R::iteration | R::costs, "receiver GPU buffer R for checkpoint chunks",
     [](Scenario& s) -> FieldRef { return &s.strategy.gpu_buffer_bytes; }},
    {"/strategy/sub_buffers", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "pipelined sub-buffers p of the GPU buffer",
     [](Scenario& s) -> FieldRef { return &s.strategy.sub_buffers; }},
    {"/strategy/span_safety", U::number, C::unit_interval, P::defaulted, R::iteration | R::costs, "usable share mu of each idle span",
     [](Scenario& s) -> FieldRef { return &s.strategy.span_safety; }},
    {"/strategy/scheduler", U::name, C::none, P::defaulted, R::iteration | R::costs, "checkpoint traffic scheduler",
     [](Scenario& s) -> FieldRef { return &s.strategy.scheduler; }, &scheduler_names},
    {"/strategy/persistent_interval", U::duration_or_never, C::positive, P::defaulted, R::costs, "persistent checkpoint interval of in-memory strategies (async-two-phase: of its uploads from the local tier), or \"never\"",
     [](Scenario& s) -> FieldRef { return &s.strategy.persistent_interval; }},
    {"/strategy/interval", U::duration, C::positive, P::defaulted, R::costs, "remote-periodic checkpoint interval; just-in-time: its periodic fallback checkpoints' interval",
     [](Scenario& s) -> FieldRef { return &s.strategy.interval; }},
    {"/strategy/local_interval", U::duration, C::positive, P::defaulted, R::costs, "multi-level: level-1 (own CPU memory) checkpoint interval",
     [](Scenario& s) -> FieldRef { return &s.strategy.local_interval; }},
    {"/strategy/partner_interval", U::duration, C::positive, P::defaulted, R::costs, "multi-level: level-2 (partners' CPU memory) checkpoint interval",
     [](Scenario& s) -> FieldRef { return &s.strategy.partner_interval; }},
    {"/strategy/adaptive_interval", U::boolean, C::none, P::defaulted, R::costs, "remote-periodic, remote-highfreq and multi-level (the others do not read it): set the persistent interval by Daly's formula from the failure rate seen so far",
     [](Scenario& s) -> FieldRef { return &s.strategy.adaptive_interval; }},
    {"/strategy/adaptive_prior_mtbf", U::duration, C::positive, P::defaulted, R::costs, "adaptive interval: prior cluster MTBF (weight of one failure)",
     [](Scenario& s) -> FieldRef { return &s.strategy.adaptive_prior_mtbf; }},
    {"/strategy/checkpoint_stall", U::duration, C::non_negative, P::optional, R::costs, "explicit training stall per checkpoint",
     [](Scenario& s) -> FieldRef { return &s.strategy.checkpoint_stall; }},
    {"/strategy/checkpoint_duration", U::duration, C::non_negative, P::optional, R::costs, "explicit time from checkpoint start to completion",
     [](Scenario& s) -> FieldRef { return &s.strategy.checkpoint_duration; }},
    {"/strategy/group_size", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "erasure-coded: machines per coding group g (must divide the machine count)",
     [](Scenario& s) -> FieldRef { return &s.strategy.group_size; }},
    {"/strategy/parity", U::integer, C::non_negative, P::defaulted, R::iteration | R::costs, "erasure-coded: parity symbols p per stripe of g; a group survives any p replaced machines (1 <= p < g)",
     [](Scenario& s) -> FieldRef { return &s.strategy.parity; }},
    {"/strategy/encode_bandwidth", U::bandwidth, C::positive, P::defaulted, R::costs, "erasure-coded: CPU encode/decode bandwidth per machine (GF(2^8) multiply-accumulate input)",
     [](Scenario& s) -> FieldRef { return &s.strategy.encode_bandwidth; }},
    // torchft (run/strategies/torchft.cpp; TorchFT, https://github.com/pytorch/torchft: the
    // README's two-group example, torchft/manager.py's Manager timeout, src/lighthouse.rs's
    // heartbeat_timeout_ms default, torchft/checkpointing/pg_transport.py's heal over the
    // process group).
    {"/strategy/replica_groups", U::integer, C::at_least_one, P::defaulted, R::costs | R::run, "torchft / just-in-time / diloco: replica groups G (diloco: islands) (HSDP: each group of N / G machines holds a whole copy of the model state; at least 2, dividing the machine count; default 2, TorchFT's README example)",
     [](Scenario& s) -> FieldRef { return &s.strategy.replica_groups; }},
    {"/strategy/min_replica_groups", U::integer, C::at_least_one, P::defaulted, R::costs | R::run, "torchft / diloco: fewest groups a step (diloco: an outer synchronization) needs (TorchFT min_replica_size / lighthouse --min_replicas; at most replica_groups; default 1)",
     [](Scenario& s) -> FieldRef { return &s.strategy.min_replica_groups; }},
    {"/strategy/step_timeout", U::duration, C::positive, P::defaulted, R::costs | R::run, "torchft / diloco: the longest the surviving groups wait in a failed step's (diloco: outer synchronization's) collective (TorchFT Manager timeout, default 60 s)",
     [](Scenario& s) -> FieldRef { return &s.strategy.step_timeout; }},
    {"/strategy/heartbeat_timeout", U::duration, C::non_negative, P::defaulted, R::costs | R::run, "torchft / diloco: time without a heartbeat after which the lighthouse drops a group from the next quorum (TorchFT lighthouse heartbeat_timeout_ms, default 5 s)",
     [](Scenario& s) -> FieldRef { return &s.strategy.heartbeat_timeout; }},
    {"/strategy/heal_bandwidth", U::bandwidth, C::positive, P::optional, R::costs, "torchft / diloco: per-machine bandwidth a recovering group copies its state from a live peer at (default: the achieved point-to-point rate of a machine sending from GPU memory, p2p_efficiency x network_bandwidth, capped by PCIe without GPUDirect RDMA: TorchFT's process-group transport on the NIC)",
     [](Scenario& s) -> FieldRef { return &s.strategy.heal_bandwidth; }},
    {"/strategy/ft_transport", U::name, C::none, P::defaulted, R::costs, "torchft / diloco: the transport of its all-reduce across replica groups (torchft: the gradients every step; diloco: the pseudo-gradient every sync_every steps): NCCL on the GPU tensors (ProcessGroupNCCL / ProcessGroupBabyNCCL), or Gloo over TCP on CPU copies, which adds their PCIe copies both ways (ProcessGroupGloo; torchft/process_group.py)",
     [](Scenario& s) -> FieldRef { return &s.strategy.ft_transport; }, &ft_transport_names},
    {"/strategy/ft_commit_latency", U::duration, C::non_negative, P::defaulted, R::costs, "torchft: each step's should_commit vote: a device synchronize and an RPC the group's manager answers once every rank has voted (torchft/manager.py should_commit; default 0: no measurement found)",
     [](Scenario& s) -> FieldRef { return &s.strategy.ft_commit_latency; }},
    // diloco (run/strategies/diloco.cpp; DiLoCo, Douillard et al., arXiv 2311.08105, section 3:
    // H = 500 inner steps; TorchFT's DiLoCo, torchft/local_sgd.py: sync_every, the pseudo-gradient
    // in the parameters' dtype).
    {"/strategy/sync_every", U::integer, C::at_least_one, P::defaulted, R::costs | R::run, "diloco: inner steps H between two outer synchronizations of the islands (TorchFT DiLoCo sync_every; default 500, DiLoCo's H)",
     [](Scenario& s) -> FieldRef { return &s.strategy.sync_every; }},
    {"/strategy/outer_gradient_bytes", U::number, C::positive, P::defaulted, R::costs, "diloco: bytes per parameter of the pseudo-gradient all-reduced across the islands at each outer synchronization (default 4: fp32 parameters, whose difference TorchFT's DiLoCo all-reduces; 2 for a bf16 outer gradient)",
     [](Scenario& s) -> FieldRef { return &s.strategy.outer_gradient_bytes; }},
    // async-two-phase (run/strategies/async_two_phase.cpp): no published per-device figure is a
    // default for either field. A local tier is the user's own disks (FastPersist, DataStates-LLM
    // write to node-local NVMe), so its bandwidth is theirs to give; the background phase's
    // throughput cost is measured as the iteration time with and without a background write.
    {"/strategy/local_bandwidth", U::bandwidth, C::positive, P::optional, R::costs, "async-two-phase: write and read bandwidth per machine of a local tier (node-local NVMe) that the background phase writes each checkpoint to before storage; absent: no local tier, the background phase writes to storage only",
     [](Scenario& s) -> FieldRef { return &s.strategy.local_bandwidth; }},
    {"/strategy/staging_bandwidth", U::bandwidth, C::positive, P::optional, R::costs, "async-two-phase: rate per machine of the blocking staging copy into CPU memory (default: every GPU copying into pinned memory over its own link, GPUs x cluster.gpu_cpu_bandwidth; PyTorch DCP's async_save without a pinned stager allocates pageable memory and copies into it on every save, slower: give your measured rate)",
     [](Scenario& s) -> FieldRef { return &s.strategy.staging_bandwidth; }},
    {"/strategy/persist_throughput_cost", U::number, C::probability, P::defaulted, R::costs, "async-two-phase: share of training throughput lost while the background phase (serialization, local and storage writes) runs, in [0, 1); default 0",
     [](Scenario& s) -> FieldRef { return &s.strategy.persist_throughput_cost; }},
    // MoC-System's partial experts checkpointing (arXiv 2408.04307) saves a subset of the experts
    // per checkpoint; MoEvement (arXiv 2412.15411) replays from logged activations. No published
    // K is a default: absent, every expert is saved (a full checkpoint).
    {"/strategy/moe_experts_per_checkpoint", U::integer, C::at_least_one, P::optional, R::costs, "moe-partial: experts K of each MoE layer's /model/experts saved by each checkpoint, in rotation (a divisor of /model/experts; absent: all, a full checkpoint)",
     [](Scenario& s) -> FieldRef { return &s.strategy.moe_experts_per_checkpoint; }, nullptr, {}, &moe_partial_strategy_only},
    {"/strategy/moe_replay", U::boolean, C::none, P::defaulted, R::costs, "moe-partial: a recovery replays the stale experts' lost iterations from a log of their routed inputs and gradients (MoEvement); false: it restores them as saved and accepts their lost updates (MoC-System), whose effect on model quality is not modelled",
     [](Scenario& s) -> FieldRef { return &s.strategy.moe_replay; }, nullptr, {}, &moe_partial_strategy_only},
    // shadow (run/strategies/shadow.cpp; Checkmate, Bhardwaj et al., arXiv 2507.13522: gradients
    // multicast to a CPU shadow cluster that applies the optimizer step to a live copy). No
    // published per-machine figure is a default for the shadow machines' count, update rate or
    // failure rate: they are required under shadow.
    {"/strategy/shadow_machines", U::integer, C::at_least_one, P::optional, R::costs | R::run, "shadow: CPU machines of the shadow cluster M, beside the training machines (required under shadow; each holds C / M of the state)",
     [](Scenario& s) -> FieldRef { return &s.strategy.shadow_machines; }},
    {"/strategy/shadow_update_bandwidth", U::bandwidth, C::positive, P::optional, R::costs | R::run, "shadow: checkpoint bytes (model state) one shadow machine's CPU optimizer steps per second (required under shadow: measure your CPU Adam step)",
     [](Scenario& s) -> FieldRef { return &s.strategy.shadow_update_bandwidth; }},
    {"/strategy/shadow_machine_mtbf", U::duration, C::positive, P::optional, R::costs | R::run, "shadow: mean time between failures of one shadow machine (exponential; required under shadow)",
     [](Scenario& s) -> FieldRef { return &s.strategy.shadow_machine_mtbf; }},
    {"/strategy/shadow_replacement", U::duration, C::non_negative, P::optional, R::costs | R::run, "shadow: time to replace a failed shadow machine before its shard re-syncs (default: failures.replacement.fixed, when the replacement distribution is fixed)",
     [](Scenario& s) -> FieldRef { return &s.strategy.shadow_replacement; }},
    {"/strategy/shadow_network_bandwidth", U::bandwidth, C::positive, P::optional, R::costs | R::run, "shadow: NIC bandwidth of one shadow machine (default: cluster.network_bandwidth)",
     [](Scenario& s) -> FieldRef { return &s.strategy.shadow_network_bandwidth; }},
    {"/strategy/shadow_gradient_bytes", U::number, C::positive, P::optional, R::costs | R::run, "shadow: bytes per parameter of the gradients multicast to the shadow every step (default: the training's word, 2 with mixed precision, ZeRO's 2 Psi bytes, else 4)",
     [](Scenario& s) -> FieldRef { return &s.strategy.shadow_gradient_bytes; }},
  }};
  // clang-format on
  // The iteration model reads the strategy kind only through its checkpoint layout (which copies
  // the traffic scheduler plans: checkpoint/iteration_study.cpp), so strategies of one layout
  // share the sweep's cached iteration costs.
  row_of(block, "/strategy/kind").iteration_value = [](const Scenario& s) {
    return "layout " + std::to_string(static_cast<int>(checkpoint_layout(s.strategy.kind)));
  };
  return block;
}

}  // namespace ckptsim
