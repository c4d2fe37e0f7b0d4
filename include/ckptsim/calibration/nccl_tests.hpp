#pragma once
// Reading nccl-tests output (https://github.com/NVIDIA/nccl-tests: all_gather_perf,
// reduce_scatter_perf, all_reduce_perf, sendrecv_perf, alltoall_perf), the measurements users
// already have of their clusters, as timed samples for the fits of calibrate.hpp.
//
// What is read, line by line (a leading "[1,0]<stdout>:" of mpirun --tag-output and a leading
// "#" are both optional, since logs pasted into issues and wikis often lose them):
//   - "# Collective test starting: all_gather_perf" (nccl-tests >= 2.13) names the test and starts
//     a run; "# nThread 1 nGpus 8 minBytes ..." starts a run too;
//   - "# Rank 3 Group 0 Pid 1234 on host device 3 [0x3a] NVIDIA H100 80GB HBM3" (with or without
//     "Group"): the ranks, their hosts (the machines) and devices;
//   - the column header "size count type redop root time algbw busbw #wrong time ..." (older
//     versions: without root or redop, "error" for "#wrong"): the first time/algbw/busbw group is
//     out-of-place, the second in-place;
//   - result rows: size S in bytes (the whole buffer: sendcount x ranks for all-gather, the
//     input for reduce-scatter and all-reduce, per nccl-tests' src/*.cu), count, type, ... and
//     the two times in microseconds; each time is one sample of x = bus bytes (measurements.hpp)
//     in t seconds;
//   - "# Avg bus bandwidth" ends a run.
// Several runs may follow one another in a file (one log of several tests, or of one test at
// several node counts), and several files may be read.
//
// The collective of a run comes from its "Collective test starting" line, else from the file
// name (all_gather, reduce_scatter, all_reduce, sendrecv, alltoall; "allgather" etc. too), else
// from options.collective. The ranks and machines come from the Rank lines (ranks 0..n-1 each
// once; machines = distinct hosts), else from options.ranks and options.machines; a run whose
// Rank lines list only some ranks needs them too.
//
// The algorithm NCCL ran (all-reduce over 2 or more machines; every other collective is read with
// nccl-tests' bus-bandwidth factors, measurements.hpp). The sample's x is the bytes each NIC
// carries per direction, per rank of the machine (so that x / t compares with the line rate L
// per machine as busbw does for a ring), for a buffer of S bytes over n ranks on N machines:
//   ring                  x = 2 (n-1)/n S     (nccl-tests' busbw: doc/PERFORMANCE.md)
//   tree, NVLS tree       x = S   on N = 2    (the double binary tree of NVIDIA/nccl
//                                              src/graph/trees.cc, ncclGetDtree, and connect.cc,
//                                              which splits the channels between the two trees: on 2 machines
//                                              each is the root of one tree and the only child in
//                                              the other, so each NIC sends and receives the half of
//                                              S each tree carries, S in all, per direction: the
//                                              NIC rate is nccl-tests' algbw)
//                         x = 2 S on N >= 3   (a machine inside one tree sends its half up and to
//                                              two children and is a leaf of the other: 2 S; NCCL's
//                                              own model halves a tree's bus bandwidth for its
//                                              algorithm bandwidth, src/graph/tuning.cc "ratio *= .5")
//   CollNet (SHARP)       x = S               (each machine sends S into the switch and receives S)
// The latency steps stay the ring's 2(n-1) whatever the algorithm: alpha is then the measured
// start-up time over the steps ckptsim's ring model (network/collectives.hpp) charges for n ranks.
// Where the algorithm comes from, first that applies:
//   1. NcclTestsOptions::algorithm (`--algorithm ring|tree`);
//   2. NCCL's own TUNING line for the row's size ("AllReduce: 1048576 Bytes -> Algo RING proto
//      SIMPLE ..." of NCCL >= 2.24, src/enqueue.cc; "1048576 Bytes -> Algo 1 proto 2 time ..." before,
//      algorithm numbers of src/include/plugin/nccl_tuner.h: 0 tree, 1 ring, 2 CollNetDirect,
//      3 CollNetChain, 4 NVLS, 5 NVLSTree, 6 PAT), printed with NCCL_DEBUG=INFO NCCL_DEBUG_SUBSYS=TUNING;
//   3. NCCL_ALGO in the log: "NCCL INFO NCCL_ALGO set by environment to X" (src/graph/tuning.cc)
//      or "NCCL_ALGO=X" (a command line, "-x NCCL_ALGO=X", an environment dump), applying to every
//      run of the file, in NCCL's syntax ("ring,tree", "^tree", "allreduce:tree;...": tuning.cc
//      parseList): the one algorithm it leaves all-reduce, or if it leaves tree and ring both,
//      the default;
//   4. the default: a tree on 2 machines (NCCL runs 2-machine all-reduce as a tree: nccl-tests
//      issues 22 and 196, NCCL issue 235), a ring on more (where a tree's busiest NIC moves 2 S,
//      within (n-1)/n of a ring's 2 (n-1)/n S, so the two readings agree).
//
// Errors (InputError naming the file and line): a result row before a column header or with a
// different number of columns; a size that is not a whole number >= 0; a time that is not a
// positive finite number; a non-zero #wrong (the run's results were wrong: its times are not
// those of a working collective); a run of unknown collective, rank or machine count; a file
// without any result row.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptsim/calibration/measurements.hpp"

