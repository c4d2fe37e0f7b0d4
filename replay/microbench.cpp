#include "microbench.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <chrono>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "paced_link.hpp"
#include "pacing_check.hpp"

namespace ckptsim::replay {

namespace {

using Progress = Backend::Progress;

// Polls until done; returns the measured span.
Span wait_done(Backend& backend, Backend::Handle h) {
  Span m;
  Progress p;
  while ((p = backend.poll(h, m)) != Progress::done) {
    if (p == Progress::waiting) std::this_thread::sleep_for(std::chrono::microseconds(20));
  }
  return m;
}


double max_over_ranks(double x, MPI_Comm comm) {
  double out = 0;
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

std::vector<double> gathered(double x, MPI_Comm comm, int n) {
  std::vector<double> all(static_cast<std::size_t>(n));
  MPI_Allgather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm);
  return all;
}

// One ring collective of `bytes` per rank stream, through the paced link as in a replay (the mpi
// backend runs a ring of paced segments; backend.hpp); time = the slowest rank's.
double collective_seconds(Backend& backend, OpKind kind, double bytes, PacedLink& link, MPI_Comm comm) {
  MPI_Barrier(comm);
  link.reset();
  const double t0 = backend.now();
  const Span m = wait_done(backend, backend.collective(kind, bytes, link, t0));
  return max_over_ranks(m.end_s - t0, comm);
}

// Rank 2i sends `bytes` to rank 2i+1 in segments released at their deadlines on the paced link;
// time until the receiver has them all.
double p2p_seconds(Backend& backend, double bytes, PacedLink& link, MPI_Comm comm, int rank, int n) {
  const auto len = static_cast<std::size_t>(bytes);
  MPI_Barrier(comm);
  link.reset();
  const double t0 = backend.now();
  double end = t0;
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner < n) {
    const std::vector<std::size_t> sizes = link.segments(len);
    std::vector<double> deadlines;
    if (rank % 2 == 0) deadlines = link.schedule(sizes, t0);
    std::vector<Backend::Handle> handles;
    std::size_t off = 0;
    for (std::size_t k = 0; k < sizes.size(); ++k) {
      if (rank % 2 == 0) {
        // Keep the posted segments moving while waiting (MPI progresses a large message only
        // inside MPI calls), then hand the next one over at its deadline.
        while (backend.now() < deadlines[k]) {
          Span ignored;
          bool waiting = true;
          for (std::size_t h = 0; h < handles.size(); ++h) waiting = backend.poll(handles[h], ignored) == Progress::waiting && waiting;
          if (waiting) std::this_thread::sleep_for(std::chrono::microseconds(20));
        }
        handles.push_back(backend.send(off, sizes[k], partner));
        link.hand_over(deadlines[k]);
        if (k + 1 == sizes.size()) link.done(deadlines[k], backend.now());
      } else {
        handles.push_back(backend.receive(0, 0, off, sizes[k]));
      }
      off += sizes[k];
    }
    for (Backend::Handle h : handles) end = std::max(end, wait_done(backend, h).end_s);
    if (!deadlines.empty()) end = std::max(end, deadlines.back());
  }
  return max_over_ranks(end - t0, comm);
}

BufferLayout microbench_layout(const MicrobenchOptions& o, int rank, int n) {
  BufferLayout layout;
  const double message = *std::max_element(o.message_bytes.begin(), o.message_bytes.end());
  const double copy = *std::max_element(o.copy_bytes.begin(), o.copy_bytes.end());
  layout.shard = static_cast<std::size_t>(std::max(message, copy));
  layout.collective_block = n > 1 ? static_cast<std::size_t>(message / (n - 1)) / 4 * 4 + 4 : 4;
  layout.sub_buffer = static_cast<std::size_t>(message);
  layout.sub_buffers = 1;
  if (rank % 2 == 1) layout.senders.push_back(rank - 1);  // p2p: rank 2i+1 receives from 2i
  return layout;
}

}  // namespace

MicrobenchOptions microbench_defaults(const std::string& backend) {
  MicrobenchOptions o;
  if (backend == "nccl") {
    o.message_bytes = {1 << 20, 8 << 20, 64 << 20, 256 << 20};
    o.copy_bytes = {16 << 20, 64 << 20, 256 << 20};
    o.gemm_blocks = {100, 200, 400};
    o.segment_bytes = 64 << 20;
  }
  return o;
}

