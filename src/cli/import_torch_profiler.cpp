#include "import_torch_profiler.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <set>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/calibration/gzip_input.hpp"
#include "ckptsim/calibration/torch_profiler.hpp"
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

// Reading a trace holds its text, then the parsed JSON (about 7 bytes of memory per byte of
// text with every event, measured on 146 and 196 MiB traces; 4.3 with the events the importer
// does not read dropped while parsing; docs/limits.md): 256 MiB of text is at most about 2 GiB;
// --force lifts the limit to 4 GiB of text. Plain and gzip traces alike.
constexpr std::size_t kTraceLimit = std::size_t{256} << 20;
constexpr std::size_t kForcedTraceLimit = std::size_t{4} << 30;

std::pair<int, int> parse_steps(const std::string& text) {
  int a = -1, b = -1;
  char tail = 0;
  const int n = std::sscanf(text.c_str(), "%d:%d%c", &a, &b, &tail);
  if (n == 1 && text.find(':') == std::string::npos) b = a;
  if ((n != 2 && !(n == 1 && b == a)) || a < 0 || b < a) throw UsageError(fmt::format("--steps expects A:B (ProfilerStep numbers, A <= B) or N, found \"{}\"", text));
  return {a, b};
}

void print_summary(std::ostream& out, const std::vector<ProfiledRank>& ranks) {
  out << fmt::format("{:<6} {:<7} {:>12} {:>7} {:>12} {:>12}  {}\n", "rank", "step", "iteration", "spans", "idle", "NCCL busy", "GPU time by class");
  for (const ProfiledRank& r : ranks) {
    for (const ProfiledStep& s : r.steps) {
      double idle = 0;
      for (const auto& sp : s.idle_spans) idle += sp.second;
      std::vector<std::pair<double, std::string>> by_time;
      for (const auto& [name, c] : s.classes) by_time.emplace_back(c.seconds, name);
      std::sort(by_time.rbegin(), by_time.rend());
      std::string classes;
      for (std::size_t k = 0; k < by_time.size() && k < 4; ++k) classes += fmt::format("{}{} {:.1f} ms", k ? ", " : "", by_time[k].second, 1e3 * by_time[k].first);
      out << fmt::format("{:<6} {:<7} {:>9.2f} ms {:>7} {:>9.2f} ms {:>9.2f} ms  {}\n", r.rank, s.step, 1e3 * s.iteration_time_s, s.idle_spans.size(),
                         1e3 * idle, 1e3 * s.network_busy_s, classes);
    }
  }
  // The engine's hooks on the host (FSDP's record_function ranges).
  const HookHostTime hooks = hook_host_time(ranks);
  if (hooks.calls > 0)
    out << fmt::format("engine hooks: {} calls in {} steps ({:.1f} per step), {:.3f} ms of host time per call (FSDP's hook ranges); "
                       "training.hook_host_time = \"{:.0f}us\" models them (docs/models.md, \"Engine hooks on the host\")\n",
                       hooks.calls, hooks.steps, hooks.calls_per_step(), 1e3 * hooks.per_call_s(), 1e6 * hooks.per_call_s());
}

}  // namespace

