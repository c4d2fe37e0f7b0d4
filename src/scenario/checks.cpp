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
  if (!keeps_checkpoints_in_memory(s.strategy.kind) || any_bad(ctx, {"/strategy/kind", "/strategy/replicas", "/cluster/machines"})) return;
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
  if (s.failures.process == FailureProcessKind::trace && !any_bad(ctx, {"/failures/trace"}) && !s.failures.trace_file.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(s.failures.trace_file, ec))
      add(ctx, "/failures/trace",
          "an existing trace file, relative to the scenario file (looked for " + s.failures.trace_file + ")");
  }
}

}  // namespace

void cross_check(const Scenario& s, CheckContext& ctx) {
  check_run(s, ctx);
  check_model(s, ctx);
  check_in_memory(s, ctx);
  check_gpu_buffer(s, ctx);
  check_failures(s, ctx);
  check_clock_range(s, ctx);
}

}  // namespace ckptsim
