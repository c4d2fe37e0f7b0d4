// ckptsim import: measurements users already have, in the formats they have them, turned into
// what ckptsim reads. Parsing and fitting live in the calibration layer (nccl_tests.hpp,
// torch_profiler.hpp, calibrate.hpp); this file parses options, routes and prints.
//   ckptsim import nccl-tests FILE... -o FILE [--scenario BASE] [--sizes MIN:MAX] [--algorithm ring|tree] [--collective NAME]
//                             [--ranks N] [--machines N] [--write-machines N] [--json]
//   ckptsim import torch-profiler TRACE... -o profile.json [--kernels FILE] [--steps A:B] [--min-span T] [--json]
//   ckptsim import chakra TRACE... -o profile.json [--bus-bandwidth B] [--group-size N] [--gpu-flops F] [--min-span T] [--ctrl-deps]
//   ckptsim import gemini-gaps FILE -o profile.json --iteration-time T [--lines A:B] [--min-span T]
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/calibration/calibrate.hpp"
#include "ckptsim/calibration/nccl_tests.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/output_file.hpp"
#include "calibration_output.hpp"
#include "import_chakra.hpp"
#include "import_gemini_gaps.hpp"
#include "import_torch_profiler.hpp"
#include "input_guards.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

int import_nccl_tests(const CommandContext& ctx, const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: ckptsim import nccl-tests FILE... -o FILE [--scenario BASE] [--sizes MIN:MAX] [--algorithm ring|tree] [--json]\n\n"
      "Reads nccl-tests output (all_gather_perf, reduce_scatter_perf, all_reduce_perf, sendrecv_perf,\n"
      "alltoall_perf; several runs per file allowed), fits latency and bandwidth per collective, rank\n"
      "and machine count by weighted least squares (with standard errors and residuals), and writes\n"
      "the network fields a scenario takes: per-step latency, collective and point-to-point efficiency\n"
      "against the base scenario's line rate; for single-machine runs NVLink bandwidth and latency,\n"
      "and the measured curves (median busbw per size: nvlink_ring_curve from reduce-scatter or\n"
      "all-gather, nvlink_all_reduce_curve from all-reduce) the Megatron model times collectives inside\n"
      "a machine by. With --scenario BASE, FILE is BASE with those fields replaced\n"
      "(docs/timeline-format.md, \"Calibration\").\n"
      "Each run is reported with its devices, machines and the algorithm its all-reduce was read as:\n"
      "over 2 machines NCCL runs a tree (each NIC carries S bytes: the NIC rate is algbw, not busbw),\n"
      "over more a ring, unless the log's NCCL_ALGO or NCCL TUNING lines, or --algorithm, say otherwise.\n"
      "The fits use by default the sizes of --scenario's collectives between machines (smallest to\n"
      "largest buffer), or without one the sizes of 64 MiB and up (NCCL's Simple protocol); a group with\n"
      "fewer than 2 such sizes is fitted on all of them, with a warning; each fit reports the sizes it was\n"
      "fitted on. Logs of different clusters (devices, GPUs per machine) are refused together (exit 2),\n"
      "and collectives fitted on n machines written into a --scenario of m != n machines warn.\n\noptions");
  std::string output, base_path, collective, sizes, algorithm;
  int ranks = 0, machines = 0, machines_written = 0;
  visible.add_options()("help,h", "print this help")("json", "print the fits as JSON")
      ("output,o", po::value(&output), "file to write (required)")
      ("scenario", po::value(&base_path), "base scenario: its line rate bounds and normalizes the fits, its fields are replaced")
      ("sizes", po::value(&sizes), "MIN:MAX sizes (bytes, or 64MiB, 1GiB, ...; either side may be empty) the fits use (default: the sizes of --scenario's collectives between machines, else 64MiB:)")
      ("algorithm", po::value(&algorithm), "how all-reduce over 2+ machines ran: ring or tree (default: from the log, else tree on 2 machines, ring on more)")
      ("collective", po::value(&collective), "the test of files that do not name it: all_gather, reduce_scatter, all_reduce, sendrecv, alltoall")
      ("ranks", po::value(&ranks), "ranks of runs whose Rank lines are missing or incomplete")
      ("machines", po::value(&machines), "machines of runs whose Rank lines are missing or incomplete")
      ("write-machines", po::value(&machines_written), "machine count whose collectives set the network fields (default: the largest)");
  const auto parsed = parse_files_options(ctx, args, visible);
  if (!parsed) return 0;
  const po::variables_map& vm = parsed->vm;
  const std::vector<std::string>& files = parsed->files;
  if (files.empty()) throw UsageError("expects at least one FILE of nccl-tests output");
  if (output.empty()) throw UsageError("missing -o FILE (where to write the fitted fields)");
  NcclTestsOptions o;
  if (vm.count("collective")) {
    o.collective = parse_nccl_test_name(collective);
    if (!o.collective) throw UsageError(fmt::format("--collective expects all_gather, reduce_scatter, all_reduce, sendrecv or alltoall, found \"{}\"", collective));
  }
  if (vm.count("ranks")) {
    if (ranks < 1 || ranks > 1'000'000) throw UsageError(fmt::format("--ranks expects 1..1000000, found {}", ranks));
    o.ranks = ranks;
  }
  if (vm.count("machines")) {
    if (machines < 1 || machines > 1'000'000) throw UsageError(fmt::format("--machines expects 1..1000000, found {}", machines));
    o.machines = machines;
  }
  if (vm.count("algorithm")) {
    o.algorithm = parse_nccl_algorithm(algorithm);
    if (!o.algorithm || (*o.algorithm != NcclAlgorithm::ring && *o.algorithm != NcclAlgorithm::tree)) {
      throw UsageError(fmt::format("--algorithm expects ring or tree, found \"{}\"", algorithm));
    }
  }
  CalibrationBase base;
  base.sizes = default_size_range({});
  if (vm.count("sizes")) {
    try {
      base.sizes = parse_size_range(sizes);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--sizes {}", e.what()));
    }
  }
  refuse_repeated_inputs("nccl-tests files", files);
  std::vector<std::string> inputs = files;
  if (!base_path.empty()) inputs.push_back(base_path);
  refuse_output_over_inputs("-o", output, inputs);
  check_output_writable(output);
  MeasurementSet set;
  std::vector<NcclTestsRun> runs;
  for (const std::string& f : files) {
    for (NcclTestsRun& run : parse_nccl_tests(read_input_file(f, "nccl-tests output"), f, o)) runs.push_back(std::move(run));
    set.sources.push_back(f);
  }
  refuse_mixed_clusters(runs);
  for (const NcclTestsRun& run : runs) set.samples.insert(set.samples.end(), run.samples.begin(), run.samples.end());
  if (vm.count("write-machines")) {
    if (machines_written < 1) throw UsageError(fmt::format("--write-machines expects a machine count >= 1, found {}", machines_written));
    base.machines = machines_written;
  }
  const CalibrationTarget target = load_calibration_target(base_path, base);
  std::vector<std::string> read;
  for (const NcclTestsRun& run : runs) read.push_back(describe_nccl_tests_run(run));
  Calibration cal;
  try {
    cal = calibrate(set, base);
  } catch (const ModelError& e) {
    // A refusal says how the runs were read too (the algorithm is what a refusal often hinges on).
    std::string how;
    for (const std::string& r : read) how += "\n  " + r;
    throw ModelError(e.parameter(), e.message() + "\nThe runs were read as:" + how);
  }
  cal.read = std::move(read);
  write_calibration(ctx, cal, target, output, "import nccl-tests", vm.count("json") > 0);
  return 0;
}

}  // namespace

