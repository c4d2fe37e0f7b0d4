// ckptsim placement: probability of recovering every checkpoint from CPU memory after k
// simultaneous failures, per replica placement scheme (exact where a method exists, Monte Carlo
// with 95% Wilson intervals otherwise), with the union bound, a time-window probability and the
// CPU memory each scheme needs. Models: include/ckptsim/analysis/recovery_probability.hpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/analysis/placement_study.hpp"
#include "ckptsim/analysis/recovery_probability.hpp"
#include "ckptsim/checkpoint/placement.hpp"
#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "placement_domains.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/placement_report.hpp"
#include "ckptsim/scenario/scenario.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim::cli {
namespace {

namespace po = boost::program_options;

constexpr const char* kUsage =
    "usage: ckptsim placement --machines N --replicas M [--failures K | --failures K1..K2]\n"
    "                         [--scheme NAME[,NAME...] | --scheme all] [--placement-file PATH]\n"
    "                         [--window-probability P] [--shard-bytes B --cpu-memory C]\n"
    "                         [--bounds] [--monte-carlo] [--samples S] [--seed S] [--json]\n"
    "                         [--domain-size S]\n\n"
    "Probability that every machine's checkpoint can still be recovered from CPU memory when k\n"
    "machines fail at once (uniformly among the C(N, k) failure sets), for each placement\n"
    "scheme. Exact (big-integer counting) for group, ring, mixed and small explicit placements;\n"
    "Monte Carlo with 95% Wilson intervals for placements with no exact method (e.g. random at\n"
    "large N). When any checkpoint is lost, GEMINI restarts every machine from persistent\n"
    "storage, so machines reading from storage = N x P(not recoverable).\n"
    "With --domain-size S: j whole domains (racks) of S consecutive machines fail instead of k\n"
    "machines (--failures then gives j), with the domain-aware group placement group-spread.\n";

/// The command line's options: the study request plus what only the table needs.
struct Options {
  PlacementRequest request;
  bool bounds = false;
  bool json = false;
  std::optional<int> domain_size;
  bool failures_given = false;
};

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::string item;
  std::istringstream in(text);
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

int parse_nonnegative(const std::string& text, const std::string& what) {
  std::size_t used = 0;
  long long v = -1;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != text.size() || v < 0 || v > std::numeric_limits<int>::max())
    throw UsageError(fmt::format("{}: expected a non-negative integer, found \"{}\"", what, text));
  return static_cast<int>(v);
}

std::string registry_names() {
  std::string out;
  for (const auto& e : placement_registry().entries()) out += (out.empty() ? "" : ", ") + e.name;
  return out;
}

/// The schemes named by --scheme (nullopt: not given): names of PlacementScheme, "all", or
/// "file" with --placement-file.
std::vector<std::string> parse_schemes(const std::optional<std::string>& scheme, bool from_file) {
  std::vector<std::string> out;
  if (!scheme) {
    if (from_file) return {"file"};
    for (const auto& e : EnumNames<PlacementScheme>::table) out.emplace_back(e.name);
    return out;
  }
  const auto names = split_commas(*scheme);
  if (names.empty()) throw UsageError("--scheme: expected at least one scheme name");
  for (const auto& n : names) {
    if (n == "all") {
      for (const auto& e : EnumNames<PlacementScheme>::table) out.emplace_back(e.name);
      if (from_file) out.emplace_back("file");
    } else if (n == "file") {
      if (!from_file) throw UsageError("--scheme file needs --placement-file");
      out.push_back(n);
    } else if (!parse_name<PlacementScheme>(n)) {
      throw UsageError(fmt::format("--scheme: unknown placement scheme \"{}\": expected {}, \"all\" or \"file\"", n,
                                   placement_registry().names_for_error()));
    } else {
      out.push_back(n);
    }
  }
  // "ring,ring" or "all,ring": each scheme once, in the order first named.
  std::vector<std::string> unique;
  for (const auto& n : out)
    if (std::find(unique.begin(), unique.end(), n) == unique.end()) unique.push_back(n);
  return unique;
}

