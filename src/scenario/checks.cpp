// Cross-field checks of a scenario (checks.hpp).
//
// CPU memory (GEMINI, SOSP '23, §5): an in-memory strategy keeps two CPU buffers per shard a
// machine holds (the last complete checkpoint and the one in progress); with m replicas a machine
// holds m shards (max_shards_per_machine() of the placement), each checkpoint_bytes_per_machine()
// bytes, so 2 x m x shard must fit in cluster.cpu_memory.
#include "checks.hpp"

#include <array>
#include <filesystem>
#include <initializer_list>
#include <optional>

#include <fmt/format.h>

#include "ckptsim/scenario/checkpoint_layout.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

bool any_bad(const CheckContext& ctx, std::initializer_list<std::string_view> pointers) {
  for (auto p : pointers)
    if (ctx.bad.count(std::string(p))) return true;
  return false;
}

void add(CheckContext& ctx, std::string_view pointer, std::string expected) {
  const std::string found = ctx.found(pointer);
  ctx.bad.insert(std::string(pointer));
  ctx.problems.add(std::string(pointer), std::move(expected), found);
}

void check_run(const Scenario& s, CheckContext& ctx) {
  if (any_bad(ctx, {"/run", "/run/duration", "/run/iterations"})) return;
  if (s.run.duration && s.run.iterations)
    add(ctx, "/run/iterations", "no /run/iterations when /run/duration is given (exactly one of the two)");
  if (!s.run.duration && !s.run.iterations)
    add(ctx, "/run/duration", "a duration such as \"7d\", or /run/iterations instead (exactly one of the two)");
}

void check_model(const Scenario& s, CheckContext& ctx) {
  if (any_bad(ctx, {"/model/hidden", "/model/heads"}) || s.model.heads <= 0) return;
  if (s.model.hidden % s.model.heads != 0)
    add(ctx, "/model/heads", fmt::format("a head count dividing /model/hidden ({})", s.model.hidden));
}

/// Shards the busiest machine stores under the scenario's placement; nullopt (and a problem at
/// /strategy/placement) when the placement cannot hold m replicas on N machines.
/// Every named scheme (group, ring, mixed, random) stores exactly m shards on every machine
/// (checkpoint/placement.hpp; checked by the placement tests), so this is arithmetic and the
/// scenario layer need not build a placement (the checkpoint layer sits above it).
std::optional<int> stored_shards(const Scenario& s, CheckContext& ctx) {
  if (s.strategy.replicas < 1) return std::nullopt;  // reported at /strategy/replicas
  if (is_group_placement(s.strategy.placement) && s.cluster.machines % s.strategy.replicas != 0) {
    add(ctx, "/strategy/placement",
        fmt::format("a placement that fits {} replicas on {} machines: {} placement needs the replica count to "
                    "divide the machine count; use \"mixed\" otherwise",
                    s.strategy.replicas, s.cluster.machines, name_of(s.strategy.placement)));
    return std::nullopt;
  }
  // NVRx cliques (checkpoint/placement.hpp): blocks of m x J machines.
  if (s.strategy.placement == PlacementScheme::clique && !any_bad(ctx, {"/strategy/replication_jump"})) {
    const long long block = static_cast<long long>(s.strategy.replicas) * s.strategy.replication_jump;
    if (block > s.cluster.machines || s.cluster.machines % block != 0) {
      add(ctx, "/strategy/replication_jump",
          fmt::format("a jump J whose block of /strategy/replicas x J = {} x {} machines divides /cluster/machines "
                      "({}): clique placement groups m machines J apart in blocks of m J",
                      s.strategy.replicas, s.strategy.replication_jump, s.cluster.machines));
      return std::nullopt;
    }
  }
  return s.strategy.replicas;
}

