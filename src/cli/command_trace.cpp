// ckptsim trace: synthesize a failure trace from a published description (synth), or describe
// a trace (stats). Models in failure/trace_tools.hpp.
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <ostream>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/output/output_file.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/input_file.hpp"
#include "ckptsim/failure/trace_tools.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {
namespace {

namespace po = boost::program_options;

/// A duration option greater than zero (UsageError naming the option and the value otherwise).
SimTime parse_trace_duration(const std::string& option, const std::string& text) {
  return parse_unit_option(option, text, [](const std::string& t) {
    const SimTime d = parse_duration(t);
    if (d <= SimTime::zero()) throw UnitError("a duration greater than zero such as \"30d\"");
    return d;
  });
}

int trace_synth(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim trace synth PRESET|SPEC --machines N --duration D -o FILE [--seed S]\n\n"
      "Writes a failure trace (time,machine,type,cause) drawn from a published description:\n"
      "  llama3-405b   Llama 3 405B interruptions: 0.003789 per machine-day, the cause table\n"
      "  opt-175b      OPT-175B logbook: ~2 machines down per day on 124 machines\n"
      "  lanl-weibull  LANL (Schroeder & Gibson): Weibull shape 0.7 per machine, 1.5% per machine-day\n"
      "SPEC = NAME:key=value,... with NAME a preset, exponential or weibull; keys rate, shape,\n"
      "hardware, causes, each at most once. exponential and weibull default to rate 1.5%/machine/day\n"
      "(GEMINI's figure from the OPT-175B logbook), hardware fraction 0.5 and (weibull) shape 0.7.\n"
      "The file's header says which source and figures it encodes, and the parameters in effect.\n\noptions");
  int machines = 0;
  std::string duration_text;
  std::string output;
  long long seed = 1;
  visible.add_options()("help,h", "print this help")
      ("machines,n", po::value<int>(&machines), "machines in the trace (required)")
      ("duration,d", po::value<std::string>(&duration_text), "trace length, e.g. 30d (required)")
      ("output,o", po::value<std::string>(&output), "trace CSV to write (required)")
      ("seed,s", po::value<long long>(&seed)->default_value(1), "random seed");
  std::string spec_text;
  const auto parsed = parse_command_options(ctx, visible, "spec", &spec_text);
  if (!parsed) return 0;
  if (spec_text.empty()) throw UsageError("missing PRESET|SPEC (llama3-405b, opt-175b, lanl-weibull, ...)");
  if (machines < 1 || machines > kMaxTraceMachines)
    throw UsageError(fmt::format("--machines expects 1 to {}, found {}", kMaxTraceMachines, machines));
  if (duration_text.empty()) throw UsageError("missing --duration (e.g. 30d)");
  if (output.empty()) throw UsageError("missing --output FILE");
  if (seed < 0) throw UsageError(fmt::format("--seed expects a non-negative integer, found {}", seed));
  const SimTime duration = parse_trace_duration("--duration", duration_text);
  const TraceSynthesisSpec spec = parse_trace_spec(spec_text);
  check_output_writable(output);
  const auto records = synthesize_trace(spec.failures, machines, duration, static_cast<std::uint64_t>(seed));
  std::vector<std::string> header{fmt::format("ckptsim trace synth {}", spec_text)};
  header.insert(header.end(), spec.provenance.begin(), spec.provenance.end());
  std::ostringstream text;
  write_trace_csv(text, records, header, machines, duration, static_cast<std::uint64_t>(seed));
  write_output_file(output, text.str());
  ctx.out << fmt::format("wrote {} failures on {} machines over {} to {}\n", records.size(), machines,
                         format_duration(duration), output);
  return 0;
}

nlohmann::json stats_json(const TraceStats& st) {
  nlohmann::json j{{"machines", st.machines},
                   {"duration_s", st.duration.seconds()},
                   {"failures", st.failures},
                   {"events", st.events},
                   {"rate_per_machine_day", st.rate_per_machine_day},
                   {"hardware", st.hardware},
                   {"software", st.software},
                   {"causes", st.causes},
                   {"machines_failed", st.machines_failed},
                   {"machines_repeated", st.machines_repeated},
                   {"most_failures_on_one_machine", st.most_failures}};
  if (st.fit)
    j["lifetime_fit"] = {{"exponential_rate_per_machine_day", st.fit->exponential_rate * 86400.0},
                         {"exponential_log_likelihood", st.fit->exponential_log_likelihood},
                         {"weibull_shape", st.fit->weibull_shape},
                         {"weibull_scale_s", st.fit->weibull_scale_s},
                         {"weibull_log_likelihood", st.fit->weibull_log_likelihood},
                         {"likelihood_ratio", st.fit->likelihood_ratio},
                         {"exponential_p_value", st.fit->p_value}};
  return j;
}

