#include "microbench.hpp"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "token_bucket.hpp"

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

void wait_until(Backend& backend, double t) {
  while (backend.now() < t) std::this_thread::sleep_for(std::chrono::microseconds(20));
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

// One paced ring collective of `bytes` per rank stream: the backend moves the data, the token
// bucket holds the end until a link of `rate` would have carried it (as a replay does).
double collective_seconds(Backend& backend, OpKind kind, double bytes, double rate, MPI_Comm comm) {
  MPI_Barrier(comm);
  const double t0 = backend.now();
  TokenBucket bucket(rate, 0, t0);
  const double release = bucket.take(bytes, t0);
  const Span m = wait_done(backend, backend.collective(kind, bytes));
  return max_over_ranks(std::max(m.end_s, release) - t0, comm);
}

// Rank 2i sends `bytes` to rank 2i+1 in paced segments; time until the receiver has them all.
double p2p_seconds(Backend& backend, const MicrobenchOptions& o, double bytes, MPI_Comm comm, int rank, int n) {
  const auto seg = static_cast<std::size_t>(o.segment_bytes);
  const auto len = static_cast<std::size_t>(bytes);
  MPI_Barrier(comm);
  const double t0 = backend.now();
  double end = t0;
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner < n) {
    TokenBucket bucket(o.bandwidth, 0, t0);
    std::vector<Backend::Handle> handles;
    for (std::size_t off = 0; off < len; off += seg) {
      const std::size_t k = std::min(seg, len - off);
      if (rank % 2 == 0) {
        wait_until(backend, bucket.take(static_cast<double>(k), backend.now()));
        handles.push_back(backend.send(off, k, partner));
      } else {
        handles.push_back(backend.receive(0, 0, off, k));
      }
    }
    for (Backend::Handle h : handles) end = std::max(end, wait_done(backend, h).end_s);
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
  auto samples = nlohmann::json::array();
  for (int rep = 0; rep < o.repetitions && n > 1; ++rep) {
    for (double bytes : o.message_bytes) {
      samples.push_back({{"kind", "all-gather"}, {"bytes", bytes}, {"seconds", collective_seconds(backend, OpKind::all_gather, bytes, o.bandwidth, world)}});
      samples.push_back({{"kind", "reduce-scatter"}, {"bytes", bytes}, {"seconds", collective_seconds(backend, OpKind::reduce_scatter, bytes, o.bandwidth, world)}});
      samples.push_back({{"kind", "p2p"}, {"bytes", bytes}, {"seconds", p2p_seconds(backend, o, bytes, world, rank, n)}});
    }
  }
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
  if (rank != 0) return nlohmann::json::object();
  return {{"format", "ckptsim-microbench/1"}, {"ranks", n}, {"backend", backend.name()}, {"paced_bandwidth_bytes_per_s", o.bandwidth},
          {"matmul_n", o.matmul_n}, {"samples", std::move(samples)}};
}

}  // namespace ckptsim::replay