/// Erasure-coded groups (checkpoint/erasure_code.hpp; the same rules as check_erasure_code, restated
/// here because the scenario layer sits below the checkpoint layer): 1 <= p < g <= N, g | N, a
/// group placement, and CPU memory for 2 g / (g - p) shards per machine.
void check_erasure_coded(const Scenario& s, CheckContext& ctx) {
  if (any_bad(ctx, {"/strategy/group_size", "/strategy/parity", "/cluster/machines", "/strategy/placement"})) return;
  const int g = s.strategy.group_size;
  const int p = s.strategy.parity;
  if (p < 1) {
    add(ctx, "/strategy/parity",
        "at least 1 parity symbol per stripe (p = 0 keeps no redundancy: every replaced machine loses its group's "
        "checkpoint; use gemini with replicas 1 for that)");
    return;
  }
  if (g <= p) {
    add(ctx, "/strategy/group_size", fmt::format("a group larger than /strategy/parity ({}): g - p data symbols per stripe", p));
    return;
  }
  if (g > s.cluster.machines || s.cluster.machines % g != 0) {
    add(ctx, "/strategy/group_size", fmt::format("a group size dividing /cluster/machines ({})", s.cluster.machines));
    return;
  }
  if (!is_group_placement(s.strategy.placement)) {
    add(ctx, "/strategy/placement", "\"group\" or \"group-spread\" (erasure-coded groups)");
    return;
  }
  if (any_bad(ctx, {"/cluster/cpu_memory", "/model/parameters", "/training/checkpoint_bytes_per_parameter"})) return;
  if (s.model.parameters <= 0 || s.cluster.cpu_memory_bytes <= 0) return;  // reported as missing
  const double shard = s.checkpoint_bytes_per_machine();
  const double needed = 2.0 * g / (g - p) * shard;
  if (needed > s.cluster.cpu_memory_bytes)
    add(ctx, "/cluster/cpu_memory",
        fmt::format("at least {} per machine: 2 buffers (last complete, in progress) x g/(g-p) = {}/{} shards x {} per "
                    "shard (CPU memory too small for the erasure-coded checkpoints)",
                    format_bytes(needed), g, g - p, format_bytes(shard)));
}

/// The iteration model stages the chunks of the checkpoint it plans in a GPU buffer, whatever the
/// strategy (checkpoint/iteration_study.hpp, study_holders): the bound holds for every strategy
/// (fuzz/fuzz_sweep_limits finding: a "none" or "multi-level" point with a 1e21-byte buffer
/// left the clock in the chunks' transfer time).
void check_gpu_buffer(const Scenario& s, CheckContext& ctx) {
  if (!any_bad(ctx, {"/strategy/gpu_buffer", "/cluster/gpu_memory"}) && s.cluster.gpu_memory_bytes > 0 &&
      s.strategy.gpu_buffer_bytes > s.cluster.gpu_memory_bytes)
    add(ctx, "/strategy/gpu_buffer",
        fmt::format("a GPU buffer no larger than the GPU memory ({})", format_bytes(s.cluster.gpu_memory_bytes)));
}

void check_in_memory(const Scenario& s, CheckContext& ctx) {
  if (!keeps_checkpoints_in_memory(checkpoint_layout(s.strategy.kind)) || any_bad(ctx, {"/strategy/kind", "/strategy/replicas", "/cluster/machines"})) return;
  if (s.cluster.machines < 1) return;  // reported as missing
  if (checkpoint_layout(s.strategy.kind) == CheckpointLayout::erasure_code) {
    check_erasure_coded(s, ctx);
    return;
  }
  if (s.strategy.replicas > s.cluster.machines) {
    add(ctx, "/strategy/replicas",
        fmt::format("at most as many replicas as machines (/cluster/machines = {})", s.cluster.machines));
    return;
  }
  if (any_bad(ctx, {"/strategy/placement"})) return;
  const std::optional<int> shards_per_machine = stored_shards(s, ctx);
  if (!shards_per_machine) return;
  if (any_bad(ctx, {"/cluster/cpu_memory", "/model/parameters", "/training/checkpoint_bytes_per_parameter"})) return;
  if (s.model.parameters <= 0 || s.cluster.cpu_memory_bytes <= 0) return;  // reported as missing
  const double shard = s.checkpoint_bytes_per_machine();
  const double needed = 2.0 * *shards_per_machine * shard;
  if (needed > s.cluster.cpu_memory_bytes)
    add(ctx, "/cluster/cpu_memory",
        fmt::format("at least {} per machine: 2 buffers (last complete, in progress) x {} shards x {} per shard "
                    "(CPU memory too small for the in-memory checkpoints)",
                    format_bytes(needed), *shards_per_machine, format_bytes(shard)));
}

