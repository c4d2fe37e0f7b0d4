// ckptsim-replay --microbench: short measurements of this machine (and its emulated network)
// as input for `ckptsim calibrate` without a full plan (docs/timeline-format.md,
// "Microbenchmark files"), through the same Backend as a replay. Every rank takes part:
//   all-gather / reduce-scatter: ring collectives over all ranks, sized like a plan's `bytes`
//     (what each rank's stream moves), paced like a replay; time = slowest rank, per repetition;
//   p2p: rank 2i sends to 2i+1 in segments released at their deadlines on the paced link, time
//     until the receiver has everything;
//   gemm: every rank at once runs matmul blocks of the replay's size (contention included);
//   host-copy: every rank at once copies its shard into CPU memory (memcpy for mpi, a
//     device-to-pinned-host cudaMemcpyAsync for nccl).
#pragma once
#include <mpi.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "backend.hpp"

namespace ckptsim::replay {

struct MicrobenchOptions {
  double bandwidth = 0;  ///< bytes/s pacing per rank; <= 0: unpaced
  int matmul_n = 64;
  int repetitions = 3;
  double segment_bytes = 0;  ///< segment size of paced sends; 0: derived from the rate (paced_link.hpp)
  std::vector<double> message_bytes = {64 << 10, 256 << 10, 1 << 20, 4 << 20};  ///< collectives and p2p
  std::vector<double> copy_bytes = {1 << 20, 4 << 20, 16 << 20};
  std::vector<int> gemm_blocks = {1000, 2000, 4000};
};

/// The sizes for a backend: the mpi defaults above; for nccl larger messages and copies
/// (GPU links and copy engines reach their bandwidth only beyond a few MiB).
MicrobenchOptions microbench_defaults(const std::string& backend);

/// Runs the sweeps; rank 0 returns the document, the other ranks an empty object.
nlohmann::json run_microbench(const MicrobenchOptions& options, Backend& backend, MPI_Comm world);

}  // namespace ckptsim::replay
