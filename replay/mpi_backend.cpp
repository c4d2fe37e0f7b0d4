// The mpi backend (backend.hpp): OpenMPI moves the data (shared memory or TCP), "device" and CPU
// buffers are both host memory, the GPU-to-CPU copy is memcpy and compute is Eigen
// single-precision matrix multiplications. Nothing runs in the background: poll() does the
// work, one n x n x n block of a compute op or one 1 MiB step of a local copy per call, so the
// rank loop keeps polling MPI while computing.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <vector>

#include <Eigen/Dense>

#include "backend.hpp"
#include "pattern.hpp"

namespace ckptsim::replay {

namespace {

constexpr int kDataTag = 1;
constexpr std::size_t kLocalCopyStep = std::size_t{1} << 20;  // memcpy granularity of the local replica

using Clock = std::chrono::steady_clock;

enum class MpiOpKind { compute, request, local_copy, done };

struct MpiOp {
  MpiOpKind kind = MpiOpKind::done;
  MPI_Request request = MPI_REQUEST_NULL;
  double flops_left = 0;
  std::size_t offset = 0, left = 0;
  Span span;
};

class MpiBackend final : public Backend {
 public:
  MpiBackend(const BackendOptions& options, MPI_Comm world) : opt_(options) {
    MPI_Comm_rank(world, &rank_);
    MPI_Comm_size(world, &n_);
    MPI_Comm_dup(world, &ag_comm_);
    MPI_Comm_dup(world, &rs_comm_);
    MPI_Comm_dup(world, &ckpt_comm_);
    const int m = std::max(1, opt_.matmul_n);
    a_ = Eigen::MatrixXf::Constant(m, m, 0.5f);
    b_ = Eigen::MatrixXf::Constant(m, m, 0.25f);
    c_ = Eigen::MatrixXf::Zero(m, m);
  }
  ~MpiBackend() override {
    MPI_Comm_free(&ag_comm_);
    MPI_Comm_free(&rs_comm_);
    MPI_Comm_free(&ckpt_comm_);
  }
  MpiBackend(const MpiBackend&) = delete;
  MpiBackend& operator=(const MpiBackend&) = delete;

  [[nodiscard]] const char* name() const override { return "mpi"; }

  void allocate(const BufferLayout& layout) override {
    layout_ = layout;
    shard_.assign(layout.shard, 0);
    local_cpu_.assign(layout.shard, 0);
    coll_send_.assign(layout.collective_block * static_cast<std::size_t>(n_), 0);
    coll_recv_.assign(layout.collective_block * static_cast<std::size_t>(n_), 0);
    replicas_.assign(layout.senders.size(), std::vector<unsigned char>(layout.shard));
    sub_buffers_.assign(layout.senders.size() * static_cast<std::size_t>(layout.sub_buffers),
                        std::vector<unsigned char>(layout.sub_buffer));
  }

  void begin_iteration(int iteration) override {
    fill_pattern(shard_.data(), 0, shard_.size(), rank_, iteration);
    ops_.clear();
    MPI_Barrier(ckpt_comm_);
    t0_ = Clock::now();
  }