int import_torch_profiler(const CommandContext& ctx, const std::vector<std::string>& args) {
  po::options_description visible(
      "usage: ckptsim import torch-profiler TRACE... -o profile.json [--kernels FILE] [--steps A:B] [--rank R]\n"
      "                                     [--min-span T] [--gpus-per-machine G] [--json] [--force]\n\n"
      "Reads PyTorch profiler (Kineto) traces of CUDA or ROCm jobs, plain or gzip, one file per rank:\n"
      "the ProfilerStep#N annotations, GPU kernels, NCCL/RCCL kernels by collective, memory copies.\n"
      "Each GPU event belongs to the step that launched it (its runtime call, by correlation id or\n"
      "ac2g flow), and a step's window is on the GPU's clock: from its first GPU event to the next\n"
      "step's (the last step: to its last event), so a host running ahead of the GPU does not move\n"
      "work between steps. Writes the measured network idle spans of every step (-o,\n"
      "docs/profile-format.md; ckptsim iteration and schedule take it with --profile); steps with\n"
      "different numbers of spans are matched by overlap and the unmatched spans dropped (a note\n"
      "says which). With --kernels, the GPU time per kernel class, collective sizes and copies\n"
      "(ckptsim-kernels/1, input of ckptsim calibrate). FSDP's own ranges around its hooks\n"
      "(FullyShardedDataParallel._pre_forward ..., FSDP::pre_forward ...) give the host time per hook\n"
      "call, printed as the value of training.hook_host_time.\n\noptions");
  std::string output, kernels, steps_text, min_span = "0s";
  int only_rank = -1, gpus_per_machine = 0;
  visible.add_options()("help,h", "print this help")("json", "print the kernel-class document instead of the summary")
      ("output,o", po::value(&output), "idle-span profile to write (required)")
      ("kernels", po::value(&kernels), "also write the kernel classes, collectives and copies per step")
      ("steps", po::value(&steps_text), "keep ProfilerStep#A..#B only (A:B, or one step N)")
      ("rank", po::value(&only_rank), "keep one rank's trace only")
      ("min-span", po::value(&min_span)->default_value("0s"), "leave out idle gaps shorter than this (a duration: 100us, 1ms)")
      ("gpus-per-machine", po::value(&gpus_per_machine), "GPUs per machine of the traced job: gives each collective its machine count")
      ("force", "read traces beyond the 256 MiB size limit (up to 4 GiB, plain or inflated)");
  const auto parsed = parse_files_options(ctx, args, visible);
  if (!parsed) return 0;
  const po::variables_map& vm = parsed->vm;
  const std::vector<std::string>& files = parsed->files;
  if (files.empty()) throw UsageError("expects at least one TRACE (a PyTorch profiler trace per rank)");
  if (output.empty()) throw UsageError("missing -o FILE (where to write the idle-span profile)");
  TorchProfilerOptions o;
  if (vm.count("steps")) o.steps = parse_steps(steps_text);
  try {
    o.min_span_s = parse_duration(min_span).seconds();
  } catch (const std::exception& e) {
    throw UsageError(fmt::format("--min-span expects a duration such as 1ms, found \"{}\" ({})", min_span, e.what()));
  }
  if (vm.count("gpus-per-machine")) {
    if (gpus_per_machine < 1 || gpus_per_machine > 1024) throw UsageError(fmt::format("--gpus-per-machine expects 1..1024, found {}", gpus_per_machine));
    o.gpus_per_machine = gpus_per_machine;
  }
  if (vm.count("rank") && only_rank < 0) throw UsageError(fmt::format("--rank expects a rank >= 0, found {}", only_rank));
  refuse_repeated_inputs("traces", files);
  refuse_output_over_inputs("-o", output, files);
  if (!kernels.empty()) {
    refuse_output_over_inputs("--kernels", kernels, files);
    refuse_outputs_sharing_a_file({{"-o", output}, {"--kernels", kernels}});
  }
  check_output_writable(output);
  if (!kernels.empty()) check_output_writable(kernels);
  const bool forced = vm.count("force") > 0;
  const std::size_t limit = forced ? kForcedTraceLimit : kTraceLimit;
  const std::string beyond_limit = forced ? "the limit with --force" : "--force reads up to 4 GiB";
  std::vector<ProfiledRank> ranks;
  std::set<int> seen;
  for (std::size_t i = 0; i < files.size(); ++i) {
    // Read and inflated in chunks, never held whole: the trace's events are held once, as the
    // JSON tree, without the events the importer does not read (cpu_op, python_function, ...: null).
    MaybeGzipText text(files[i], "a PyTorch profiler trace", limit, beyond_limit);
    const nlohmann::json doc = parse_json_strict([&text](char* out, std::size_t n) { return text.read(out, n); }, files[i],
                                                 JsonArrayFilter{"traceEvents", torch_profiler_reads});
    ProfiledRank r = parse_torch_profiler(doc, files[i], static_cast<int>(i), o);
    if (!seen.insert(r.rank).second) throw InputError(files[i], "/distributedInfo/rank", "one trace per rank", fmt::format("rank {} again", r.rank));
    if (only_rank < 0 || r.rank == only_rank) ranks.push_back(std::move(r));
  }
  if (ranks.empty()) throw UsageError(fmt::format("--rank {}: no trace of that rank among the {} given", only_rank, files.size()));
  std::sort(ranks.begin(), ranks.end(), [](const ProfiledRank& a, const ProfiledRank& b) { return a.rank < b.rank; });
  std::string source = "torch.profiler:";
  for (const ProfiledRank& r : ranks) source += fmt::format(" {} (rank {})", r.file, r.rank);
  std::vector<std::string> profile_notes;
  const nlohmann::json profile = idle_span_profile(ranks, source, &profile_notes);
  (void)parse_profile(profile, output, 1);  // what is written loads as a --profile
  const nlohmann::json classes = kernel_classes_document(ranks);
  // Both files or neither (output_file.hpp): a failed --kernels leaves no profile behind.
  const std::string profile_text = profile.dump(1) + '\n';
  const std::string classes_text = kernels.empty() ? std::string() : classes.dump(1) + '\n';
  std::vector<OutputText> outputs{{output, profile_text}};
  if (!kernels.empty()) outputs.push_back({kernels, classes_text});
  write_output_files(outputs);
  if (vm.count("json")) {
    ctx.out << classes.dump(2) << '\n';
  } else {
    print_summary(ctx.out, ranks);
  }
  // What was assumed or left out: the numbers above hold under it (no silent change).
  for (const ProfiledRank& r : ranks) {
    for (const std::string& n : r.notes) ctx.err << fmt::format("note: {} (rank {}): {}\n", r.file, r.rank, n);
  }
  for (const std::string& n : profile_notes) ctx.err << "note: " << n << '\n';
  ctx.err << fmt::format("ckptsim import torch-profiler: {} steps of {} rank(s): idle-span profile written to {}{}\n",
                         profile.at("iterations").size() / std::max<std::size_t>(1, ranks.size()), ranks.size(), output,
                         kernels.empty() ? "" : ", kernel classes to " + kernels);
  return 0;
}

}  // namespace ckptsim::cli