void print_stats(std::ostream& out, const std::string& path, const TraceStats& st) {
  out << fmt::format("trace      {} — {} machines, {}\n", path, st.machines, format_duration(st.duration));
  out << fmt::format("failures   {} machine failures in {} events; {:.5f} per machine-day\n", st.failures, st.events,
                     st.rate_per_machine_day);
  out << fmt::format("types      hardware {} ({:.1f}%), software {} ({:.1f}%)\n", st.hardware,
                     st.failures ? 100.0 * st.hardware / st.failures : 0.0, st.software,
                     st.failures ? 100.0 * st.software / st.failures : 0.0);
  out << fmt::format("machines   {} failed at least once, {} more than once (most on one machine: {})\n",
                     st.machines_failed, st.machines_repeated, st.most_failures);
  if (st.fit) {
    const auto& f = *st.fit;
    out << "lifetimes  per machine, renewal from 0, censored at the end (maximum likelihood)\n";
    out << fmt::format("  exponential  rate {:.5f} per machine-day             log-likelihood {:.2f}\n",
                       f.exponential_rate * 86400.0, f.exponential_log_likelihood);
    out << fmt::format("  weibull      shape {:.3f}, scale {}     log-likelihood {:.2f}\n", f.weibull_shape,
                       format_duration(SimTime::from_seconds(std::min(f.weibull_scale_s, 9.2e9))),
                       f.weibull_log_likelihood);
    out << fmt::format("  likelihood ratio {:.2f}, p = {:.3g}: {}\n", f.likelihood_ratio, f.p_value,
                       f.p_value < 0.01 ? (f.weibull_shape < 1 ? "Weibull, decreasing hazard (failures cluster)"
                                                                : "Weibull, increasing hazard (wear-out)")
                                        : "consistent with exponential (constant rate)");
  }
  if (!st.causes.empty() && !(st.causes.size() == 1 && st.causes.begin()->first.empty())) {
    out << "causes\n";
    std::vector<std::pair<std::int64_t, std::string>> sorted;
    for (const auto& [name, n] : st.causes) sorted.emplace_back(n, name);
    std::sort(sorted.rbegin(), sorted.rend());
    for (const auto& [n, name] : sorted)
      out << fmt::format("  {:<26} {:>7} {:>6.1f}%\n", name.empty() ? "(none)" : name, n, 100.0 * n / st.failures);
  }
}

int trace_stats_command(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim trace stats FILE [--machines N] [--duration D] [--json]\n\n"
      "Rate per machine-day, per-machine lifetime fits (exponential vs Weibull by maximum likelihood),\n"
      "type and cause mix, machines with repeated failures. Machines and duration come from the\n"
      "file's '# machines:' / '# duration:' header lines (as trace synth writes them) unless given.\n\noptions");
  int machines = 0;
  std::string duration_text;
  visible.add_options()("help,h", "print this help")
      ("machines,n", po::value<int>(&machines), "machines observed (default: header, else highest index + 1)")
      ("duration,d", po::value<std::string>(&duration_text), "observation length (default: header, else last failure)")
      ("json", "print JSON instead of the table");
  std::string path;
  const auto parsed = parse_command_options(ctx, visible, "file", &path);
  if (!parsed) return 0;
  if (path.empty()) throw UsageError("missing FILE (a failure trace CSV)");
  if (parsed->count("machines") && (machines < 1 || machines > kMaxTraceMachines))
    throw UsageError(fmt::format("--machines expects 1 to {}, found {}", kMaxTraceMachines, machines));
  // One guarded read (core/input_file.hpp: a FIFO or a device is refused, never waited on),
  // then the header and the failures from the same text.
  const std::string text = read_input_file(path, "a failure trace CSV");
  const TraceHeader header = parse_trace_header(text, path);
  const int index_limit = parsed->count("machines") ? machines : header.machines.value_or(kMaxTraceMachines);
  const auto records = parse_failure_trace(text, path, std::clamp(index_limit, 1, kMaxTraceMachines));
  int n = parsed->count("machines") ? machines : header.machines.value_or(0);
  if (!parsed->count("machines") && !header.machines)
    for (const auto& r : records) n = std::max(n, r.machine + 1);
  const bool given = !duration_text.empty();
  SimTime duration = given ? parse_trace_duration("--duration", duration_text)
                           : header.duration.value_or(records.empty() ? SimTime::zero() : records.back().time);
  if (!records.empty() && records.back().time > duration) {
    const auto late = std::find_if(records.begin(), records.end(), [&](const TraceRecord& r) { return r.time > duration; });
    throw InputError(path, fmt::format("/line/{}", late->line),
                     fmt::format("failures within the observation length {} ({})", format_duration(duration),
                                 given ? "--duration" : "the \"# duration:\" header line"),
                     fmt::format("a failure at {}{}", format_duration(late->time),
                                 records.back().line != late->line
                                     ? fmt::format(" (the last at {}, line {})", format_duration(records.back().time),
                                                   records.back().line)
                                     : ""));
  }
  if (n < 1 || duration <= SimTime::zero())
    throw UsageError("cannot tell the machines or the duration: give --machines and --duration");
  const TraceStats st = trace_stats(records, n, duration);
  if (parsed->count("json")) {
    ctx.out << stats_json(st).dump(2) << '\n';
  } else {
    print_stats(ctx.out, path, st);
  }
  return 0;
}

}  // namespace

int command_trace(const CommandContext& ctx) {
  const std::string usage = "usage: ckptsim trace synth|stats ... (ckptsim trace synth --help, ckptsim trace stats --help)";
  if (ctx.args.empty()) throw UsageError(usage);
  if (ctx.args[0] == "--help" || ctx.args[0] == "-h") {
    ctx.out << usage << '\n';
    return 0;
  }
  CommandContext sub{std::vector<std::string>(ctx.args.begin() + 1, ctx.args.end()), ctx.command_line, ctx.out, ctx.err};
  if (ctx.args[0] == "synth") return trace_synth(sub);
  if (ctx.args[0] == "stats") return trace_stats_command(sub);
  throw UsageError(fmt::format("unknown trace command \"{}\": expected synth or stats", ctx.args[0]));
}

}  // namespace ckptsim::cli