  [[nodiscard]] double now() override { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

  Handle compute(double flops) override {
    MpiOp& op = add(MpiOpKind::compute);
    op.flops_left = flops;
    return ops_.size() - 1;
  }

  Handle collective(OpKind kind, double bytes) override {
    MpiOp& op = add(MpiOpKind::request);
    // Ring collectives: each rank's stream moves (n-1)/n of the gathered size, so a rank's block
    // is bytes / (n-1), in whole floats for the reduction.
    const int count = n_ > 1 ? static_cast<int>(bytes / (n_ - 1) / 4) : 0;
    auto* send = reinterpret_cast<float*>(coll_send_.data());
    auto* recv = reinterpret_cast<float*>(coll_recv_.data());
    if (kind == OpKind::all_gather) {
      MPI_Iallgather(send, count, MPI_FLOAT, recv, count, MPI_FLOAT, ag_comm_, &op.request);
    } else if (kind == OpKind::all_reduce) {
      // A ring all-reduce moves 2(n-1)/n of its buffer: the buffer is n/2 blocks, in place in the
      // receive buffer (n blocks long).
      MPI_Iallreduce(MPI_IN_PLACE, recv, std::max(1, count * n_ / 2), MPI_FLOAT, MPI_SUM, rs_comm_, &op.request);
    } else {
      MPI_Ireduce_scatter_block(send, recv, count, MPI_FLOAT, MPI_SUM, rs_comm_, &op.request);
    }
    return ops_.size() - 1;
  }

  Handle send(std::size_t offset, std::size_t n, int peer) override {
    MpiOp& op = add(MpiOpKind::request);
    MPI_Isend(shard_.data() + offset, static_cast<int>(n), MPI_BYTE, peer, kDataTag, ckpt_comm_, &op.request);
    return ops_.size() - 1;
  }

  Handle receive(int slot, int sub_buffer, std::size_t offset, std::size_t n) override {
    MpiOp& op = add(MpiOpKind::request);
    MPI_Irecv(sub(slot, sub_buffer) + offset, static_cast<int>(n), MPI_BYTE, layout_.senders[static_cast<std::size_t>(slot)],
              kDataTag, ckpt_comm_, &op.request);
    return ops_.size() - 1;
  }

  Handle copy_to_host(int slot, int sub_buffer, std::size_t n, std::size_t replica_offset) override {
    MpiOp& op = add(MpiOpKind::done);
    std::memcpy(replicas_[static_cast<std::size_t>(slot)].data() + replica_offset, sub(slot, sub_buffer), n);
    op.span.end_s = now();
    return ops_.size() - 1;
  }

  Handle local_copy(std::size_t offset, std::size_t n) override {
    MpiOp& op = add(MpiOpKind::local_copy);
    op.offset = offset;
    op.left = n;
    return ops_.size() - 1;
  }

  Progress poll(Handle h, Span& measured) override {
    MpiOp& op = ops_[h];
    Progress p = Progress::working;
    switch (op.kind) {
      case MpiOpKind::compute: step_compute(op); break;
      case MpiOpKind::local_copy: step_local_copy(op); break;
      case MpiOpKind::request: {
        int flag = 0;
        MPI_Test(&op.request, &flag, MPI_STATUS_IGNORE);
        if (flag) finish(op);
        else p = Progress::waiting;
        break;
      }
      case MpiOpKind::done: break;
    }
    if (op.kind != MpiOpKind::done) return p;
    measured = op.span;
    return Progress::done;
  }

  // Long enough that an idle rank's wake-ups do not preempt the computing ones (the ranks share
  // a few cores on a small machine) every few microseconds.
  [[nodiscard]] int idle_sleep_us() const override { return 200; }

  void corrupt(int slot, int sub_buffer, std::size_t byte) override { sub(slot, sub_buffer)[byte] ^= 0x01; }
  [[nodiscard]] const unsigned char* replica(int slot) const override { return replicas_[static_cast<std::size_t>(slot)].data(); }
  [[nodiscard]] const unsigned char* local_replica() const override { return local_cpu_.data(); }

 private:
  MpiOp& add(MpiOpKind kind) {
    ops_.emplace_back();
    ops_.back().kind = kind;
    ops_.back().span.start_s = now();
    return ops_.back();
  }
  void finish(MpiOp& op) {
    op.span.end_s = now();
    op.kind = MpiOpKind::done;
  }
  unsigned char* sub(int slot, int sub_buffer) {
    return sub_buffers_[static_cast<std::size_t>(slot * layout_.sub_buffers + sub_buffer)].data();
  }

  // At most one block per call: n x n times n x n, or the remainder as n x k times k x n.
  void step_compute(MpiOp& op) {
    const double m = static_cast<double>(a_.rows());
    const double block = 2 * m * m * m;
    if (op.flops_left >= block) {
      c_.noalias() += a_ * b_;
      op.flops_left -= block;
    } else if (op.flops_left > 0) {
      const auto k = static_cast<Eigen::Index>(std::llround(op.flops_left / (2 * m * m)));
      if (k > 0) c_.noalias() += a_.leftCols(k) * b_.topRows(k);
      op.flops_left = 0;
    }
    if (op.flops_left <= 0) finish(op);
  }

  void step_local_copy(MpiOp& op) {
    const std::size_t n = std::min(kLocalCopyStep, op.left);
    std::memcpy(local_cpu_.data() + op.offset, shard_.data() + op.offset, n);
    op.offset += n;
    op.left -= n;
    if (op.left == 0) finish(op);
  }

  BackendOptions opt_;
  int rank_ = 0, n_ = 1;
  MPI_Comm ag_comm_{}, rs_comm_{}, ckpt_comm_{};
  BufferLayout layout_;
  std::vector<unsigned char> shard_, local_cpu_, coll_send_, coll_recv_;
  std::vector<std::vector<unsigned char>> replicas_, sub_buffers_;
  Eigen::MatrixXf a_, b_, c_;
  std::vector<MpiOp> ops_;
  Clock::time_point t0_;
};

}  // namespace

std::unique_ptr<Backend> make_mpi_backend(const BackendOptions& options, MPI_Comm world) {
  return std::make_unique<MpiBackend>(options, world);
}

}  // namespace ckptsim::replay
