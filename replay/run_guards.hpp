// Guards of a replay run, checked before any buffer is allocated or MPI message sent
// (docs/hardware.md, "Checking the model against hardware"; docs/limits.md):
//   - files: -o and --trace may not be the plan (also through a symlink or another spelling)
//     nor each other;
//   - --bandwidth: a positive finite rate with a unit ("100MB/s"), "plan" or "none";
//   - --inject-corruption RANK:CHUNK: a rank of the plan and one of that rank's chunks;
//   - run time: a lower bound on the replay's duration, beyond --time-limit unless --force.
//     Per iteration each rank needs at least
//         max( sum of its compute FLOPs / F_max,                       (compute)
//              (sum of its collective bytes + its chunk bytes) / B,    (its paced link)
//              the largest chunk offset or planned start )             (waiting for a chunk)
//     with F_max = 1e12 FLOP/s per CPU rank (mpi; well above one core's single-precision GEMM
//     rate, ~3e10 on this project's machines) or 1e16 per GPU (nccl; above any GPU's dense
//     peak), B the paced rate (no bound unpaced); times (warm-up + measured iterations).
//     Being a lower bound, the estimate never refuses a run that would finish in time.
#pragma once
#include <string>

#include "ckptsim/calibration/plan_file.hpp"
#include "rank_loop.hpp"

namespace ckptsim::replay {

/// Throws std::invalid_argument naming the option when an output would overwrite the plan or
/// the other output.
void check_output_paths(const std::string& plan, const std::string& output, const std::string& trace);

/// Parses --bandwidth (not "plan" / "none"); throws std::invalid_argument with what was expected.
double parse_pacing_rate(const std::string& text);

/// The lower bound above, in seconds, for the whole run.
double replay_seconds_lower_bound(const PlanFile& plan, const EngineOptions& engine, const std::string& backend);

}  // namespace ckptsim::replay
