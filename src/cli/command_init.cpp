// ckptsim init: writes a first scenario from the user's hardware (an instance preset, or a GPU
// type and the machine's figures), a model preset, a machine count and a parallelism layout,
// with the fields that decide the answer written explicitly, and lists every field written with
// where its value comes from (scenario/starter_scenario.hpp builds and validates the document).
// Before writing, the scenario goes through the checks `run` makes before its first replica
// (run/run_checks.hpp: the iteration model's work, the clock, the GPU memory fit), so that a
// layout `run` would refuse is refused here with the same message and nothing is written.
#include <algorithm>
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/run/run_checks.hpp"
#include "ckptsim/scenario/starter_scenario.hpp"

namespace ckptsim::cli {

namespace po = boost::program_options;

namespace {

constexpr const char* kInitUsage =
    "usage: ckptsim init (--instance NAME | --gpu NAME ...) --model NAME --machines N -o FILE [options]\n\n"
    "Writes a first scenario from your hardware: an instance preset (ckptsim list instances) or a\n"
    "GPU type (ckptsim list gpus) with the machine's figures, a model preset (ckptsim list models),\n"
    "the machine count and the parallelism layout. The fields that decide the answer (failure rate,\n"
    "hardware share, detection, replacement delay, restart warm-up, storage and serialization\n"
    "bandwidth, spares) are written explicitly; their defaults are other clusters' published\n"
    "figures (GEMINI's AWS testbed, SOSP '23), so init lists each field with its source: replace\n"
    "them with your own. The scenario is checked as `run` checks it (GPU memory included) before\n"
    "anything is written.\n\noptions";

/// An integer option's value when given.
std::optional<long long> init_count(const po::variables_map& vm, const char* name) {
  if (!vm.count(name)) return std::nullopt;
  return vm[name].as<long long>();
}

/// The option's text when given, else "".
std::string init_text(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::string>() : std::string();
}

StarterChoices init_choices(const po::variables_map& vm) {
  StarterChoices c;
  c.instance = init_text(vm, "instance");
  c.gpu = init_text(vm, "gpu");
  if (const auto n = init_count(vm, "gpus-per-machine")) c.gpus_per_machine = static_cast<int>(std::clamp(*n, -1LL, 1LL << 30));
  c.cpu_memory = init_text(vm, "cpu-memory");
  c.network_bandwidth = init_text(vm, "network-bandwidth");
  c.gpu_cpu_bandwidth = init_text(vm, "gpu-cpu-bandwidth");
  c.model = init_text(vm, "model");
  c.machines = init_count(vm, "machines");
  c.parallelism = init_text(vm, "parallelism");
  c.engine = init_text(vm, "engine");
  c.tp = init_count(vm, "tp");
  c.pp = init_count(vm, "pp");
  c.dp = init_count(vm, "dp");
  c.cp = init_count(vm, "cp");
  c.ep = init_count(vm, "ep");
  c.micro_batches = init_count(vm, "micro-batches");
  c.micro_batch = init_count(vm, "micro-batch");
  c.sequence_length = init_count(vm, "sequence-length");
  c.attention = init_text(vm, "attention");
  c.strategy = init_text(vm, "strategy");
  c.duration = init_text(vm, "duration");
  c.failure_rate = init_text(vm, "failure-rate");
  c.hardware_fraction = init_text(vm, "hardware-fraction");
  c.detection = init_text(vm, "detection");
  c.replacement = init_text(vm, "replacement");
  c.warmup = init_text(vm, "warmup");
  c.storage_bandwidth = init_text(vm, "storage-bandwidth");
  c.serialization_bandwidth = init_text(vm, "serialization-bandwidth");
  c.spares = init_count(vm, "spares");
  return c;
}

void add_init_options(po::options_description& o) {
  const auto text = [] { return po::value<std::string>(); };
  const auto count = [] { return po::value<long long>(); };
  o.add_options()("help,h", "print this help")
      ("output,o", text(), "the scenario file to write (- for standard output; the field list then goes to stderr)")
      ("force", "replace an existing output file")
      ("no-check", "write without the checks `run` makes first (GPU memory fit, work limits)")
      ("instance", text(), "instance preset: GPUs, CPU memory, network, host link (ckptsim list instances)")
      ("gpu", text(), "GPU type (ckptsim list gpus); replaces the instance's; without --instance give the four "
                      "machine figures below")
      ("gpus-per-machine", count(), "GPUs per machine (with --gpu)")
      ("cpu-memory", text(), "CPU memory per machine, e.g. 2TiB (with --gpu)")
      ("network-bandwidth", text(), "network bandwidth per machine, each direction, e.g. 3200Gbps (with --gpu)")
      ("gpu-cpu-bandwidth", text(), "GPU-to-CPU bandwidth per GPU, e.g. 52GB/s (with --gpu)")
      ("model", text(), "model preset (ckptsim list models)")
      ("machines", count(), "machines training")
      ("parallelism", text(), "zero3 (default) or megatron (the default when --tp, --pp, --dp, --cp, --ep or "
                              "--micro-batches is given)")
      ("engine", text(), "zero3's engine: deepspeed-zero3 (default) or fsdp")
      ("tp", count(), "megatron: tensor-parallel size")
      ("pp", count(), "megatron: pipeline-parallel size")
      ("dp", count(), "megatron: data-parallel size (default: GPUs / (tp x pp x cp))")
      ("cp", count(), "megatron: context-parallel size")
      ("ep", count(), "megatron: expert-parallel size")
      ("micro-batches", count(), "megatron: micro-batches per pipeline per step")
      ("micro-batch", count(), "sequences per GPU per micro-batch (default: the parameter table's)")
      ("sequence-length", count(), "tokens per sequence (default: the parameter table's)")
      ("attention", text(), "attention kernels: unfused (default) or flash (FlashAttention-2)")
      ("strategy", text(), "checkpoint strategy (default gemini; ckptsim list strategies)")
      ("duration", text(), "simulated training time (default 30d)")
      ("failure-rate", text(), "failures per machine, e.g. 0.5%/machine/day (default: GEMINI's 1.5%)")
      ("hardware-fraction", text(), "share of failures that replace a machine (default 0.5)")
      ("detection", text(), "time to detect a failure (default: GEMINI's 15s)")
      ("replacement", text(), "time to replace a failed machine (default 5min, inside GEMINI's 4-7 min)")
      ("warmup", text(), "your stack's restart warm-up: model construction, loading, compilation (default: "
                         "GEMINI's 253s)")
      ("storage-bandwidth", text(), "your file system's aggregate bandwidth (default: GEMINI's 20Gbps)")
      ("serialization-bandwidth", text(), "snapshot to CPU memory per machine (default 930MB/s, from GEMINI)")
      ("spares", count(), "standby machines that replace a failed one at once (default 0)");
}

void print_init_fields(std::ostream& out, const StarterScenario& s, const std::string& where) {
  out << (where == "-" ? std::string("wrote      the scenario to standard output\n")
                       : fmt::format("wrote      {} (next: ckptsim run {})\n", where, where));
  bool deciding_started = false;
  for (std::size_t i = 0; i < s.fields.size(); ++i) {
    const StarterField& f = s.fields[i];
    const char* label = "";
    if (i == 0) label = "chosen";
    if (f.deciding && !deciding_started) {
      label = "deciding";
      deciding_started = true;
    }
    out << fmt::format("{:<10} {} = {} ({})\n", label, f.pointer, f.value, f.source);
  }
  out << "           (the deciding fields' defaults are not your cluster's: docs/references.md gives each source)\n";
}

}  // namespace

int command_init(const CommandContext& ctx) {
  po::options_description visible(kInitUsage);
  add_init_options(visible);
  const auto parsed = parse_command_options(ctx, visible);
  if (!parsed) return 0;
  const po::variables_map& vm = *parsed;
  if (!vm.count("output")) throw UsageError("missing -o FILE (the scenario to write; - for standard output)");
  const std::string output = vm["output"].as<std::string>();
  const bool to_stdout = output == "-";
  if (!to_stdout) {
    std::error_code ec;
    if (std::filesystem::exists(std::filesystem::symlink_status(output, ec)) && !vm.count("force"))
      throw UsageError(fmt::format("-o: \"{}\" exists; --force replaces it", output));
    check_output_writable(output);
  }
  const StarterScenario starter = starter_scenario(init_choices(vm), to_stdout ? "" : output);
  if (!vm.count("no-check")) {
    RunChecks checks;
    checks.way_out = "init --no-check writes it anyway, and run --force runs it";
    static_cast<void>(checked_strategy_costs(starter.scenario, checks));
  }
  if (to_stdout) {
    ctx.out << starter.text;
  } else {
    write_output_file(output, starter.text);
  }
  print_init_fields(to_stdout ? ctx.err : ctx.out, starter, output);
  return 0;
}

}  // namespace ckptsim::cli
