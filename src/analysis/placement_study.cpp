// Placement studies (placement_study.hpp).
#include "ckptsim/analysis/placement_study.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"
#include "ckptsim/analysis/placement_work.hpp"
#include "ckptsim/core/work_limits.hpp"
#include "ckptsim/scenario/kinds.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

/// Element steps the whole-order Monte Carlo may take (samples x (N + sum |H_i|)): about a
/// minute of one core.
constexpr double kMonteCarloWorkLimit = 3e10;

/// Before building anything (analysis/placement_work.hpp, as sweep placement points).
void check_work(const PlacementRequest& rq) {
  PlacementWorkRequest work;
  work.machines = rq.machines;
  work.replicas = rq.replicas;
  work.schemes = static_cast<int>(rq.schemes.size());
  work.exact_schemes = static_cast<int>(
      std::count_if(rq.schemes.begin(), rq.schemes.end(), [](const std::string& name) { return name != "ring"; }));
  work.convolution = std::any_of(rq.schemes.begin(), rq.schemes.end(),
                                 [](const std::string& name) { return name == "random" || name == "file"; });
  enforce_work_limits(estimate_placement_work(work), rq.force);
}

/// Monte Carlo estimates for k = 0..k_last: the first-failures estimator when fewer than N
/// failures are asked for and no window needs every k, else the whole-order one (checked
/// against kMonteCarloWorkLimit first).
MonteCarloRecovery estimate(const Placement& placement, const PlacementRequest& rq) {
  if (rq.k_last < rq.machines && !rq.window_probability)
    return monte_carlo_recovery_first(placement, rq.samples, rq.seed, rq.k_last);
  double members = 0;
  for (const auto& h : placement.holders) members += static_cast<double>(h.size());
  const double work = static_cast<double>(rq.samples) * (rq.machines + members);
  if (work > kMonteCarloWorkLimit && !rq.force)
    throw LimitError(fmt::format("--machines {} and --samples {}: Monte Carlo over every k ({}) needs ~{:.2g} steps, above "
                                 "the {:.0g} limit; lower --samples, or ask for fewer --failures without "
                                 "--window-probability (see docs/limits.md; --force runs it anyway)",
                                 rq.machines, rq.samples, rq.window_probability ? "for --window-probability" : "up to N", work,
                                 kMonteCarloWorkLimit));
  return monte_carlo_recovery(placement, rq.samples, rq.seed);
}

void evaluate(PlacementSchemeResult& r, const PlacementRequest& rq) {
  if (!r.placement) return;
  r.counts = exact_recovery_counts(*r.placement);
  if (r.counts) {
    r.curve = recovery_curve(*r.counts, *r.placement);
    if (rq.window_probability) r.window = window_recovery(*r.counts, *r.placement, *rq.window_probability);
  }
  if (!r.counts || rq.monte_carlo) r.mc = estimate(*r.placement, rq);
  if (!r.counts && rq.window_probability)
    r.window = window_recovery_monte_carlo(*r.mc, *r.placement, *rq.window_probability);
}

}  // namespace

PlacementSchemeResult place_scheme(const std::string& name, const PlacementRequest& rq) {
  PlacementSchemeResult r;
  r.name = name;
  try {
    // Names other than "file" were checked against PlacementScheme's names.
    r.placement = name == "file" ? *rq.from_file
                                 : make_placement(*parse_name<PlacementScheme>(name), rq.machines, rq.replicas, rq.seed,
                                                  rq.replication_jump);
  } catch (const PlacementError& e) {
    r.not_applicable = e.message();
  }
  return r;
}

PlacementRequest checked_placement_request(PlacementRequest rq) {
  if (rq.from_file) {
    if (rq.machines == 0) rq.machines = rq.from_file->machines;
    if (rq.replicas == 0) rq.replicas = rq.from_file->replicas;
    if (rq.schemes.empty()) rq.schemes = {"file"};
  }
  if (rq.machines < 1 || rq.machines > 1'000'000)
    throw ModelError("machines", fmt::format("expected 1..1000000, found {}", rq.machines));
  if (rq.replicas < 1 || rq.replicas > rq.machines)
    throw ModelError("replicas", fmt::format("expected 1..{} (at most the machine count), found {}", rq.machines, rq.replicas));
  if (rq.from_file && (rq.from_file->machines != rq.machines || rq.from_file->replicas != rq.replicas))
    throw ModelError("placement_file", fmt::format("has {} machines and {} replicas, but machines {} replicas {}",
                                                   rq.from_file->machines, rq.from_file->replicas, rq.machines, rq.replicas));
  if (rq.k_last < 0) rq.k_last = rq.machines;
  if (rq.k_first < 0 || rq.k_first > rq.k_last || rq.k_last > rq.machines)
    throw ModelError("failures", fmt::format("expected K or K1..K2 with 0 <= K1 <= K2 <= {}, found {}..{}", rq.machines,
                                             rq.k_first, rq.k_last));
  if (rq.schemes.empty())
    for (const auto& e : EnumNames<PlacementScheme>::table) rq.schemes.emplace_back(e.name);
  for (const auto& name : rq.schemes) {
    if (name == "file" ? !rq.from_file : !parse_name<PlacementScheme>(name))
      throw ModelError("scheme", name == "file" ? std::string("scheme \"file\" needs a placement file")
                                                : fmt::format("unknown placement scheme \"{}\": expected {} or \"file\"",
                                                              name, placement_registry().names_for_error()));
  }
  if (rq.samples < 1 || rq.samples > 100'000'000)
    throw ModelError("samples", fmt::format("expected 1..100000000, found {}", rq.samples));
  if (rq.window_probability && !(*rq.window_probability >= 0 && *rq.window_probability <= 1))
    throw ModelError("window_probability", fmt::format("expected a probability in [0, 1], found {}", *rq.window_probability));
  if (rq.cpu_memory && !rq.shard_bytes) throw ModelError("cpu_memory", "needs shard_bytes");
  check_work(rq);
  return rq;
}

std::vector<PlacementSchemeResult> study_placements(const PlacementRequest& rq) {
  std::vector<PlacementSchemeResult> results;
  for (const auto& name : rq.schemes) results.push_back(place_scheme(name, rq));
  if (rq.cpu_memory) {
    std::vector<Problem> problems;
    for (const auto& r : results) {
      if (!r.placement) continue;
      const double need = placement_cpu_memory_bytes(*r.placement, *rq.shard_bytes);
      if (need > *rq.cpu_memory)
        problems.push_back(Problem{"<command line>", "--cpu-memory",
                                   fmt::format("at least {} per machine for scheme {} (2 buffers x {} shards x {})",
                                               format_bytes(need), r.name, r.placement->max_shards_per_machine(),
                                               format_bytes(*rq.shard_bytes)),
                                   format_bytes(*rq.cpu_memory)});
    }
    if (!problems.empty()) throw InputError(problems);
  }
  for (auto& r : results) evaluate(r, rq);
  return results;
}

}  // namespace ckptsim
