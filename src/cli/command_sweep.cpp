// ckptsim sweep and ckptsim merge: parameter studies (docs/sweep-format.md).
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <thread>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/cli/commands.hpp"
#include "ckptsim/cli/options.hpp"
#include "ckptsim/sweep/executor.hpp"
#include "ckptsim/sweep/spec.hpp"
#include "ckptsim/sweep/sweep.hpp"

namespace ckptsim::cli {
namespace {

namespace po = boost::program_options;

/// "I/N" with 0 <= I < N (sweep::parse_shard).
std::pair<int, int> shard_option(const std::string& text) {
  if (const auto shard = sweep::parse_shard(text)) return *shard;
  throw UsageError(fmt::format("--shard expects I/N with 0 <= I < N (e.g. 0/8), found \"{}\"", text));
}

/// Test hook CKPTSIM_SWEEP_KILL_AFTER=K: the process kills itself (SIGKILL, as `kill -9`) right
/// after its K-th journal append, so crash-and-resume tests need no timing.
std::function<void(std::int64_t)> kill_hook() {
  const char* value = std::getenv("CKPTSIM_SWEEP_KILL_AFTER");
  if (value == nullptr) return {};
  const long long k = std::atoll(value);
  return [k](std::int64_t appended) {
    if (appended >= k) std::raise(SIGKILL);
  };
}

/// True when an MPI launcher started this process (OpenMPI's mpirun, or a PMI or PMIx one such
/// as Slurm's srun): then `sweep` spreads its points over the ranks.
bool launched_by_mpi_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr ||
         std::getenv("PMIX_RANK") != nullptr;
}

}  // namespace

int command_sweep(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim sweep SPEC -o DIR [--jobs J] [--shard I/N] [--resume] [--quiet]\n\n"
      "Runs every point of a sweep spec (docs/sweep-format.md) and writes DIR/points.csv,\n"
      "DIR/points.jsonl and DIR/manifest.json. Finished points go to DIR/journal.jsonl at once;\n"
      "--resume finishes an interrupted sweep. Under mpirun the ranks share the points.\n\noptions");
  std::string out_dir;
  std::string shard = "0/1";
  int jobs = 1;
  visible.add_options()("help,h", "print this help")
      ("output,o", po::value<std::string>(&out_dir), "output folder (created if missing)")
      ("jobs,j", po::value<int>(&jobs)->default_value(1), "worker threads (0 = all cores); outputs are identical for every value")
      ("shard", po::value<std::string>(&shard), "run only points with index % N == I (Slurm job arrays); join with ckptsim merge")
      ("resume", "finish the sweep whose journal is in the output folder")
      ("quiet,q", "no progress on stderr");
  std::string spec_path;
  const auto parsed = parse_command_options(ctx, visible, "spec", &spec_path);
  if (!parsed) return 0;
  const auto& vm = *parsed;
  if (spec_path.empty()) throw UsageError("missing SPEC (a sweep spec JSON file)");
  if (out_dir.empty()) throw UsageError("missing -o DIR (the output folder)");
  if (jobs < 0) throw UsageError(fmt::format("--jobs expects 0 (all cores) or more, found {}", jobs));
  if (jobs == 0) jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

  const sweep::SweepSpec spec = sweep::load_sweep_spec_file(spec_path);
  sweep::SweepOptions options;
  options.out_dir = out_dir;
  options.jobs = jobs;
  std::tie(options.shard_index, options.shard_count) = shard_option(shard);
  options.resume = vm.count("resume") > 0;
  options.command_line = ctx.command_line;
  if (!vm.count("quiet")) {
    options.progress = &ctx.err;
    options.progress_terminal = &ctx.err == &std::cerr && isatty(STDERR_FILENO) != 0;
  }
  options.after_append = kill_hook();
  std::optional<sweep::MpiSession> mpi;
  if (sweep::mpi_built() && launched_by_mpi_launcher()) {
    // A worker waiting for its next chunk yields its core instead of spinning (OpenMPI polls by
    // default), which cost 15% more CPU on a shared 2-core machine; an explicit setting wins.
    setenv("OMPI_MCA_mpi_yield_when_idle", "1", 0);
    mpi.emplace();
    options.mpi = &*mpi;
  }
  sweep::SweepOutcome outcome;
  try {
    outcome = sweep::run_sweep(spec, options);
  } catch (const sweep::RankFailure& e) {
    ctx.err << "error: rank " << e.rank() << ": " << e.what() << '\n';
    ctx.err.flush();
    mpi->abort(1);
  }
  if (outcome.wrote_outputs && !vm.count("quiet"))
    ctx.err << fmt::format("sweep: {} points ({} from the journal, {} computed{}, {} invalid) on {} in {}\n",
                           outcome.points, outcome.resumed, outcome.computed,
                           outcome.dropped_lines > 0 ? fmt::format(", {} torn or corrupt journal lines dropped", outcome.dropped_lines) : "",
                           outcome.invalid,
                           outcome.ranks > 1 ? fmt::format("{} MPI ranks", outcome.ranks) : fmt::format("{} thread(s)", jobs),
                           out_dir);
  return 0;
}

int command_merge(const CommandContext& ctx) {
  po::options_description visible(
      "usage: ckptsim merge DIR... -o DIR\n\n"
      "Joins the output folders of the shards of one sweep (ckptsim sweep --shard I/N) into the\n"
      "outputs one unsharded sweep writes (the same points.csv, byte for byte).\n\noptions");
  std::string out_dir;
  visible.add_options()("help,h", "print this help")("output,o", po::value<std::string>(&out_dir), "output folder");
  const auto parsed = parse_files_options(ctx, ctx.args, visible);
  if (!parsed) return 0;
  const std::vector<std::string>& dirs = parsed->files;
  if (dirs.empty()) throw UsageError("missing DIR... (the shard output folders)");
  if (out_dir.empty()) throw UsageError("missing -o DIR (the merged output folder)");
  const auto points = sweep::merge_sweeps(dirs, out_dir, ctx.command_line);
  ctx.err << fmt::format("merge: {} points from {} folder(s) in {}\n", points, dirs.size(), out_dir);
  return 0;
}

}  // namespace ckptsim::cli