namespace ckptsim {

/// NCCL's algorithms (src/include/plugin/nccl_tuner.h numbers them in this order).
enum class NcclAlgorithm { tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat };

/// "Tree", "ring", "NVLS_TREE", "CollNetDirect", ... (case and '_' ignored), as NCCL spells them.
std::optional<NcclAlgorithm> parse_nccl_algorithm(std::string_view name);
std::string_view nccl_algorithm_name(NcclAlgorithm a);  ///< "tree", "ring", "collnet-direct", ...

/// Bytes per NIC and direction, per rank, of an all-reduce of S bytes over n ranks on N machines
/// run as `algorithm` (see above).
double all_reduce_nic_bytes(NcclAlgorithm algorithm, double total_bytes, int ranks, int machines);

struct NcclTestsOptions {
  std::optional<SampleKind> collective;
  std::optional<int> ranks;
  std::optional<int> machines;
  std::optional<NcclAlgorithm> algorithm;  ///< all-reduce over >= 2 machines (--algorithm)
};

struct NcclTestsRun {
  std::string file;
  int first_line = 0;
  std::string test;         ///< "all_gather_perf", ...
  SampleKind kind = SampleKind::all_gather;
  int ranks = 0;
  int machines = 0;
  std::vector<std::string> devices;  ///< distinct device names of the Rank lines
  /// How the samples' bytes were read: "ring (nccl-tests' bus-bandwidth factors)", "tree (NCCL
  /// runs all-reduce over 2 machines as a tree ...)", one entry per algorithm the rows were read as.
  std::vector<std::string> algorithms;
  std::vector<Measurement> samples;
};

/// One line per run for reports: file, line, test, ranks on machines (GPUs each), devices and
/// how its bytes were read.
std::string describe_nccl_tests_run(const NcclTestsRun& run);

/// Runs of different clusters may not be pooled into one fit: refuses (InputError naming both
/// files and what differs) runs whose Rank lines name different devices, or whose GPUs per
/// machine (ranks / machines) differ.
void refuse_mixed_clusters(const std::vector<NcclTestsRun>& runs);

/// A test's name ("all_gather", "all_gather_perf", "allgather", "sendrecv", ...) as a sample kind.
std::optional<SampleKind> parse_nccl_test_name(std::string_view name);

std::vector<NcclTestsRun> parse_nccl_tests(std::string_view text, const std::string& file, const NcclTestsOptions& options);

}  // namespace ckptsim
