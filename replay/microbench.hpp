// ckptsim-replay --microbench: short measurements of this machine (and its emulated network)
// as input for `ckptsim calibrate` without a full plan (docs/timeline-format.md,
// "Microbenchmark files"). Every rank takes part:
//   all-gather / reduce-scatter: ring collectives over all ranks, sized like a plan's `bytes`
//     (what each rank's stream moves), paced like a replay; time = slowest rank, per repetition;
//   p2p: rank 2i sends to 2i+1 in paced segments, time until the receiver has everything;
//   gemm: every rank at once runs matmul blocks of the replay's size (contention included);
//   host-copy: every rank at once memcpys a buffer (the mpi backend's GPU-to-CPU copy).
#pragma once
#include <mpi.h>

#include <nlohmann/json.hpp>

namespace ckptsim::replay {

struct MicrobenchOptions {
  double bandwidth = 0;  ///< bytes/s pacing per rank; <= 0: unpaced
  int matmul_n = 64;
  int repetitions = 3;
};

/// Runs the sweeps; rank 0 returns the document, the other ranks an empty object.
nlohmann::json run_microbench(const MicrobenchOptions& options, MPI_Comm world);

}  // namespace ckptsim::replay
