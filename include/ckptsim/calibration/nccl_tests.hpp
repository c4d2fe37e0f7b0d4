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

struct NcclTestsOptions {
  std::optional<SampleKind> collective;
  std::optional<int> ranks;
  std::optional<int> machines;
};

struct NcclTestsRun {
  std::string file;
  int first_line = 0;
  std::string test;         ///< "all_gather_perf", ...
  SampleKind kind = SampleKind::all_gather;
  int ranks = 0;
  int machines = 0;
  std::vector<std::string> devices;  ///< distinct device names of the Rank lines
  std::vector<Measurement> samples;
};

/// A test's name ("all_gather", "all_gather_perf", "allgather", "sendrecv", ...) as a sample kind.
std::optional<SampleKind> parse_nccl_test_name(std::string_view name);

std::vector<NcclTestsRun> parse_nccl_tests(std::string_view text, const std::string& file, const NcclTestsOptions& options);

}  // namespace ckptsim
