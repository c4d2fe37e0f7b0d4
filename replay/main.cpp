// ckptsim-replay: replays a checkpoint plan (docs/plan-format.md) on real hardware, one MPI rank
// per simulated GPU, and writes what it measured (docs/timeline-format.md). The backend (mpi:
// CPU processes; nccl: one GPU per rank) sits behind backend.hpp; scheduling, recording,
// checksums and output are shared.
//   mpirun -np N ckptsim-replay PLAN --backend mpi|nccl --iterations K [--warmup W] -o measured.json
// Exit codes: 0 success, 1 integrity failure or I/O error, 2 bad input or usage.
#include <mpi.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "ckptsim/output/output_file.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/units.hpp"
#include "microbench.hpp"
#include "backend.hpp"
#include "rank_loop.hpp"
#include "replay_plan.hpp"
#include "timeline.hpp"

namespace po = boost::program_options;
using namespace ckptsim;
using namespace ckptsim::replay;

namespace {

struct Args {
  std::string plan, backend = "mpi", output, trace, bandwidth = "plan", corruption;
  bool inject = false;
  bool microbench = false;
  bool help = false;
  double memory_limit_mib = 4096;
  EngineOptions engine;
  std::string command_line;
};

class Usage : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Args parse_args(int argc, char** argv) {
  Args a;
  po::options_description visible(
      "usage: mpirun -np RANKS ckptsim-replay PLAN [--backend mpi|nccl] [options] -o measured.json\n"
      "       mpirun -np RANKS ckptsim-replay --microbench [--backend mpi|nccl] [--bandwidth RATE] -o microbench.json\n\n"
      "Replays the iteration of a checkpoint plan (ckptsim schedule) on one rank per simulated GPU:\n"
      "collectives with the plan's sizes and order, compute of the plan's FLOPs, checkpoint chunks at\n"
      "their planned points into the receivers' sub-buffers and on into CPU memory; checks every\n"
      "replica by checksum; writes every operation's measured start and end (docs/timeline-format.md).\n\noptions");
  visible.add_options()("help,h", "print this help")
      ("microbench", "instead of a plan: short collective, point-to-point, GEMM and host-copy sweeps (input of ckptsim calibrate)")
      ("backend", po::value(&a.backend)->default_value("mpi"),
       nccl_backend_built() ? "mpi (CPU processes) | nccl (CUDA + NCCL, one GPU per rank)"
                            : "mpi (CPU processes) | nccl (not in this build: CUDA/NCCL were not found)")
      ("iterations", po::value(&a.engine.iterations)->default_value(3), "measured iterations")
      ("warmup", po::value(&a.engine.warmup)->default_value(1), "iterations run before measuring")
      ("output,o", po::value(&a.output), "measured timeline to write (required)")
      ("trace", po::value(&a.trace), "also write a Chrome trace of the measured iterations")
      ("bandwidth", po::value(&a.bandwidth)->default_value("plan"),
       "pace each rank's sends to this rate (e.g. 100MB/s); \"plan\": the plan's bandwidth per GPU (microbenchmarks: none); \"none\": unpaced")
      ("inject-corruption", po::value(&a.corruption)->implicit_value("0:0"),
       "flip one byte of chunk CHUNK from rank RANK in flight, in the first measured iteration (RANK:CHUNK)")
      ("memory-limit", po::value(&a.memory_limit_mib)->default_value(4096), "MiB of buffers a rank may allocate")
      ("segment-bytes", po::value(&a.engine.segment_bytes), "pacing granularity of chunk sends (default 64 KiB for mpi, 16 MiB for nccl)")
      ("matmul-n", po::value(&a.engine.matmul_n), "compute block size n (n x n matrices; default 64 for mpi, 2048 for nccl)")
      ("idle-sleep-us", po::value(&a.engine.idle_sleep_us), "microseconds a rank sleeps when it has nothing to do (default 200 for mpi, 10 for nccl)");
  po::options_description hidden;
  hidden.add_options()("plan", po::value(&a.plan));
  po::options_description all;
  all.add(visible).add(hidden);
  po::positional_options_description pos;
  pos.add("plan", 1);
  po::variables_map vm;
  po::store(po::command_line_parser(argc, argv).options(all).positional(pos).run(), vm);
  po::notify(vm);
  for (int i = 0; i < argc; ++i) {
    if (i > 0) a.command_line += ' ';
    a.command_line += argv[i];
  }
  if (vm.count("help")) {
    std::ostringstream text;
    text << visible;
    throw Usage(text.str());
  }
  a.microbench = vm.count("microbench") > 0;
  if (!vm.count("matmul-n")) a.engine.matmul_n = a.backend == "nccl" ? 2048 : 64;
  if (!vm.count("idle-sleep-us")) a.engine.idle_sleep_us = -1;  // the backend's default
  // GPU links need large messages to reach their bandwidth, and each segment is a kernel launch.
  if (!vm.count("segment-bytes") && a.backend == "nccl") a.engine.segment_bytes = 16 << 20;
  if (a.microbench && a.bandwidth == "plan") a.bandwidth = "none";
  if (a.plan.empty() && !a.microbench) throw std::invalid_argument("missing PLAN (a plan from ckptsim schedule)");
  if (a.backend != "mpi" && a.backend != "nccl") throw std::invalid_argument(fmt::format("--backend expects mpi or nccl, found \"{}\"", a.backend));
  if (a.output.empty()) throw std::invalid_argument("missing -o FILE (where to write the measured timeline)");
  if (a.engine.iterations < 1 || a.engine.iterations > 10000) throw std::invalid_argument(fmt::format("--iterations expects 1..10000, found {}", a.engine.iterations));
  if (a.engine.warmup < 0 || a.engine.warmup > 10000) throw std::invalid_argument(fmt::format("--warmup expects 0..10000, found {}", a.engine.warmup));
  if (a.engine.segment_bytes < 4096 || a.engine.segment_bytes > (1 << 30)) throw std::invalid_argument("--segment-bytes expects 4096..2^30");
  if (a.engine.idle_sleep_us < -1 || a.engine.idle_sleep_us > 100000) throw std::invalid_argument("--idle-sleep-us expects 0..100000");
  if (a.engine.matmul_n < 8 || a.engine.matmul_n > 4096) throw std::invalid_argument("--matmul-n expects 8..4096");
  if (vm.count("inject-corruption")) {
    a.inject = true;
    int r = -1, c = -1;
    char tail = 0;
    if (std::sscanf(a.corruption.c_str(), "%d:%d%c", &r, &c, &tail) != 2 || r < 0 || c < 0) {
      throw std::invalid_argument(fmt::format("--inject-corruption expects RANK:CHUNK, found \"{}\"", a.corruption));
    }
    a.engine.corrupt_rank = r;
    a.engine.corrupt_chunk = c;
    a.engine.corrupt_iteration = a.engine.warmup;
  }
  return a;
}

// Gathers every rank's record on rank 0 (serialized JSON, variable length).
nlohmann::json gather_records(const ReplayPlan& plan, const RankRecord& mine, MPI_Comm world, int rank, int size) {
  const std::string text = rank_record_json(plan, mine).dump();
  int len = static_cast<int>(text.size());
  std::vector<int> lens(static_cast<std::size_t>(size)), displs(static_cast<std::size_t>(size));
  MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, world);
  std::string all;
  if (rank == 0) {
    long total = 0;
    for (int r = 0; r < size; ++r) displs[static_cast<std::size_t>(r)] = static_cast<int>(total), total += lens[static_cast<std::size_t>(r)];
    all.resize(static_cast<std::size_t>(total));
  }
  MPI_Gatherv(text.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, world);
  auto ranks = nlohmann::json::array();
  if (rank == 0) {
    for (int r = 0; r < size; ++r) ranks.push_back(nlohmann::json::parse(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]), static_cast<std::size_t>(lens[static_cast<std::size_t>(r)]))));
  }
  return ranks;
}