/// async-two-phase's staging copy (run/strategies/async_two_phase.cpp): one shard per machine
/// in pinned CPU memory, reused by every checkpoint (the next snapshot waits for the background
/// phase), so the machine's CPU memory must hold one shard.
void check_staged_copy(const Scenario& s, CheckContext& ctx) {
  if (checkpoint_layout(s.strategy.kind) != CheckpointLayout::staged_copy ||
      any_bad(ctx, {"/strategy/kind", "/cluster/cpu_memory", "/cluster/machines", "/model/parameters",
                    "/training/checkpoint_bytes_per_parameter"}))
    return;
  if (s.cluster.machines < 1 || s.model.parameters <= 0 || s.cluster.cpu_memory_bytes <= 0) return;  // reported as missing
  const double shard = s.checkpoint_bytes_per_machine();
  if (shard > s.cluster.cpu_memory_bytes)
    add(ctx, "/cluster/cpu_memory",
        fmt::format("at least {} per machine: the staging copy of one shard (CPU memory too small for async-two-phase's "
                    "snapshot)",
                    format_bytes(shard)));
}

/// The replica groups of torchft and just-in-time (run/strategies/): G >= 2 groups of N / G
/// machines, so G divides N, and a quorum minimum no larger than G.
void check_replica_groups(const Scenario& s, CheckContext& ctx) {
  if (checkpoint_layout(s.strategy.kind) != CheckpointLayout::replica_groups ||
      any_bad(ctx, {"/strategy/kind", "/strategy/replica_groups", "/strategy/min_replica_groups", "/cluster/machines"}))
    return;
  const int g = s.strategy.replica_groups;
  const int n = s.cluster.machines;
  if (g < 1 || n < 1) return;  // reported by the field checks
  if (g < 2) {
    add(ctx, "/strategy/replica_groups",
        fmt::format("at least 2 replica groups for {}: a failed group needs a live replica of its state", name_of(s.strategy.kind)));
    return;
  }
  if (g > n || n % g != 0) {
    add(ctx, "/strategy/replica_groups",
        fmt::format("a group count dividing /cluster/machines ({}): every replica group holds a whole copy of the model "
                    "on the same number of machines",
                    n));
    return;
  }
  if (s.strategy.min_replica_groups > g)
    add(ctx, "/strategy/min_replica_groups",
        fmt::format("at most /strategy/replica_groups ({}): a quorum cannot need more groups than there are", g));
}

void check_failures(const Scenario& s, CheckContext& ctx) {
  const ReplacementSpec& r = s.failures.replacement;
  if (r.distribution == ReplacementDistribution::uniform &&
      !any_bad(ctx, {"/failures/replacement/low", "/failures/replacement/high"}) && r.low > r.high)
    add(ctx, "/failures/replacement/high",
        fmt::format("a duration no shorter than /failures/replacement/low ({})", format_duration(r.low)));

  constexpr std::array<const char*, kDomainKinds> kDomainPointers{"/failures/domains/rack/machines",
                                                                 "/failures/domains/leaf/machines",
                                                                 "/failures/domains/power/machines"};
  for (std::size_t k = 0; k < kDomainPointers.size(); ++k) {
    if (any_bad(ctx, {kDomainPointers[k], "/cluster/machines"}) || s.cluster.machines < 1) continue;
    if (s.failures.domains[k].machines > 0 && !domain_size_fits(s.failures.domains[k].machines, s.cluster.machines))
      add(ctx, kDomainPointers[k],
          fmt::format("at most /cluster/machines ({}) machines per domain", s.cluster.machines));
  }

  // A misdiagnosed fault recurs and can be misdiagnosed again: with every diagnosis wrong it
  // never goes away (1 / (1 - f) failures per fault, fault_model.hpp).
  if (!any_bad(ctx, {"/failures/misdiagnosis/fraction"}) && s.failures.misdiagnosis.fraction >= 1.0)
    add(ctx, "/failures/misdiagnosis/fraction", "a fraction below 1 (with every diagnosis wrong a fault never goes away)");
  // A live migration moves the failing machine to a free standby (failure/migration.hpp): without
  // a standby pool no failure could ever be migrated.
  if (!any_bad(ctx, {"/failures/migration/fraction", "/cluster/standby_machines"}) && s.failures.migration.fraction > 0 &&
      s.cluster.standby_machines < 1)
    add(ctx, "/failures/migration/fraction",
        "0 without standby machines (a live migration moves the failing machine to a free standby: set "
        "/cluster/standby_machines to 1 or more)");
  // An elastic job shrinks below its size (failure/elastic.hpp): a minimum of N or more never lets it.
  if (!any_bad(ctx, {"/failures/elastic/min_machines", "/cluster/machines"}) && s.failures.elastic.min_machines &&
      *s.failures.elastic.min_machines >= s.cluster.machines)
    add(ctx, "/failures/elastic/min_machines",
        fmt::format("fewer machines than /cluster/machines ({}): the job shrinks to at least this many", s.cluster.machines));
  // The in-process Wrapper refuses a monitor interval no shorter than its soft timeout
  // (enforce_value(monitor_process_interval < soft_timeout), nvidia-resiliency-ext inprocess/wrap.py).
  const RestartTierSpec& tiers = s.failures.restart_tiers;
  if (!any_bad(ctx, {"/failures/restart_tiers/in_process/monitor_interval", "/failures/restart_tiers/in_process/soft_timeout"}) &&
      tiers.monitor_interval >= tiers.soft_timeout)
    add(ctx, "/failures/restart_tiers/in_process/monitor_interval",
        fmt::format("a duration shorter than /failures/restart_tiers/in_process/soft_timeout ({}): the in-process "
                    "Wrapper checks for progress more often than it times out",
                    format_duration(tiers.soft_timeout)));
  if (s.failures.process == FailureProcessKind::trace && !any_bad(ctx, {"/failures/trace"}) && !s.failures.trace_file.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(s.failures.trace_file, ec))
      add(ctx, "/failures/trace",
          "an existing trace file, relative to the scenario file (looked for " + s.failures.trace_file + ")");
  }
}

