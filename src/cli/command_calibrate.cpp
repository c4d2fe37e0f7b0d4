// ckptsim calibrate: fits the model's hardware parameters to measurements (calibration layer,
// calibration/calibrate.hpp) and writes them as scenario fields. This file parses the options,
// reads the files, routes and prints; the fits and the fields live in the library.
#include <algorithm>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/calibrate.hpp"
#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/measurements.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/cli/json_input.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/output/calibration_report.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/scenario/loader.hpp"
#include "calibration_output.hpp"
#include "input_guards.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

void add_measurement_file(const std::string& file, MeasurementSet& set) {
  const nlohmann::json doc = read_json_file(file, "a measured timeline or microbenchmark");
  require_json_object(doc, file, "a measured timeline or microbenchmark");
  const std::string format = doc.contains("format") && doc["format"].is_string() ? doc["format"].get<std::string>() : "";
  if (format == "ckptsim-microbench/1") {
    add_microbench_samples(doc, file, set);
  } else if (format == "ckptsim-timeline/1") {
    add_timeline_samples(parse_measured_timeline(doc, file), set);
  } else if (format == "ckptsim-kernels/1") {
    add_kernel_samples(doc, file, set);
  } else {
    throw InputError(file, "/format", "\"ckptsim-microbench/1\" (ckptsim-replay --microbench), \"ckptsim-timeline/1\" (ckptsim-replay) or "
                     "\"ckptsim-kernels/1\" (ckptsim import torch-profiler --kernels)",
                     doc.contains("format") ? doc["format"].dump().substr(0, 60) : "nothing");
  }
}

}  // namespace

int command_calibrate(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim calibrate MEASURED... -o FILE [--scenario BASE] [--machines N] [--skip KIND]... [--json]\n\n"
      "Fits the model's hardware parameters to microbenchmarks (ckptsim-replay --microbench), measured\n"
      "timelines (ckptsim-replay) and kernel classes of profiler traces (ckptsim import torch-profiler\n"
      "--kernels) by weighted least squares: latency and bandwidth of the\n"
      "collectives and of point-to-point sends, GPU-to-CPU copy bandwidth, compute FLOP/s, and the\n"
      "time of each kernel class against the kernel model of --scenario (GEMM, memory-bound and\n"
      "FlashAttention efficiencies), each with its standard error and residuals. A fit that is not physical (a negative latency, a rate\n"
      "above the line rate) beyond its uncertainty, or that its samples cannot determine, kernel classes without the profiled\n"
      "job's --scenario, and a field the scenario loader would refuse, are each refused alone with the likely cause, the file\n"
      "and the samples (a warning, exit 0; the fits that hold are written and listed), and when every fit is refused nothing\n"
      "is written (exit 2). --skip leaves a kind of sample out. Each fit of sized samples prints the sizes it was fitted on;\n"
      "collectives fitted on n machines and written into a --scenario of m != n machines carry a warning (NCCL's algorithm\n"
      "changes with it).\n"
      "-o writes the fitted scenario fields, or with --scenario BASE the whole scenario with them\n"
      "replaced; either way a file ckptsim loads (docs/timeline-format.md, \"Calibration\").\n\noptions");
  std::string output, base_path;
  std::vector<std::string> skip;
  int machines = 0;
  visible.add_options()("help,h", "print this help")("json", "print the fits as JSON")
      ("output,o", po::value(&output), "file to write (required)")
      ("scenario", po::value(&base_path), "base scenario whose fields the fits replace (its data sheet bounds fits on real devices)")
      ("machines", po::value(&machines), "machine count whose collectives set the network fields (default: the largest)")
      ("skip", po::value(&skip)->composing(), "leave out the samples of KIND (repeatable): all-gather, reduce-scatter, all-reduce, all-to-all, "
                                              "p2p, host-copy, compute, kernel-class (every kernel class) or one kernel class (gemm, "
                                              "attention, layer_norm, elementwise, loss, embedding)");
  const auto parsed = parse_files_options(ctx, ctx.args, visible);
  if (!parsed) return 0;
  const po::variables_map& vm = parsed->vm;
  const std::vector<std::string>& files = parsed->files;
  if (files.empty()) throw UsageError("expects at least one MEASURED file (ckptsim-replay output or --microbench output)");
  if (output.empty()) throw UsageError("missing -o FILE (where to write the fitted parameters)");
  if (vm.count("machines") && machines < 1) throw UsageError(fmt::format("--machines expects a machine count >= 1, found {}", machines));
  refuse_repeated_inputs("MEASURED files", files);
  std::vector<std::string> inputs = files;
  if (!base_path.empty()) inputs.push_back(base_path);
  refuse_output_over_inputs("-o", output, inputs);
  check_output_writable(output);
  const std::vector<std::string> kinds = skippable_kinds();
  for (const std::string& k : skip) {
    if (std::find(kinds.begin(), kinds.end(), k) == kinds.end()) {
      std::string all;
      for (const std::string& n : kinds) all += (all.empty() ? "" : ", ") + n;
      throw UsageError(fmt::format("--skip expects one of {}, found \"{}\"", all, k));
    }
  }
  MeasurementSet set;
  for (const std::string& f : files) with_json_file_context(f, "a measured timeline or microbenchmark", [&] { add_measurement_file(f, set); });
  for (const std::string& k : skip) (void)skip_kind(set, k);
  CalibrationBase base;
  if (vm.count("machines")) base.machines = machines;
  CalibrationTarget target = load_calibration_target(base_path, base);
  const Calibration cal = calibrate(set, base);
  write_calibration(ctx, cal, target, output, "calibrate", vm.count("json") > 0);
  return 0;
}

}  // namespace ckptsim::cli
