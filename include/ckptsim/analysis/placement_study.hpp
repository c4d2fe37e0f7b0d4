#pragma once
// One `ckptsim placement` study: for each replica placement scheme, the probability that every
// machine's checkpoint can still be recovered from CPU memory after k simultaneous failures
// (exact where a counting method exists, Monte Carlo with 95% Wilson intervals otherwise), the
// time-window probability and the CPU memory each scheme needs. The models are
// analysis/recovery_probability.hpp and checkpoint/placement.hpp; this unit only chooses which
// to run for a request, checks the work first (core/work_limits.hpp), and is shared by the
// command line and the Python module (output/placement_report.hpp writes the document).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/placement.hpp"

namespace ckptsim {

struct PlacementRequest {
  int machines = 0;
  int replicas = 0;
  int k_first = 0;
  int k_last = -1;                   ///< -1: up to machines
  std::vector<std::string> schemes;  ///< names of PlacementScheme, or "file" (from_file)
  std::optional<Placement> from_file;
  std::optional<double> window_probability;  ///< per-machine failure probability over a window
  std::optional<double> shard_bytes;         ///< checkpoint bytes per machine
  std::optional<double> cpu_memory;          ///< CPU memory per machine (needs shard_bytes)
  bool monte_carlo = false;                  ///< also estimate exact schemes by Monte Carlo
  std::size_t samples = 10000;
  std::uint64_t seed = 1;
  int replication_jump = 1;  ///< J of the clique placement
  bool force = false;  ///< skip the work limits
};

/// One scheme's result: exact curve, Monte Carlo estimate, or the reason it does not apply.
struct PlacementSchemeResult {
  std::string name;
  std::optional<Placement> placement;
  std::string not_applicable;  ///< reason, when placement is empty
  std::optional<RecoveryCounts> counts;
  std::optional<RecoveryCurve> curve;
  std::optional<MonteCarloRecovery> mc;
  std::optional<WindowRecovery> window;
};

/// Checks the request (ModelError naming the field: machines 1..1000000, replicas 1..machines,
/// 0 <= k_first <= k_last <= machines, known scheme names, samples 1..1e8, cpu_memory only with
/// shard_bytes, a file placement of the same shape), fills k_last, then checks the work limits.
/// The command line checks its options first with its own messages; other callers rely on this.
PlacementRequest checked_placement_request(PlacementRequest request);

/// One scheme's placement for a checked request, not evaluated (placement empty and
/// not_applicable set when the scheme cannot place these machines and replicas).
PlacementSchemeResult place_scheme(const std::string& name, const PlacementRequest& request);

/// Every scheme of a checked request, in its order. Throws InputError when cpu_memory is below
/// what a scheme needs, LimitError when the Monte Carlo work is beyond its limit.
std::vector<PlacementSchemeResult> study_placements(const PlacementRequest& request);

}  // namespace ckptsim