/// Megatron-LM's layout rules (megatron/training/arguments.py, validate_args, and the parallel
/// linear layers' divisibility asserts; workload/megatron_layout.hpp): the degrees multiply to the
/// GPU count; a tensor group fits in one machine's NVLink domain unless allowed to span; heads,
/// key/value heads and the FFN split evenly over tp; the layers over the (virtual) stages; the
/// interleaved schedule wants pp >= 2 and a micro-batch count that is a multiple of pp; context
/// parallelism splits the sequence into 2 cp load-balanced chunks; experts split over ep, ep over
/// dp x cp; the parameter all-gather overlap needs the distributed optimizer.
void check_megatron_layout(const Scenario& s, CheckContext& ctx) {
  const MegatronSpec& g = s.training.megatron;
  constexpr std::string_view kTp = "/training/megatron/tp", kPp = "/training/megatron/pp",
                             kDp = "/training/megatron/dp", kCp = "/training/megatron/cp";
  if (any_bad(ctx, {kTp, kPp, kDp, kCp, "/cluster/machines", "/cluster/gpus_per_machine"})) return;
  const int gpm = s.cluster.gpus_per_machine;
  const std::int64_t gpus = static_cast<std::int64_t>(s.cluster.machines) * gpm;
  if (gpus < 1 || gpm < 1) return;  // reported as missing
  const std::int64_t model_ranks = static_cast<std::int64_t>(g.tp) * g.cp * g.pp;
  if (!g.dp) {
    add(ctx, kTp, fmt::format("tensor x context x pipeline sizes whose product ({} x {} x {} = {}) divides the GPU count "
                              "({} machines x {} GPUs = {}), the quotient being the data-parallel size",
                              g.tp, g.cp, g.pp, model_ranks, s.cluster.machines, gpm, gpus));
    return;
  }
  if (model_ranks * *g.dp != gpus) {
    add(ctx, kDp, fmt::format("tp x cp x dp x pp equal to the GPU count ({} machines x {} GPUs = {}); {} x {} x {} x {} = {}",
                              s.cluster.machines, gpm, gpus, g.tp, g.cp, *g.dp, g.pp, model_ranks * *g.dp));
    return;
  }
  if (!g.tp_across_machines && (g.tp > gpm || gpm % g.tp != 0))
    add(ctx, kTp, fmt::format("a tensor-parallel size dividing the GPUs of a machine ({}): a tensor group stays in one "
                              "NVLink domain (set /training/megatron/tp_across_machines to allow otherwise)", gpm));
}

void check_megatron_model(const Scenario& s, CheckContext& ctx) {
  const MegatronSpec& g = s.training.megatron;
  const ModelSpec& m = s.model;
  if (any_bad(ctx, {"/training/megatron/tp", "/model/heads", "/model/kv_heads", "/model/ffn"}) || m.heads < 1) return;
  if (m.kv_heads < 1 || m.heads % m.kv_heads != 0) {
    add(ctx, "/model/kv_heads", fmt::format("a key/value head count dividing /model/heads ({})", m.heads));
    return;
  }
  if (m.heads % g.tp != 0 || m.kv_heads % g.tp != 0 || m.ffn % g.tp != 0)
    add(ctx, "/training/megatron/tp",
        fmt::format("a tensor-parallel size dividing the heads ({}), the key/value heads ({}) and the FFN width ({})",
                    m.heads, m.kv_heads, m.ffn));
  if (!any_bad(ctx, {"/model/experts", "/model/experts_per_token"}) && m.experts_per_token > m.experts)
    add(ctx, "/model/experts_per_token", fmt::format("at most /model/experts ({}) experts per token", m.experts));
  if (!any_bad(ctx, {"/training/megatron/ep", "/model/experts", "/training/megatron/dp", "/training/megatron/cp"}) &&
      g.ep > 1 && g.dp) {
    const std::int64_t dp_cp = *g.dp * g.cp;
    if (m.experts % g.ep != 0 || dp_cp % g.ep != 0)
      add(ctx, "/training/megatron/ep",
          fmt::format("an expert-parallel size dividing /model/experts ({}) and dp x cp ({})", m.experts, dp_cp));
  }
}