int run_microbench_mode(const Args& a, int rank) {
  MicrobenchOptions o = microbench_defaults(a.backend);
  o.bandwidth = a.bandwidth == "none" ? 0.0 : parse_bandwidth(a.bandwidth);
  o.matmul_n = a.engine.matmul_n;
  const std::unique_ptr<Backend> backend = make_backend(a.backend, {a.engine.matmul_n}, MPI_COMM_WORLD);
  const nlohmann::json doc = run_microbench(o, *backend, MPI_COMM_WORLD);
  if (rank == 0) {
    write_output_file(a.output, doc.dump(1) + "\n");
    std::cerr << fmt::format("ckptsim-replay: microbenchmarks ({} samples) written to {}\n", doc.at("samples").size(), a.output);
  }
  return 0;
}

int run_replay(const Args& a, int rank, int size) {
  if (a.microbench) return run_microbench_mode(a, rank);
  ReplayPlan plan = load_replay_plan(a.plan, a.memory_limit_mib * 1024 * 1024);
  if (plan.ranks != size) {
    throw InputError(a.plan, "/cluster/ranks", fmt::format("{} ranks, as launched (mpirun -np {})", size, size),
                     fmt::format("{} ranks: launch with mpirun -np {}", plan.ranks, plan.ranks));
  }
  EngineOptions engine = a.engine;
  engine.bandwidth = a.bandwidth == "plan" ? plan.bandwidth_bytes_per_s : a.bandwidth == "none" ? 0.0 : parse_bandwidth(a.bandwidth);
  IntegrityFailure failure;
  RankRecord mine;
  {
    const std::unique_ptr<Backend> backend = make_backend(a.backend, {engine.matmul_n}, MPI_COMM_WORLD);
    mine = replay_rank(plan, engine, *backend, MPI_COMM_WORLD, failure);
  }
  if (failure.failed) {
    std::cerr << fmt::format("ckptsim-replay: integrity check failed: rank {} received {} from rank {} in iteration {} "
                             "and its checksum differs from the sender's pattern\n",
                             failure.receiver, failure.chunk < 0 ? "its local replica" : fmt::format("chunk {}", failure.chunk),
                             failure.sender, failure.iteration);
  }
  int bad = failure.failed ? 1 : 0, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  const nlohmann::json ranks = gather_records(plan, mine, MPI_COMM_WORLD, rank, size);
  if (any_bad) return 1;
  if (rank == 0) {
    write_output_file(a.output, timeline_json(plan, a.backend, engine.bandwidth, ranks, a.command_line).dump(1) + "\n");
    if (!a.trace.empty()) write_output_file(a.trace, chrome_trace_json(plan, ranks).dump() + "\n");
    double sum = 0;
    for (const auto& it : ranks[0].at("iterations")) sum += it.at("iteration_time_s").get<double>();
    std::cerr << fmt::format("ckptsim-replay: {} plan on {} ranks, {} iterations (mean {:.4f} s on rank 0; plan predicts {:.4f} s), "
                             "checksums match, written to {}\n",
                             plan.scheduler, size, a.engine.iterations, sum / a.engine.iterations,
                             plan.predicted_iteration_with_checkpoint_s, a.output);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code = 0;
  auto report = [&](const std::string& what) {
    if (rank == 0) std::cerr << "ckptsim-replay: " << what << '\n';
  };
  try {
    code = run_replay(parse_args(argc, argv), rank, size);
  } catch (const Usage& e) {
    if (rank == 0) std::cout << e.what();
  } catch (const InputError& e) {
    report(e.what()), code = 2;
  } catch (const std::invalid_argument& e) {
    report(e.what()), code = 2;
  } catch (const po::error& e) {
    report(e.what()), code = 2;
  } catch (const LimitError& e) {
    report(e.what()), code = 2;
  } catch (const ModelError& e) {
    report(e.what()), code = 2;
  } catch (const IoError& e) {
    report(e.what()), code = 1;
  } catch (const DeviceError& e) {
    // One rank's GPU failed: the others may wait for it in a collective, so end them all.
    std::cerr << fmt::format("ckptsim-replay: rank {}: {}\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  } catch (const std::exception& e) {
    report(std::string("internal error: ") + e.what()), code = 1;
  }
  MPI_Finalize();
  return code;
}
