#include "import_chakra.hpp"

#include <algorithm>
#include <cmath>
#include <ostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/chakra_trace.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/scenario/units.hpp"
#include "ckptsim/workload/profile.hpp"
#include "input_guards.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

// A trace is read whole (protobuf parses from memory): 256 MiB, as for PyTorch traces.
constexpr std::size_t kChakraTraceLimit = std::size_t{256} << 20;

double parse_chakra_seconds_option(const std::string& name, const std::string& text) {
  try {
    return parse_duration(text).seconds();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--{} expects a duration such as 1ms, found \"{}\" ({})", name, text, e.what()));
  }
}

}  // namespace

int import_chakra(const CommandContext& ctx, const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: ckptsim import chakra TRACE... -o profile.json [--bus-bandwidth B] [--group-size N]\n"
      "                             [--gpu-flops F] [--min-span T] [--ctrl-deps]\n\n"
      "Reads MLCommons Chakra execution traces (protobuf, one file per rank: NAME.RANK.et), schedules\n"
      "each rank's node graph (a node starts when its data dependencies have ended; CPU\n"
      "operators, GPU compute and GPU communication each run one node at a time, as ASTRA-sim does)\n"
      "and writes the network idle spans of the iteration, one iteration per trace (-o,\n"
      "docs/profile-format.md; ckptsim iteration, schedule and run take it with --profile).\n"
      "Nodes take their duration_micros; a communication node without one is timed from its\n"
      "comm_size at --bus-bandwidth (nccl-tests' bus-bandwidth factors, --group-size ranks), a\n"
      "compute node from its num_ops at --gpu-flops. docs/profile-format.md lists what is read.\n\noptions");
  std::string output, bus_bandwidth, min_span = "0s";
  int group_size = 0;
  double gpu_flops = 0;
  visible.add_options()("help,h", "print this help")
      ("output,o", po::value(&output), "idle-span profile to write (required)")
      ("bus-bandwidth", po::value(&bus_bandwidth), "bus bandwidth of the collectives without duration_micros (e.g. 100GB/s, 400Gbps)")
      ("group-size", po::value(&group_size), "ranks of those collectives (all-reduce, all-gather, reduce-scatter, all-to-all)")
      ("gpu-flops", po::value(&gpu_flops), "sustained FLOP/s of compute nodes without duration_micros (e.g. 3.12e14)")
      ("min-span", po::value(&min_span)->default_value("0s"), "leave out idle gaps shorter than this (a duration: 100us, 1ms)")
      ("ctrl-deps", "order nodes after their ctrl_deps too (by default only data_deps order them, as in Chakra's feeder and "
                    "ASTRA-sim; Chakra's PyTorch converter writes the parent operator there)");
  const auto parsed = parse_files_options(ctx, args, visible);
  if (!parsed) return 0;
  const po::variables_map& vm = parsed->vm;
  const std::vector<std::string>& files = parsed->files;
  if (!chakra_reader_available()) {
    throw UsageError("this build of ckptsim has no Chakra reader: it was configured without protobuf. Install the Debian "
                     "packages libprotobuf-dev and protobuf-compiler (scripts/install-deps does), then reconfigure "
                     "(meson setup --reconfigure build -Dchakra=enabled) and rebuild");
  }
  if (files.empty()) throw UsageError("expects at least one TRACE (a Chakra execution trace per rank)");
  if (output.empty()) throw UsageError("missing -o FILE (where to write the idle-span profile)");
  ChakraTiming timing;
  if (vm.count("bus-bandwidth")) {
    try {
      timing.bus_bandwidth = parse_bandwidth(bus_bandwidth);
    } catch (const std::exception& e) {
      throw UsageError(fmt::format("--bus-bandwidth expects a bandwidth such as 100GB/s or 400Gbps, found \"{}\" ({})", bus_bandwidth, e.what()));
    }
    if (!(*timing.bus_bandwidth > 0)) throw UsageError(fmt::format("--bus-bandwidth expects a bandwidth above 0, found \"{}\"", bus_bandwidth));
  }
  if (vm.count("group-size")) {
    if (group_size < 2 || group_size > 1'000'000) throw UsageError(fmt::format("--group-size expects 2..1000000 ranks, found {}", group_size));
    timing.group_size = group_size;
  }
  if (vm.count("gpu-flops")) {
    if (!(std::isfinite(gpu_flops) && gpu_flops > 0)) throw UsageError(fmt::format("--gpu-flops expects FLOP/s above 0, found {}", gpu_flops));
    timing.gpu_flops = gpu_flops;
  }
  const double min_span_s = parse_chakra_seconds_option("min-span", min_span);
  refuse_repeated_inputs("traces", files);
  refuse_output_over_inputs("-o", output, files);
  check_output_writable(output);

  std::vector<ChakraSchedule> schedules;
  for (const std::string& f : files) {
    const ChakraTrace trace = parse_chakra_trace(read_input_file(f, "a Chakra execution trace", kChakraTraceLimit), f);
    schedules.push_back(schedule_chakra_trace(trace, timing, min_span_s, vm.count("ctrl-deps") > 0));
  }
  std::string source = "chakra:";
  for (const std::string& f : files) source += " " + f;
  const nlohmann::json profile = chakra_idle_span_profile(schedules, source);
  (void)parse_profile(profile, output, 1);  // what is written loads as a --profile
  write_output_files({{output, profile.dump(1) + '\n'}});

  std::size_t width = 5;
  for (const ChakraSchedule& s : schedules) width = std::max(width, s.file.size());
  ctx.out << fmt::format("{:<{}} {:>7} {:>6} {:>6} {:>12} {:>12} {:>6} {:>12}\n", "trace", width, "compute", "comm", "other", "iteration",
                         "network busy", "spans", "idle");
  for (const ChakraSchedule& s : schedules) {
    double idle = 0;
    for (const auto& sp : s.idle_spans) idle += sp.second;
    ctx.out << fmt::format("{:<{}} {:>7} {:>6} {:>6} {:>9.3f} ms {:>9.3f} ms {:>6} {:>9.3f} ms\n", s.file, width, s.compute_nodes, s.comm_nodes,
                           s.other_nodes, 1e3 * s.iteration_time_s, 1e3 * s.network_busy_s, s.idle_spans.size(), 1e3 * idle);
  }
  for (const ChakraSchedule& s : schedules) {
    if (s.untimed_compute_nodes > 0) {
      ctx.err << fmt::format("warning: {}: {} of {} compute nodes record neither duration_micros nor num_ops: each taken as 0 s\n", s.file,
                             s.untimed_compute_nodes, s.compute_nodes);
    }
    if (s.modelled_comm_nodes > 0) {
      ctx.err << fmt::format("note: {}: {} of {} communication nodes record no duration_micros: timed from comm_size at --bus-bandwidth {}{}\n",
                             s.file, s.modelled_comm_nodes, s.comm_nodes, bus_bandwidth,
                             timing.group_size ? fmt::format(" over --group-size {} ranks", *timing.group_size) : "");
    }
    if (s.flops_compute_nodes > 0) {
      ctx.err << fmt::format("note: {}: {} of {} compute nodes timed from num_ops at --gpu-flops {:g}\n", s.file, s.flops_compute_nodes,
                             s.compute_nodes, gpu_flops);
    }
  }
  ctx.err << fmt::format("ckptsim import chakra: {} trace(s): idle-span profile written to {}\n", schedules.size(), output);
  return 0;
}

}  // namespace ckptsim::cli