void check_megatron_stages(const Scenario& s, CheckContext& ctx) {
  const MegatronSpec& g = s.training.megatron;
  if (any_bad(ctx, {"/training/megatron/pp", "/training/megatron/virtual_stages", "/model/layers",
                    "/training/megatron/first_stage_layers", "/training/megatron/last_stage_layers"}))
    return;
  const std::int64_t chunks = static_cast<std::int64_t>(g.pp) * g.virtual_stages;
  if (g.virtual_stages > 1 && g.pp < 2) {
    add(ctx, "/training/megatron/virtual_stages", "1 without pipeline parallelism (the interleaved schedule needs pp >= 2)");
    return;
  }
  if ((g.first_stage_layers || g.last_stage_layers) && chunks < 2) {
    add(ctx, g.first_stage_layers ? "/training/megatron/first_stage_layers" : "/training/megatron/last_stage_layers",
        "no first or last stage layer count without pipeline parallelism (pp x virtual_stages >= 2)");
    return;
  }
  const std::int64_t first = g.first_stage_layers.value_or(-1), last = g.last_stage_layers.value_or(-1);
  const std::int64_t fixed = (first >= 0 ? first : 0) + (last >= 0 ? last : 0);
  const std::int64_t even_chunks = chunks - (first >= 0 ? 1 : 0) - (last >= 0 ? 1 : 0);
  const std::int64_t rest = s.model.layers - fixed;
  if (rest < 0 || (even_chunks == 0 && rest != 0) || (even_chunks > 0 && rest % even_chunks != 0))
    add(ctx, "/model/layers",
        fmt::format("a layer count the {} (virtual) pipeline stages split evenly: {} layers less {} on the first and "
                    "last stage over {} stages",
                    chunks, s.model.layers, fixed, even_chunks));
  // Megatron-LM's interleaved schedule (schedules.py, forward_backward_pipelining_with_interleaving)
  // takes a group size N in [pp, micro_batches] and refuses a last group of fewer than pp
  // micro-batches (N = pp: micro_batches a multiple of pp).
  if (g.microbatch_group_size && g.virtual_stages == 1)
    add(ctx, "/training/megatron/microbatch_group_size", "no group size without the interleaved schedule (virtual_stages > 1)");
  if (g.virtual_stages > 1 && !any_bad(ctx, {"/training/megatron/micro_batches", "/training/megatron/microbatch_group_size"})) {
    const std::int64_t n = g.microbatch_group_size.value_or(g.pp);
    if (g.microbatch_group_size && (n < g.pp || n > g.micro_batches))
      add(ctx, "/training/megatron/microbatch_group_size",
          fmt::format("a micro-batch group size in [pp, micro_batches] = [{}, {}] under the interleaved schedule "
                      "(Megatron-LM refuses others)",
                      g.pp, g.micro_batches));
    else if (n > g.micro_batches)
      add(ctx, "/training/megatron/micro_batches",
          fmt::format("at least pp ({}) micro-batches under the interleaved schedule (Megatron-LM refuses fewer)", g.pp));
    else if (const std::int64_t rest = g.micro_batches % n; rest != 0 && rest < g.pp)
      add(ctx, "/training/megatron/micro_batches",
          g.microbatch_group_size
              ? fmt::format("micro_batches whose remainder over microbatch_group_size ({}) is 0 or at least pp ({}) "
                            "under the interleaved schedule (Megatron-LM refuses a last group of {})",
                            n, g.pp, rest)
              : fmt::format("a multiple of pp ({}) under the interleaved schedule (Megatron-LM's default group size is "
                            "pp, and it refuses a last group of {} micro-batches)",
                            g.pp, rest));
  }
}

