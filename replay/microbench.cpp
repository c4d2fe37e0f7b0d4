#include "microbench.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include <Eigen/Dense>

#include "token_bucket.hpp"

namespace ckptsim::replay {

namespace {

double wall() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

void wait_until(double t) {
  while (wall() < t) std::this_thread::sleep_for(std::chrono::microseconds(20));
}

double max_over_ranks(double x, MPI_Comm comm) {
  double out = 0;
  MPI_Allreduce(&x, &out, 1, MPI_DOUBLE, MPI_MAX, comm);
  return out;
}

// One paced ring collective of `bytes` per rank stream: MPI moves the data, the token bucket
// holds the end until a link of `rate` would have carried it (as the replay engine does).
double collective_seconds(bool gather, double bytes, double rate, MPI_Comm comm, int n, std::vector<float>& a, std::vector<float>& b) {
  const int count = static_cast<int>(bytes / (n - 1) / 4);
  MPI_Barrier(comm);
  const double t0 = wall();
  TokenBucket bucket(rate, 0, t0);
  const double release = bucket.take(bytes, t0);
  if (gather) {
    MPI_Allgather(a.data(), count, MPI_FLOAT, b.data(), count, MPI_FLOAT, comm);
  } else {
    MPI_Reduce_scatter_block(a.data(), b.data(), count, MPI_FLOAT, MPI_SUM, comm);
  }
  wait_until(release);
  return max_over_ranks(wall() - t0, comm);
}

double p2p_seconds(double bytes, double rate, MPI_Comm comm, int rank, int n, std::vector<float>& buf) {
  const std::size_t seg = 64 << 10;
  const auto len = static_cast<std::size_t>(bytes);
  auto* data = reinterpret_cast<unsigned char*>(buf.data());
  MPI_Barrier(comm);
  const double t0 = wall();
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  if (partner < n) {
    TokenBucket bucket(rate, 0, t0);
    for (std::size_t off = 0; off < len; off += seg) {
      const int k = static_cast<int>(std::min(seg, len - off));
      if (rank % 2 == 0) {
        wait_until(bucket.take(k, wall()));
        MPI_Send(data + off, k, MPI_BYTE, partner, 7, comm);
      } else {
        MPI_Recv(data + off, k, MPI_BYTE, partner, 7, comm, MPI_STATUS_IGNORE);
      }
    }
  }
  return max_over_ranks(wall() - t0, comm);
}

std::vector<double> gathered(double x, MPI_Comm comm, int n) {
  std::vector<double> all(static_cast<std::size_t>(n));
  MPI_Allgather(&x, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm);
  return all;
}

}  // namespace

nlohmann::json run_microbench(const MicrobenchOptions& o, MPI_Comm world) {
  int rank = 0, n = 1;
  MPI_Comm_rank(world, &rank);
  MPI_Comm_size(world, &n);
  auto samples = nlohmann::json::array();
  const double sizes[] = {64 << 10, 256 << 10, 1 << 20, 4 << 20};
  std::vector<float> a((8u << 20) / 4 * static_cast<std::size_t>(n) / std::max(1, n - 1) + 16);
  std::vector<float> b(a.size());
  for (int rep = 0; rep < o.repetitions; ++rep) {
    for (double bytes : sizes) {
      if (n > 1) {
        samples.push_back({{"kind", "all-gather"}, {"bytes", bytes}, {"seconds", collective_seconds(true, bytes, o.bandwidth, world, n, a, b)}});
        samples.push_back({{"kind", "reduce-scatter"}, {"bytes", bytes}, {"seconds", collective_seconds(false, bytes, o.bandwidth, world, n, a, b)}});
        samples.push_back({{"kind", "p2p"}, {"bytes", bytes}, {"seconds", p2p_seconds(bytes, o.bandwidth, world, rank, n, a)}});
      }
    }
  }
  const int m = o.matmul_n;
  Eigen::MatrixXf x = Eigen::MatrixXf::Constant(m, m, 0.5f), y = Eigen::MatrixXf::Constant(m, m, 0.25f), z = Eigen::MatrixXf::Zero(m, m);
  std::vector<unsigned char> src(16 << 20, 1), dst(16 << 20, 0);
  for (int rep = 0; rep < o.repetitions; ++rep) {
    for (int blocks : {1000, 2000, 4000}) {
      MPI_Barrier(world);
      const double t0 = wall();
      for (int k = 0; k < blocks; ++k) z.noalias() += x * y;
      const double flops = 2.0 * m * m * m * blocks;
      for (double t : gathered(wall() - t0, world, n)) samples.push_back({{"kind", "gemm"}, {"flops", flops}, {"seconds", t}});
    }
    for (std::size_t bytes : {std::size_t{1} << 20, std::size_t{4} << 20, std::size_t{16} << 20}) {
      MPI_Barrier(world);
      const double t0 = wall();
      std::memcpy(dst.data(), src.data(), bytes);
      for (double t : gathered(wall() - t0, world, n)) samples.push_back({{"kind", "host-copy"}, {"bytes", static_cast<double>(bytes)}, {"seconds", t}});
    }
  }
  if (rank != 0) return nlohmann::json::object();
  return {{"format", "ckptsim-microbench/1"}, {"ranks", n}, {"paced_bandwidth_bytes_per_s", o.bandwidth},
          {"matmul_n", m}, {"checksum_sink", z(0, 0) + dst[7]}, {"samples", std::move(samples)}};
}

}  // namespace ckptsim::replay