int command_import(const CommandContext& ctx) {
  const std::string usage =
      "usage: ckptsim import nccl-tests FILE... -o FILE [options]      nccl-tests output -> calibrated network fields\n"
      "       ckptsim import torch-profiler TRACE... -o FILE [options]  PyTorch profiler traces -> idle-span profile and kernel classes\n"
      "       ckptsim import chakra TRACE... -o FILE [options]          Chakra execution traces -> idle-span profile\n"
      "       ckptsim import gemini-gaps FILE -o FILE [options]         GEMINI's comm_gap.txt -> idle-span profile\n"
      "(ckptsim import FORMAT --help for a format's options)\n";
  if (ctx.args.empty() || ctx.args[0] == "--help" || ctx.args[0] == "-h") {
    (ctx.args.empty() ? ctx.err : ctx.out) << usage;
    return ctx.args.empty() ? 2 : 0;
  }
  const std::vector<std::string> rest(ctx.args.begin() + 1, ctx.args.end());
  if (ctx.args[0] == "nccl-tests") return import_nccl_tests(ctx, rest);
  if (ctx.args[0] == "torch-profiler") return import_torch_profiler(ctx, rest);
  if (ctx.args[0] == "chakra") return import_chakra(ctx, rest);
  if (ctx.args[0] == "gemini-gaps") return import_gemini_gaps(ctx, rest);
  throw UsageError(fmt::format("import expects the format nccl-tests, torch-profiler, chakra or gemini-gaps, found \"{}\"", ctx.args[0]));
}

}  // namespace ckptsim::cli