void check_megatron(const Scenario& s, CheckContext& ctx) {
  if (s.training.parallelism != Parallelism::megatron || any_bad(ctx, {"/training/parallelism"})) return;
  check_megatron_layout(s, ctx);
  check_megatron_model(s, ctx);
  check_megatron_stages(s, ctx);
  const MegatronSpec& g = s.training.megatron;
  if (!any_bad(ctx, {"/training/megatron/cp", "/training/sequence_length"}) && s.training.sequence_length % (2 * g.cp) != 0 &&
      g.cp > 1)
    add(ctx, "/training/megatron/cp",
        fmt::format("a context-parallel size whose 2 cp load-balanced chunks split the sequence ({} tokens)",
                    s.training.sequence_length));
  if (g.sequence_parallel && g.tp > 1 && !any_bad(ctx, {"/training/megatron/sequence_parallel", "/training/sequence_length"}) &&
      (s.training.sequence_length / g.cp) % g.tp != 0)
    add(ctx, "/training/megatron/sequence_parallel",
        fmt::format("a sequence whose per-context-rank part ({} tokens) splits over tp ({})", s.training.sequence_length / g.cp, g.tp));
  if (s.training.gelu != GeluKind::fused && !any_bad(ctx, {"/training/gelu"}))
    add(ctx, "/training/gelu",
        "\"fused\" under training.parallelism \"megatron\" (Megatron-LM's layer always runs its fused bias + GeLU kernel; "
        "\"unfused\" describes Hugging Face's GPT-2 under a ZeRO-3 engine)");
  if (g.fp16 && g.ep > 1 && !any_bad(ctx, {"/training/megatron/fp16", "/training/megatron/ep"}))
    add(ctx, "/training/megatron/fp16",
        "false with expert parallelism (Megatron-LM asserts \"Expert parallelism is not supported with fp16 training\")");
  if (g.fp16 && !s.training.mixed_precision && !any_bad(ctx, {"/training/megatron/fp16", "/training/mixed_precision"}))
    add(ctx, "/training/megatron/fp16",
        "false when /training/mixed_precision is false (fp16 is a 16-bit mixed-precision type; without it the step is "
        "Megatron's FP32Optimizer)");
  // MoE dispatch (workload/megatron_iteration.hpp): Megatron asserts a capacity factor for
  // padding (token_dispatcher.py); the busiest expert holds at most every token once, T of the
  // mean T·k/E, so the imbalance is at most E / k.
  const bool moe_set = g.moe_capacity_factor || g.moe_pad_to_capacity || g.moe_load_imbalance != 1.0;
  if (moe_set && s.model.experts <= 1 && !any_bad(ctx, {"/model/experts"}))
    add(ctx, g.moe_capacity_factor ? "/training/megatron/moe_capacity_factor"
             : g.moe_pad_to_capacity ? "/training/megatron/moe_pad_to_capacity"
                                     : "/training/megatron/moe_load_imbalance",
        "no expert-dispatch setting without experts (/model/experts is 1)");
  if (g.moe_pad_to_capacity && !g.moe_capacity_factor && !any_bad(ctx, {"/training/megatron/moe_pad_to_capacity"}))
    add(ctx, "/training/megatron/moe_pad_to_capacity",
        "false without /training/megatron/moe_capacity_factor (Megatron-LM asserts a capacity factor to pad to)");
  if (s.model.experts > 1 && !any_bad(ctx, {"/training/megatron/moe_load_imbalance", "/model/experts", "/model/experts_per_token"}) &&
      s.model.experts_per_token >= 1 && g.moe_load_imbalance > static_cast<double>(s.model.experts) / s.model.experts_per_token)
    add(ctx, "/training/megatron/moe_load_imbalance",
        fmt::format("at most experts / top-k = {} / {} (the busiest expert can hold each token once)", s.model.experts,
                    s.model.experts_per_token));
  if (g.overlap_param_gather && !g.distributed_optimizer && !any_bad(ctx, {"/training/megatron/overlap_param_gather"}))
    add(ctx, "/training/megatron/overlap_param_gather",
        "false without /training/megatron/distributed_optimizer (only the distributed optimizer gathers parameters)");
}

}  // namespace

void cross_check(const Scenario& s, CheckContext& ctx) {
  check_run(s, ctx);
  check_model(s, ctx);
  check_in_memory(s, ctx);
  check_staged_copy(s, ctx);
  check_replica_groups(s, ctx);
  check_gpu_buffer(s, ctx);
  check_failures(s, ctx);
  check_megatron(s, ctx);
  check_clock_range(s, ctx);
}

}  // namespace ckptsim