nlohmann::json run_microbench(const MicrobenchOptions& o, Backend& backend, MPI_Comm world) {
  int rank = 0, n = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &n);
  backend.allocate(microbench_layout(o, rank, n));
  backend.begin_iteration(0);
  PacedLink link(o.bandwidth, o.segment_bytes);
  auto samples = nlohmann::json::array();
  for (int rep = 0; rep < o.repetitions && n > 1; ++rep) {
    for (double bytes : o.message_bytes) {
      samples.push_back({{"kind", "all-gather"}, {"bytes", bytes}, {"seconds", collective_seconds(backend, OpKind::all_gather, bytes, link, world)}});
      samples.push_back({{"kind", "reduce-scatter"}, {"bytes", bytes}, {"seconds", collective_seconds(backend, OpKind::reduce_scatter, bytes, link, world)}});
      samples.push_back({{"kind", "p2p"}, {"bytes", bytes}, {"seconds", p2p_seconds(backend, bytes, link, world, rank, n)}});
    }
  }
  // How close the ranks came to the requested rate: the worst rank's achieved fraction.
  double achieved = link.report().achieved_fraction();
  MPI_Allreduce(MPI_IN_PLACE, &achieved, 1, MPI_DOUBLE, MPI_MIN, world);
  const double m = o.matmul_n;
  for (int rep = 0; rep < o.repetitions; ++rep) {
    for (int blocks : o.gemm_blocks) {
      const double flops = 2.0 * m * m * m * blocks;
      MPI_Barrier(world);
      const double t0 = backend.now();
      const Span s = wait_done(backend, backend.compute(flops));
      for (double t : gathered(s.end_s - t0, world, n)) samples.push_back({{"kind", "gemm"}, {"flops", flops}, {"seconds", t}});
    }
    for (double bytes : o.copy_bytes) {
      MPI_Barrier(world);
      const double t0 = backend.now();
      const Span s = wait_done(backend, backend.local_copy(0, static_cast<std::size_t>(bytes)));
      for (double t : gathered(s.end_s - t0, world, n)) samples.push_back({{"kind", "host-copy"}, {"bytes", bytes}, {"seconds", t}});
    }
  }
  // Every rank's device, gathered on rank 0 (serialized JSON, fixed-size slots).
  const std::string mine = backend.device_info().dump().substr(0, 1023);
  std::vector<char> all(static_cast<std::size_t>(n) * 1024, 0);
  std::vector<char> slot(1024, 0);
  std::copy(mine.begin(), mine.end(), slot.begin());
  MPI_Gather(slot.data(), 1024, MPI_CHAR, all.data(), 1024, MPI_CHAR, 0, world);
  if (rank != 0) return nlohmann::json::object();
  auto devices = nlohmann::json::array();
  for (int r = 0; r < n; ++r) {
    const char* text = all.data() + static_cast<std::size_t>(r) * 1024;
    devices.push_back(nlohmann::json::parse(std::string(text, strnlen(text, 1024)), nullptr, false));
  }
  // The measurements' own view of the rate (pacing_check.hpp): the whole path, not only the
  // sender's hand-over.
  const std::map<std::string, double> measured = measured_rate_fractions(samples, o.bandwidth);
  std::vector<std::string> short_kinds;
  for (const auto& [kind, fraction] : measured)
    if (fraction < kKeptFraction) short_kinds.push_back(fmt::format("{} {:.1f}%", kind, 100 * fraction));
  nlohmann::json doc = {{"format", "ckptsim-microbench/1"}, {"ranks", n}, {"backend", backend.name()}, {"paced_bandwidth_bytes_per_s", o.bandwidth},
                        {"pacing", {{"segment_bytes", link.segment_bytes()}, {"achieved_fraction", achieved}}},
                        {"matmul_n", o.matmul_n}, {"devices", std::move(devices)}, {"samples", std::move(samples)}};
  if (!measured.empty()) doc["pacing"]["measured_fraction"] = measured;
  std::vector<std::string> reasons;
  if (o.bandwidth > 0 && achieved < kKeptFraction) reasons.push_back(fmt::format("the slowest rank kept {:.1f}% of it", 100 * achieved));
  if (!short_kinds.empty())
    reasons.push_back(fmt::format("the largest messages were measured at {} of it", fmt::join(short_kinds, ", ")));
  if (!reasons.empty()) {
    doc["pacing_warning"] = fmt::format("requested {:.4g} B/s, but {}: this machine cannot keep that rate, and the fitted bandwidth describes "
                                        "what it kept", o.bandwidth, fmt::join(reasons, "; "));
  }
  return doc;
}

}  // namespace ckptsim::replay
