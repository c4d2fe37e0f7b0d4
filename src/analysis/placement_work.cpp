// Up-front estimates of the recovery-probability models (placement_work.hpp).
#include "ckptsim/analysis/placement_work.hpp"

#include <fmt/format.h>

namespace ckptsim {

std::vector<WorkEstimate> estimate_placement_work(const PlacementWorkRequest& r) {
  const double n = r.machines;
  const std::string machines = std::to_string(r.machines);
  return {{r.machines_input + " and " + r.replicas_input, "the placements", r.schemes * n * (8.0 * r.replicas + 64.0),
           kMaxMemoryBytes, WorkUnit::bytes, r.file, fmt::format("{} and {} ({} scheme(s))", r.machines, r.replicas, r.schemes)},
          {r.machines_input, "the exact recovery counts", r.exact_schemes * 2.0 * (n + 1) * (n / 8 + 16), kMaxMemoryBytes,
           WorkUnit::bytes, r.file, machines},
          {r.machines_input, "the exact counts of a random or file placement", r.convolution ? n * n * (n / 64 + 1) : 0.0,
           kMaxLimbOperations, WorkUnit::limb_operations, r.file, machines}};
}

}  // namespace ckptsim
