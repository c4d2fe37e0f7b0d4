// ckptsim-replay: replays a checkpoint plan (docs/plan-format.md) on real hardware, one MPI rank
// per simulated GPU, and writes what it measured (docs/timeline-format.md). The backend (mpi:
// CPU processes; nccl: one GPU per rank) sits behind backend.hpp; scheduling, recording,
// checksums and output are shared.
//   mpirun -np N ckptsim-replay PLAN --backend mpi|nccl --iterations K [--warmup W] -o measured.json
// Exit codes: 0 success, 1 integrity failure or I/O error, 2 bad input or usage.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include "backend.hpp"
#include "ckptsim/calibration/measured_timeline.hpp"
#include "ckptsim/calibration/plan_file.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/output/output_file.hpp"
#include "ckptsim/output/trace_events.hpp"
#include "microbench.hpp"
#include "rank_loop.hpp"
#include "run_guards.hpp"
#include "timeline.hpp"

namespace po = boost::program_options;
using namespace ckptsim;
using namespace ckptsim::replay;

namespace {

struct Args {
  std::string plan, backend = "mpi", output, trace, bandwidth = "plan", corruption;
  bool microbench = false;
  bool force = false;
  double memory_limit_mib = 4096;
  double time_limit_s = 600;
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
  int idle_sleep_us = -1;
  std::string issue_order;
  visible.add_options()("help,h", "print this help")
      ("microbench", "instead of a plan: short collective, point-to-point, GEMM and host-copy sweeps (input of ckptsim calibrate)")
      ("backend", po::value(&a.backend)->default_value("mpi"),
       nccl_backend_built() ? "mpi (CPU processes) | nccl (CUDA + NCCL, one GPU per rank)"
                            : "mpi (CPU processes) | nccl (not in this build: CUDA/NCCL were not found)")
      ("iterations", po::value(&a.engine.iterations)->default_value(3), "measured iterations")
      ("warmup", po::value(&a.engine.warmup)->default_value(1), "iterations run before measuring")
      ("output,o", po::value(&a.output), "measured timeline to write (required)")
      ("trace", po::value(&a.trace), "also write a Chrome trace of the measured iterations (the tracks of ckptsim iteration --trace)")
      ("bandwidth", po::value(&a.bandwidth)->default_value("plan"),
       "pace each rank's sends to this rate (e.g. 100MB/s); \"plan\": the plan's bandwidth per GPU (microbenchmarks: none); \"none\": unpaced")
      ("inject-corruption", po::value(&a.corruption)->implicit_value("0:0"),
       "flip one byte of chunk CHUNK from rank RANK in flight, in the first measured iteration (RANK:CHUNK)")
      ("memory-limit", po::value(&a.memory_limit_mib)->default_value(4096), "MiB of buffers a rank may allocate")
      ("time-limit", po::value(&a.time_limit_s)->default_value(600), "seconds the run may take at least (a lower bound is estimated first)")
      ("force", "run even when the estimated run time exceeds --time-limit")
      ("segment-bytes", po::value(&a.engine.segment_bytes), "segment size of paced sends (default: what the link carries in 1 ms, 4 KiB..4 MiB; nccl unpaced: 16 MiB)")
      ("matmul-n", po::value(&a.engine.matmul_n), "compute block size n (n x n matrices; default 64 for mpi, 2048 for nccl)")
      ("issue-order", po::value(&issue_order), "ready: every operation as soon as it may go (mpi default); plan: every NCCL call site "
       "in the plan's order on every rank, as NCCL requires for concurrent communicators (nccl default)")
      ("idle-sleep-us", po::value(&idle_sleep_us), "longest sleep of a rank with nothing to do, in microseconds (default 200 for mpi, 10 for nccl)");
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
  if (issue_order.empty()) issue_order = a.backend == "nccl" ? "plan" : "ready";
  if (issue_order != "plan" && issue_order != "ready") throw std::invalid_argument(fmt::format("--issue-order expects plan or ready, found \"{}\"", issue_order));
  if (a.backend == "nccl" && issue_order == "ready") {
    throw std::invalid_argument("--issue-order ready with --backend nccl: NCCL needs the same order of its call sites on every rank (use plan)");
  }
  a.engine.plan_order = issue_order == "plan";
  a.force = vm.count("force") > 0;
  if (!vm.count("matmul-n")) a.engine.matmul_n = a.backend == "nccl" ? 2048 : 64;
  if (vm.count("idle-sleep-us")) {
    if (idle_sleep_us < 0 || idle_sleep_us > 100000) throw std::invalid_argument(fmt::format("--idle-sleep-us expects 0..100000, found {}", idle_sleep_us));
    a.engine.idle_sleep_us = idle_sleep_us;
  } else {
    a.engine.idle_sleep_us = -1;  // the backend's default
  }
  // GPU links need large messages to reach their bandwidth, and each segment is a kernel launch.
  if (!vm.count("segment-bytes") && a.backend == "nccl") a.engine.segment_bytes = 16 << 20;
  if (vm.count("segment-bytes") && (!(a.engine.segment_bytes >= 4096) || !(a.engine.segment_bytes <= (1 << 30)))) {
    throw std::invalid_argument(fmt::format("--segment-bytes expects 4096..2^30, found {}", a.engine.segment_bytes));
  }
  if (a.microbench && !a.plan.empty()) throw std::invalid_argument(fmt::format("--microbench takes no PLAN (found \"{}\"): it measures without one", a.plan));
  if (a.microbench && a.bandwidth == "plan") a.bandwidth = "none";
  if (a.plan.empty() && !a.microbench) throw std::invalid_argument("missing PLAN (a plan from ckptsim schedule)");
  if (a.backend != "mpi" && a.backend != "nccl") throw std::invalid_argument(fmt::format("--backend expects mpi or nccl, found \"{}\"", a.backend));
  if (a.output.empty()) throw std::invalid_argument("missing -o FILE (where to write the measured timeline)");
  check_output_paths(a.plan, a.output, a.trace);
  if (a.engine.iterations < 1 || a.engine.iterations > 10000) throw std::invalid_argument(fmt::format("--iterations expects 1..10000, found {}", a.engine.iterations));
  if (a.engine.warmup < 0 || a.engine.warmup > 10000) throw std::invalid_argument(fmt::format("--warmup expects 0..10000, found {}", a.engine.warmup));
  if (a.engine.matmul_n < 8 || a.engine.matmul_n > 4096) throw std::invalid_argument(fmt::format("--matmul-n expects 8..4096, found {}", a.engine.matmul_n));
  if (!(a.memory_limit_mib > 0) || !std::isfinite(a.memory_limit_mib)) throw std::invalid_argument("--memory-limit expects a positive number of MiB");
  if (!(a.time_limit_s > 0) || !std::isfinite(a.time_limit_s)) throw std::invalid_argument("--time-limit expects a positive number of seconds");
  if (a.bandwidth != "plan" && a.bandwidth != "none") (void)parse_pacing_rate(a.bandwidth);
  if (vm.count("inject-corruption")) {
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

// Gathers every rank's serialized record on rank 0 (variable length).
std::vector<std::string> gather_text(const std::string& text, MPI_Comm world, int rank, int size) {
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
  std::vector<std::string> out;
  if (rank == 0) {
    for (int r = 0; r < size; ++r) out.push_back(all.substr(static_cast<std::size_t>(displs[static_cast<std::size_t>(r)]), static_cast<std::size_t>(lens[static_cast<std::size_t>(r)])));
  }
  return out;
}

int run_microbench_mode(const Args& a, int rank) {
  MicrobenchOptions o = microbench_defaults(a.backend);
  o.bandwidth = a.bandwidth == "none" ? 0.0 : parse_pacing_rate(a.bandwidth);
  o.matmul_n = a.engine.matmul_n;
  if (a.engine.segment_bytes > 0) o.segment_bytes = a.engine.segment_bytes;
  const std::unique_ptr<Backend> backend = make_backend(a.backend, {a.engine.matmul_n}, MPI_COMM_WORLD);
  const nlohmann::json doc = run_microbench(o, *backend, MPI_COMM_WORLD);
  if (rank == 0) {
    write_output_file(a.output, doc.dump(1) + "\n");
    std::cerr << fmt::format("ckptsim-replay: microbenchmarks ({} samples) written to {}\n", doc.at("samples").size(), a.output);
    if (doc.contains("pacing_warning")) std::cerr << "ckptsim-replay: warning: " << doc.at("pacing_warning").get<std::string>() << '\n';
  }
  return 0;
}

void check_run(const Args& a, const PlanFile& plan, const EngineOptions& engine, int size) {
  if (plan.ranks != size) {
    throw InputError(a.plan, "/cluster/ranks", fmt::format("{} ranks, as launched (mpirun -np {})", size, size),
                     fmt::format("{} ranks: launch with mpirun -np {}", plan.ranks, plan.ranks));
  }
  if (engine.corrupt_rank >= 0) {
    if (engine.corrupt_rank >= plan.ranks) {
      throw std::invalid_argument(fmt::format("--inject-corruption: rank {} is not in the plan (ranks 0..{})", engine.corrupt_rank, plan.ranks - 1));
    }
    const std::size_t chunks = plan.rank_plans[static_cast<std::size_t>(engine.corrupt_rank)].chunks.size();
    if (static_cast<std::size_t>(engine.corrupt_chunk) >= chunks) {
      throw std::invalid_argument(chunks == 0 ? fmt::format("--inject-corruption: rank {} sends no chunks", engine.corrupt_rank)
                                              : fmt::format("--inject-corruption: rank {} sends chunks 0..{}, found {}", engine.corrupt_rank, chunks - 1, engine.corrupt_chunk));
    }
  }
  const double estimate = replay_seconds_lower_bound(plan, engine, a.backend);
  if (estimate > a.time_limit_s && !a.force) {
    throw LimitError(fmt::format("{}: replaying {} iterations takes at least {:.3g} s (compute at most 1e12 FLOP/s per rank, every byte a rank "
                                 "sends at {:.4g} B/s, the chunks' planned waits), beyond the {:g} s limit (--time-limit; --force runs it anyway)",
                                 a.plan, engine.warmup + engine.iterations, estimate, engine.bandwidth, a.time_limit_s));
  }
}

// Rank 0: the timeline from every rank's record, checked by the reader validate uses, written;
// the pacing report and a warning where a rank fell short of the requested rate.
void write_results(const Args& a, const PlanFile& plan, const EngineOptions& engine, const std::vector<std::string>& texts) {
  MeasuredTimeline header = timeline_header(plan, a.backend, engine.bandwidth, a.command_line);
  auto ranks = nlohmann::json::array();
  for (const std::string& t : texts) {
    nlohmann::json j = nlohmann::json::parse(t);
    PacingReport p;
    p.requested_bytes_per_s = j.at("pacing").at("requested_bytes_per_s").get<double>();
    p.paced_bytes = j.at("pacing").at("paced_bytes").get<double>();
    p.ideal_s = j.at("pacing").at("ideal_s").get<double>();
    p.late_s = j.at("pacing").at("late_s").get<double>();
    header.pacing.push_back(p);
    j.erase("pacing");
    ranks.push_back(std::move(j));
  }
  const nlohmann::json doc = measured_timeline_json(header, ranks);
  const MeasuredTimeline timeline = parse_measured_timeline(doc, a.output);
  write_output_file(a.output, doc.dump(1) + "\n");
  if (!a.trace.empty()) write_output_file(a.trace, measured_trace(plan, timeline) + "\n");
  double sum = 0;
  for (const MeasuredIteration& it : timeline.ranks[0].iterations) sum += it.iteration_time_s;
  std::cerr << fmt::format("ckptsim-replay: {} plan on {} ranks, {} iterations (mean {:.4f} s on rank 0; plan predicts {:.4f} s), "
                           "checksums match, written to {}\n",
                           plan.scheduler, plan.ranks, engine.iterations, sum / engine.iterations, plan.predicted_iteration_with_checkpoint_s, a.output);
  for (std::size_t r = 0; r < header.pacing.size(); ++r) {
    const PacingReport& p = header.pacing[r];
    if (p.requested_bytes_per_s > 0 && p.achieved_fraction() < 0.95) {
      std::cerr << fmt::format("ckptsim-replay: warning: rank {} kept {:.1f}% of the requested {:.4g} B/s (its paced sends ran {:.3g} s "
                               "late over {:.3g} s at the rate): this machine cannot keep that rate for this plan\n",
                               r, 100 * p.achieved_fraction(), p.requested_bytes_per_s, p.late_s, p.ideal_s);
    }
  }
}

int run_replay(const Args& a, int rank, int size) {
  if (a.microbench) return run_microbench_mode(a, rank);
  const PlanFile plan = read_plan_file(a.plan, a.memory_limit_mib * 1024 * 1024);
  EngineOptions engine = a.engine;
  engine.bandwidth = a.bandwidth == "plan" ? plan.bandwidth_bytes_per_s : a.bandwidth == "none" ? 0.0 : parse_pacing_rate(a.bandwidth);
  check_run(a, plan, engine, size);
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
  nlohmann::json entry = measured_rank_json(measured_rank(plan, mine));
  entry["pacing"] = pacing_json(mine.pacing);
  const std::vector<std::string> texts = gather_text(entry.dump(), MPI_COMM_WORLD, rank, size);
  if (any_bad) return 1;
  if (rank == 0) write_results(a, plan, engine, texts);
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