Options parse_options(const CommandContext& ctx, bool& help) {
  po::options_description desc("options");
  std::string failures;
  std::string scheme;
  std::string window;
  std::string shard;
  std::string cpu;
  long long machines = 0;
  long long replicas = 0;
  long long samples = 10000;
  long long seed = 1;
  long long jump = 1;
  std::string file;
  long long domain_size = 0;
  desc.add_options()
      ("help,h", "print this help")
      ("machines", po::value<long long>(&machines), "number of machines N (>= 1)")
      ("replicas", po::value<long long>(&replicas), "replicas m of each checkpoint, one local (1 <= m <= N)")
      ("failures", po::value<std::string>(&failures), "K or K1..K2: simultaneous failures to report (default 0..N)")
      ("scheme", po::value<std::string>(&scheme),
       ("comma-separated schemes or \"all\" (default all): " + registry_names() +
        "; \"file\" with --placement-file").c_str())
      ("placement-file", po::value<std::string>(&file),
       "explicit holder sets: {\"machines\": N, \"holders\": [[0,1],[1,0],...]} (scheme \"file\")")
      ("window-probability", po::value<std::string>(&window),
       "per-machine failure probability over a window (0.01 or \"1%\"): P(recover) over the window")
      ("shard-bytes", po::value<std::string>(&shard), "checkpoint bytes per machine (\"9.4GB\"): CPU memory per scheme")
      ("cpu-memory", po::value<std::string>(&cpu), "CPU memory per machine (\"1152GB\"): an error when a scheme does not fit")
      ("bounds", "show the union bound beside each exact value in the table")
      ("monte-carlo", "also estimate exact schemes by Monte Carlo (95% Wilson intervals) as a cross-check")
      ("samples", po::value<long long>(&samples), "Monte Carlo samples (default 10000)")
      ("seed", po::value<long long>(&seed), "seed of the random placement and of Monte Carlo (0 .. 2^63-1, default 1)")
      ("replication-jump", po::value<long long>(&jump),
       "J of the clique placement: machines between a checkpoint's holders (default 1)")
      ("force", "run even when the estimated memory or work exceeds the limits of docs/limits.md")
      ("json", "print JSON instead of a table")
      ("domain-size", po::value<long long>(&domain_size),
       "machines per failure domain: whole domains fail (--failures counts domains)");
  po::variables_map vm;
  po::store(po::command_line_parser(ctx.args).options(desc).run(), vm);
  po::notify(vm);
  Options o;
  help = vm.count("help") > 0;
  if (help) {
    ctx.out << kUsage << '\n' << desc;
    return o;
  }
  o.json = vm.count("json") > 0;
  if (vm.count("domain-size")) {
    if (domain_size < 1 || domain_size > 1'000'000)
      throw UsageError(fmt::format("--domain-size: expected 1..1000000, found {}", domain_size));
    o.domain_size = static_cast<int>(domain_size);
  }
  o.bounds = vm.count("bounds") > 0;
  o.request.monte_carlo = vm.count("monte-carlo") > 0;
  if (seed < 0) throw UsageError(fmt::format("--seed expects a non-negative integer, found {}", seed));
  o.request.seed = static_cast<std::uint64_t>(seed);
  if (jump < 1 || jump > 1000000)
    throw UsageError(fmt::format("--replication-jump: expected 1..1000000, found {}", jump));
  o.request.replication_jump = static_cast<int>(jump);
  o.request.force = vm.count("force") > 0;
  if (samples < 1 || samples > 100'000'000) throw UsageError(fmt::format("--samples: expected 1..100000000, found {}", samples));
  o.request.samples = static_cast<std::size_t>(samples);
  std::optional<Placement>& from_file = o.request.from_file;
  if (vm.count("placement-file")) from_file = load_placement_file(file);
  if (vm.count("machines")) {
    if (machines < 1 || machines > 1'000'000) throw UsageError(fmt::format("--machines: expected 1..1000000, found {}", machines));
    o.request.machines = static_cast<int>(machines);
  } else if (from_file) {
    o.request.machines = from_file->machines;
  } else {
    throw UsageError("--machines is required (or --placement-file)");
  }
  if (vm.count("replicas")) {
    if (replicas < 1 || replicas > o.request.machines)
      throw UsageError(fmt::format("--replicas: expected 1..{} (at most the machine count), found {}", o.request.machines, replicas));
    o.request.replicas = static_cast<int>(replicas);
  } else if (from_file) {
    o.request.replicas = from_file->replicas;
  } else {
    throw UsageError("--replicas is required (or --placement-file)");
  }
  if (from_file && (from_file->machines != o.request.machines || from_file->replicas != o.request.replicas))
    throw UsageError(fmt::format("--placement-file {} has {} machines and {} replicas, but --machines {} --replicas {}",
                                 file, from_file->machines, from_file->replicas, o.request.machines, o.request.replicas));
  // The loader's rule for failures.domains.*.machines (scenario.hpp).
  if (o.domain_size && !domain_size_fits(*o.domain_size, o.request.machines))
    throw UsageError(fmt::format("--domain-size expects at most --machines ({}) machines per domain, found {}",
                                 o.request.machines, *o.domain_size));
  o.request.k_last = o.request.machines;
  o.failures_given = vm.count("failures") > 0;
  if (vm.count("failures")) {
    const auto dots = failures.find("..");
    if (dots == std::string::npos) {
      o.request.k_first = o.request.k_last = parse_nonnegative(failures, "--failures");
    } else {
      o.request.k_first = parse_nonnegative(failures.substr(0, dots), "--failures");
      o.request.k_last = parse_nonnegative(failures.substr(dots + 2), "--failures");
    }
    if (o.request.k_first > o.request.k_last || o.request.k_last > o.request.machines)
      throw UsageError(fmt::format("--failures: expected K or K1..K2 with 0 <= K1 <= K2 <= {}, found \"{}\"", o.request.machines,
                                   failures));
  }
  o.request.schemes = parse_schemes(vm.count("scheme") ? std::optional<std::string>(scheme) : std::nullopt, from_file.has_value());
  if (vm.count("window-probability"))
    o.request.window_probability =
        parse_unit_option("--window-probability", window, [](const std::string& t) { return parse_fraction(t); });
  if (vm.count("shard-bytes"))
    o.request.shard_bytes = parse_unit_option("--shard-bytes", shard, [](const std::string& t) { return parse_bytes(t); });
  if (vm.count("cpu-memory"))
    o.request.cpu_memory = parse_unit_option("--cpu-memory", cpu, [](const std::string& t) { return parse_bytes(t); });
  if (o.request.cpu_memory && !o.request.shard_bytes) throw UsageError("--cpu-memory needs --shard-bytes");
  return o;
}


