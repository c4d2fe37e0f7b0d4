#pragma once
// Up-front estimates of what the recovery-probability models ask for (core/work_limits.hpp,
// docs/limits.md), shared by `ckptsim placement` and the placement points of `ckptsim sweep`,
// so that a sweep point is refused exactly when the command would refuse it.
//   placements       each holds N holder sets of m machines and their reverse index:
//                    schemes x N x (8 m + 64) bytes
//   exact counts     binomial rows of N+1 integers of up to N bits, twice (the per-k counts
//                    beside them): exact schemes x 2 (N + 1) (N/8 + 16) bytes (ring is left
//                    out: past its own memory limit it falls back to Monte Carlo)
//   convolution      random and file placements multiply counts component by component: up to
//                    N^2 products of N-bit integers of N/64 limbs, N^2 (N/64 + 1) limb operations
#include <string>
#include <vector>

#include "ckptsim/core/work_limits.hpp"

namespace ckptsim {

/// About a minute of one core (N = 5000 takes 2e9 limb operations in 0.5 s).
inline constexpr double kMaxLimbOperations = 2e11;

struct PlacementWorkRequest {
  int machines = 0;
  int replicas = 0;
  int schemes = 1;           ///< placements built
  int exact_schemes = 1;     ///< of which counted exactly (all but ring)
  bool convolution = false;  ///< a random or file placement among them
  std::string machines_input = "--machines";  ///< how the inputs are named in messages
  std::string replicas_input = "--replicas";
  std::string file;          ///< the scenario the inputs are fields of ("" for options)
};

std::vector<WorkEstimate> estimate_placement_work(const PlacementWorkRequest& request);

}  // namespace ckptsim