/// A probability for the table: "1-2.5e-07" when it is within 1e-3 of 1, "10^-523.41" when it
/// is below the double range (from the exact log10), else 6 digits.
std::string format_probability(double p, double failure, double log10_p = 0.0) {
  if (p > 0.999 && failure > 0) return fmt::format("1-{:.3g}", failure);
  if (p < 1e-300 && std::isfinite(log10_p) && log10_p < -300) return fmt::format("10^{:.2f}", log10_p);
  return fmt::format("{:.6g}", p);
}

void print_table(const CommandContext& ctx, const Options& o, const std::vector<PlacementSchemeResult>& results) {
  auto& out = ctx.out;
  out << fmt::format("placement: N = {} machines, m = {} replicas, k = {}..{} simultaneous failures\n", o.request.machines,
                     o.request.replicas, o.request.k_first, o.request.k_last);
  out << "P(every checkpoint recoverable from CPU memory) by k";
  out << (o.bounds ? "; \"bound\": union bound over holder sets\n" : "\n");
  std::string header = fmt::format("{:>6}", "k");
  for (const auto& r : results) {
    header += fmt::format(" {:>13}", r.name);
    if (o.bounds && r.placement) header += fmt::format(" {:>13}", "bound");
    if (r.mc && r.placement) header += fmt::format(" {:>21}", "95% CI");
  }
  out << header << '\n';
  std::vector<std::vector<double>> bounds(results.size());
  if (o.bounds)
    for (std::size_t i = 0; i < results.size(); ++i)
      if (results[i].placement) bounds[i] = union_bound_curve(*results[i].placement);
  std::string line;
  for (int k = o.request.k_first; k <= o.request.k_last; ++k) {
    const auto ki = static_cast<std::size_t>(k);
    line = fmt::format("{:>6}", k);
    for (std::size_t i = 0; i < results.size(); ++i) {
      const auto& r = results[i];
      if (!r.placement) {
        line += fmt::format(" {:>13}", "n/a");
        continue;
      }
      if (r.curve)
        line += fmt::format(" {:>13}", format_probability(r.curve->probability[ki], r.curve->failure_probability[ki],
                                                          r.curve->log10_probability[ki]));
      else
        line += fmt::format(" {:>13}", fmt::format("~{:.6g}", r.mc->probability[ki]));
      if (o.bounds) line += fmt::format(" {:>13}", format_probability(bounds[i][ki], 1.0 - bounds[i][ki]));
      if (r.mc)
        line += fmt::format(" {:>21}", fmt::format("[{:.4g}, {:.4g}]", r.mc->ci95_low[ki], r.mc->ci95_high[ki]));
    }
    line += '\n';
    out << line;
  }
  out << "\nschemes:\n";
  for (const auto& r : results) {
    if (!r.placement) {
      out << fmt::format("  {:<7} not applicable: {}\n", r.name, r.not_applicable);
      continue;
    }
    std::string what = r.curve ? r.curve->method
                               : fmt::format("Monte Carlo estimate (~), {} samples, seed {}", r.mc->samples, o.request.seed);
    if (r.curve && r.mc) what += fmt::format("; Monte Carlo check: {} samples, seed {}", r.mc->samples, o.request.seed);
    const int shards = r.placement->max_shards_per_machine();
    out << fmt::format("  {:<7} {}; each machine stores {} shard{}", r.name, what, shards, shards == 1 ? "" : "s");
    if (o.request.shard_bytes)
      out << fmt::format(", CPU memory {} per machine (2 buffers x {} shards x {})",
                         format_bytes(placement_cpu_memory_bytes(*r.placement, *o.request.shard_bytes)),
                         r.placement->max_shards_per_machine(), format_bytes(*o.request.shard_bytes));
    out << '\n';
  }
  if (o.request.window_probability) {
    out << fmt::format("\nwindow: each machine fails with probability {:.6g}, independently\n", *o.request.window_probability);
    out << fmt::format("  {:<7} {:>14} {:>14} {:>22} {:>22} {:>12}\n", "scheme", "P(recover)", "P(not)",
                       "E[machines to storage]", "E[checkpoints lost]", "rel. error");
    for (const auto& r : results) {
      if (!r.window) continue;
      const auto& w = *r.window;
      out << fmt::format("  {:<7} {:>14.8g} {:>14.6g} {:>22.6g} {:>22.6g} {:>12}\n", r.name, w.probability,
                         w.failure_probability, w.expected_storage_machines, w.expected_lost_checkpoints,
                         std::isnan(w.relative_error_bound) ? std::string("Monte Carlo")
                                                            : fmt::format("{:.1e}", w.relative_error_bound));
    }
    out << "  (E[machines to storage] = N x P(not): GEMINI restarts every machine from storage when any\n"
           "   checkpoint is lost; E[checkpoints lost] counts machines whose every holder failed)\n";
  }
}

}  // namespace

int command_placement(const CommandContext& ctx) {
  bool help = false;
  Options o = parse_options(ctx, help);
  if (help) return 0;
  o.request = checked_placement_request(std::move(o.request));
  const PlacementRequest& rq = o.request;
  if (o.domain_size) {
    // Only the placements: the whole-domain counts are their own model (placement_domains.hpp).
    DomainTableRequest domains{rq.machines, rq.replicas, *o.domain_size, rq.k_first, o.failures_given ? rq.k_last : -1,
                               o.json, {}};
    for (const auto& name : rq.schemes) domains.placements.emplace_back(name, place_scheme(name, rq).placement);
    print_domain_failures(ctx, domains);
    return 0;
  }
  const std::vector<PlacementSchemeResult> results = study_placements(rq);
  if (o.json)
    ctx.out << placement_report_json(rq, results, ctx.command_line).dump(2) << '\n';
  else
    print_table(ctx, o, results);
  return 0;
}

}  // namespace ckptsim::cli
