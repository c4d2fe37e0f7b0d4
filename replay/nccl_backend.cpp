// The nccl backend (backend.hpp): one GPU per rank, NCCL for the collectives and the checkpoint
// chunks, cuBLAS for compute, pinned host memory (cudaMallocHost) for the CPU replicas, CUDA
// events for timing. Plain C++ against the CUDA runtime API (no kernels of its own: the shard's
// pattern is written on the host and copied to the GPU), compiled by the host compiler.
//
// Streams: compute (cuBLAS), all-gather, reduce-scatter (one NCCL communicator each, used in op
// id order on every rank, as the mpi backend's communicators), checkpoint send, one receive
// stream per sender, and one copy stream for the GPU-to-CPU copies. Point-to-point traffic uses
// one communicator per sending rank, so each communicator carries one sender's chunks in its
// send order and the receivers post their receives in that order: no cross-sender ordering can
// deadlock.
//
// Timing: every operation records a CUDA event before and after it on its stream; its span is
// cudaEventElapsedTime from an event recorded at the iteration's time zero (after an MPI barrier
// and a device synchronisation), so spans are GPU times on the same zero as the host clock.
//
// Compute: cublasGemmEx on BF16 inputs with FP32 accumulation (the tensor-core path the model's
// peak FLOP/s refers to), n x n x n blocks of 2 n^3 FLOPs plus an n x k x n remainder.
//
// Built as its own shared module (libckptsim-replay-nccl.so), which ckptsim-replay loads only
// when a run asks for --backend nccl (backend.cpp): the CUDA libraries it links (cuBLAS alone is
// several hundred MB) are then neither loaded by every mpi-backend rank nor needed on machines
// without them.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#include <nccl.h>

#include "backend.hpp"
#include "ckptsim/core/error.hpp"
#include "pattern.hpp"

namespace ckptsim::replay {

namespace {

using Clock = std::chrono::steady_clock;
constexpr long long kMaxLaunchesPerOp = 1000000;  // GEMM launches of one compute op (~10 s of launch overhead)

// A CUDA/NCCL/cuBLAS failure after the device was found is a fault of the machine, not of the
// input: DeviceError (exit 1), naming the call and the library's reason.
[[noreturn]] void fail(const char* what, const std::string& why) {
  throw DeviceError(fmt::format("{} failed: {}", what, why));
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) fail(what, cudaGetErrorString(e));
}
void check(ncclResult_t r, const char* what) {
  if (r != ncclSuccess) fail(what, ncclGetErrorString(r));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) fail(what, fmt::format("cuBLAS status {}", static_cast<int>(s)));
}

// The GPU of this rank: local rank (ranks on this machine) modulo nothing: one GPU each.
int select_device(MPI_Comm world) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    throw ModelError("--backend", fmt::format("the nccl backend needs an NVIDIA GPU per rank, and this machine has none "
                                              "usable (cudaGetDeviceCount: {}); use --backend mpi",
                                              e != cudaSuccess ? cudaGetErrorString(e) : "0 devices"));
  }
  MPI_Comm local;
  MPI_Comm_split_type(world, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &local);
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_size(local, &local_size);
  MPI_Comm_free(&local);
  if (local_size > count) {
    throw ModelError("--backend", fmt::format("{} ranks on this machine but {} GPU(s): NCCL needs one GPU per rank "
                                              "(launch at most {} ranks per machine, or use --backend mpi)",
                                              local_size, count, count));
  }
  return local_rank;
}

ncclComm_t new_comm(MPI_Comm world, int rank, int n) {
  ncclUniqueId id;
  if (rank == 0) check(ncclGetUniqueId(&id), "ncclGetUniqueId");
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, world);
  ncclComm_t comm = nullptr;
  check(ncclCommInitRank(&comm, n, id, rank), "ncclCommInitRank");
  return comm;
}

struct GpuOp {
  cudaEvent_t start = nullptr, end = nullptr;
};

class NcclBackend final : public Backend {
 public:
  NcclBackend(const BackendOptions& options, MPI_Comm world) : opt_(options), world_(world) {
    MPI_Comm_rank(world, &rank_);
    MPI_Comm_size(world, &n_);
    check(cudaSetDevice(select_device(world)), "cudaSetDevice");
    for (cudaStream_t* s : {&compute_, &ag_, &rs_, &send_, &copy_}) check(cudaStreamCreateWithFlags(s, cudaStreamNonBlocking), "cudaStreamCreate");
    ag_comm_ = new_comm(world, rank_, n_);
    rs_comm_ = new_comm(world, rank_, n_);
    for (int s = 0; s < n_; ++s) p2p_comms_.push_back(new_comm(world, rank_, n_));
    check(cublasCreate(&cublas_), "cublasCreate");
    check(cublasSetStream(cublas_, compute_), "cublasSetStream");
    const auto m = static_cast<std::size_t>(std::max(8, opt_.matmul_n));
    check(cudaMalloc(&a_, m * m * sizeof(__nv_bfloat16)), "cudaMalloc");
    check(cudaMalloc(&b_, m * m * sizeof(__nv_bfloat16)), "cudaMalloc");
    check(cudaMalloc(&c_, m * m * sizeof(float)), "cudaMalloc");
    // Non-zero inputs (0.5 and 0.25, as the mpi backend's): a GPU may skip work or draw less
    // power on zeros, and the GEMM rate calibrated on them would not be a training GEMM's.
    // BF16 is the upper half of an IEEE float (0.5f = 0x3f000000 -> 0x3f00).
    std::vector<std::uint16_t> half(m * m, 0x3f00), quarter(m * m, 0x3e80);
    check(cudaMemcpy(a_, half.data(), m * m * sizeof(std::uint16_t), cudaMemcpyHostToDevice), "cudaMemcpy GEMM input");
    check(cudaMemcpy(b_, quarter.data(), m * m * sizeof(std::uint16_t), cudaMemcpyHostToDevice), "cudaMemcpy GEMM input");
    check(cudaMemset(c_, 0, m * m * sizeof(float)), "cudaMemset");
    check(cudaEventCreate(&zero_), "cudaEventCreate");
  }
  ~NcclBackend() override {
    cudaDeviceSynchronize();
    for (GpuOp& e : events_) cudaEventDestroy(e.start), cudaEventDestroy(e.end);
    cudaEventDestroy(zero_);
    for (ncclComm_t c : p2p_comms_) ncclCommDestroy(c);
    ncclCommDestroy(ag_comm_);
    ncclCommDestroy(rs_comm_);
    cublasDestroy(cublas_);
    for (void* p : {a_, b_, c_, shard_, coll_send_, coll_recv_, subs_}) cudaFree(p);
    for (unsigned char* p : {staging_, local_cpu_, replicas_}) cudaFreeHost(p);
    for (cudaStream_t s : recv_) cudaStreamDestroy(s);
    for (cudaStream_t s : {compute_, ag_, rs_, send_, copy_}) cudaStreamDestroy(s);
  }
  NcclBackend(const NcclBackend&) = delete;
  NcclBackend& operator=(const NcclBackend&) = delete;

  [[nodiscard]] const char* name() const override { return "nccl"; }

  void allocate(const BufferLayout& layout) override {
    layout_ = layout;
    const std::size_t shard = std::max<std::size_t>(layout.shard, 1), slots = layout.senders.size();
    check(cudaMalloc(&shard_, shard), "cudaMalloc shard");
    check(cudaMalloc(&coll_send_, std::max<std::size_t>(1, layout.collective_block * static_cast<std::size_t>(n_))), "cudaMalloc");
    check(cudaMalloc(&coll_recv_, std::max<std::size_t>(1, layout.collective_block * static_cast<std::size_t>(n_))), "cudaMalloc");
    check(cudaMemset(coll_send_, 0, layout.collective_block * static_cast<std::size_t>(n_)), "cudaMemset");
    check(cudaMalloc(&subs_, std::max<std::size_t>(1, slots * static_cast<std::size_t>(layout.sub_buffers) * layout.sub_buffer)), "cudaMalloc sub-buffers");
    check(cudaMallocHost(&staging_, shard), "cudaMallocHost");
    check(cudaMallocHost(&local_cpu_, shard), "cudaMallocHost");
    check(cudaMallocHost(&replicas_, std::max<std::size_t>(1, slots * layout.shard)), "cudaMallocHost replicas");
    recv_.resize(slots);
    for (cudaStream_t& s : recv_) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
  }

  void begin_iteration(int iteration) override {
    fill_pattern(staging_, 0, layout_.shard, rank_, iteration);
    check(cudaMemcpy(shard_, staging_, layout_.shard, cudaMemcpyHostToDevice), "cudaMemcpy shard");
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    used_ = 0;
    hold_.clear();
    MPI_Barrier(world_);
    t0_ = Clock::now();
    check(cudaEventRecord(zero_, compute_), "cudaEventRecord");
    check(cudaEventSynchronize(zero_), "cudaEventSynchronize");
  }

  [[nodiscard]] double now() override { return std::chrono::duration<double>(Clock::now() - t0_).count(); }

  Handle compute(double flops) override {
    const Handle h = open(compute_);
    const int m = std::max(8, opt_.matmul_n);
    const double block = 2.0 * m * m * m;
    const float one = 1.0f;
    auto gemm = [&](int k) {
      check(cublasGemmEx(cublas_, CUBLAS_OP_N, CUBLAS_OP_N, m, m, k, &one, a_, CUDA_R_16BF, m, b_, CUDA_R_16BF, m, &one, c_,
                         CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
            "cublasGemmEx");
    };
    const auto blocks = static_cast<long long>(std::floor(flops / block));
    if (blocks > kMaxLaunchesPerOp) {
      throw LimitError(fmt::format("a compute op of {:.3g} FLOPs needs {} GEMM launches of n = {}, beyond the limit of {}; "
                                   "use a larger --matmul-n", flops, blocks, m, kMaxLaunchesPerOp));
    }
    for (long long i = 0; i < blocks; ++i) gemm(m);
    const auto k = static_cast<int>(std::llround((flops - static_cast<double>(blocks) * block) / (2.0 * m * m)));
    if (k > 0) gemm(std::min(k, m));
    return close(h, compute_);
  }

  Handle collective(OpKind kind, double bytes, PacedLink& link, double eligible) override {
    cudaStream_t s = kind == OpKind::all_gather ? ag_ : rs_;
    const Handle h = open(s);
    if (link.paced()) {
      // NCCL's collective cannot be paced from outside: its end is held until the link has
      // carried its bytes (backend.hpp).
      const double deadline = link.schedule({static_cast<std::size_t>(bytes)}, eligible).back();
      link.hand_over(deadline);
      link.done(deadline, deadline);
      hold_[h] = deadline;
    }
    const auto count = n_ > 1 ? static_cast<std::size_t>(bytes / (n_ - 1) / 4) : 0;
    if (kind == OpKind::all_gather) {
      check(ncclAllGather(coll_send_, coll_recv_, count, ncclFloat, ag_comm_, s), "ncclAllGather");
    } else if (kind == OpKind::all_reduce) {
      // A ring all-reduce moves 2(n-1)/n of its buffer: n/2 blocks, in place in the receive buffer.
      const std::size_t elements = std::max<std::size_t>(1, count * static_cast<std::size_t>(n_) / 2);
      check(ncclAllReduce(coll_recv_, coll_recv_, elements, ncclFloat, ncclSum, rs_comm_, s), "ncclAllReduce");
    } else {
      check(ncclReduceScatter(coll_send_, coll_recv_, count, ncclFloat, ncclSum, rs_comm_, s), "ncclReduceScatter");
    }
    return close(h, s);
  }

  Handle send(std::size_t offset, std::size_t n, int peer) override {
    const Handle h = open(send_);
    check(ncclSend(static_cast<unsigned char*>(shard_) + offset, n, ncclUint8, peer, p2p_comms_[static_cast<std::size_t>(rank_)], send_), "ncclSend");
    return close(h, send_);
  }

  Handle receive(int slot, int sub_buffer, std::size_t offset, std::size_t n) override {
    cudaStream_t s = recv_[static_cast<std::size_t>(slot)];
    const int sender = layout_.senders[static_cast<std::size_t>(slot)];
    const Handle h = open(s);
    check(ncclRecv(sub(slot, sub_buffer) + offset, n, ncclUint8, sender, p2p_comms_[static_cast<std::size_t>(sender)], s), "ncclRecv");
    return close(h, s);
  }

  Handle copy_to_host(int slot, int sub_buffer, std::size_t n, std::size_t replica_offset) override {
    const Handle h = open(copy_);
    check(cudaMemcpyAsync(replicas_ + static_cast<std::size_t>(slot) * layout_.shard + replica_offset, sub(slot, sub_buffer), n,
                          cudaMemcpyDeviceToHost, copy_),
          "cudaMemcpyAsync");
    return close(h, copy_);
  }

  Handle local_copy(std::size_t offset, std::size_t n) override {
    const Handle h = open(copy_);
    check(cudaMemcpyAsync(local_cpu_ + offset, static_cast<unsigned char*>(shard_) + offset, n, cudaMemcpyDeviceToHost, copy_),
          "cudaMemcpyAsync");
    return close(h, copy_);
  }

  Progress poll(Handle h, Span& measured) override {
    const GpuOp& op = events_[h];
    const cudaError_t e = cudaEventQuery(op.end);
    if (e == cudaErrorNotReady) return Progress::waiting;
    check(e, "cudaEventQuery");
    const auto held = hold_.find(h);
    if (held != hold_.end() && now() < held->second) return Progress::waiting;
    float start_ms = 0, end_ms = 0;
    check(cudaEventElapsedTime(&start_ms, zero_, op.start), "cudaEventElapsedTime");
    check(cudaEventElapsedTime(&end_ms, zero_, op.end), "cudaEventElapsedTime");
    measured = {start_ms * 1e-3, end_ms * 1e-3};
    if (held != hold_.end()) measured.end_s = std::max(measured.end_s, held->second);
    return Progress::done;
  }

  // The GPU works in the background and each rank has a core of its own on a GPU machine: a
  // short sleep keeps the host's reaction to a finished operation (the next launch) small.
  [[nodiscard]] int idle_sleep_us() const override { return 10; }

  [[nodiscard]] nlohmann::json device_info() const override {
    int runtime = 0, driver = 0, nccl = 0, device = 0;
    cudaRuntimeGetVersion(&runtime);
    cudaDriverGetVersion(&driver);
    ncclGetVersion(&nccl);
    cudaGetDevice(&device);
    cudaDeviceProp prop{};
    cudaGetDeviceProperties(&prop, device);
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof bus, device);
    char host[MPI_MAX_PROCESSOR_NAME] = {};
    int len = 0;
    MPI_Get_processor_name(host, &len);
    // CUDA versions are 1000 major + 10 minor; NCCL's 10000 major + 100 minor + patch (>= 2.9).
    return {{"backend", "nccl"}, {"rank", rank_}, {"host", std::string(host, static_cast<std::size_t>(len))}, {"device", prop.name},
            {"pci_bus_id", bus}, {"cuda_runtime", fmt::format("{}.{}", runtime / 1000, runtime % 1000 / 10)},
            {"cuda_driver", fmt::format("{}.{}", driver / 1000, driver % 1000 / 10)},
            {"nccl", fmt::format("{}.{}.{}", nccl / 10000, nccl % 10000 / 100, nccl % 100)}};
  }

  void corrupt(int slot, int sub_buffer, std::size_t byte) override {
    check(cudaStreamSynchronize(recv_[static_cast<std::size_t>(slot)]), "cudaStreamSynchronize");
    unsigned char b = 0;
    check(cudaMemcpy(&b, sub(slot, sub_buffer) + byte, 1, cudaMemcpyDeviceToHost), "cudaMemcpy");
    b ^= 0x01;
    check(cudaMemcpy(sub(slot, sub_buffer) + byte, &b, 1, cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  [[nodiscard]] const unsigned char* replica(int slot) const override { return replicas_ + static_cast<std::size_t>(slot) * layout_.shard; }
  [[nodiscard]] const unsigned char* local_replica() const override { return local_cpu_; }

 private:
  // Events are pooled: an iteration reuses the previous iterations' events in order.
  Handle open(cudaStream_t s) {
    if (used_ == events_.size()) {
      GpuOp op;
      check(cudaEventCreate(&op.start), "cudaEventCreate");
      check(cudaEventCreate(&op.end), "cudaEventCreate");
      events_.push_back(op);
    }
    check(cudaEventRecord(events_[used_].start, s), "cudaEventRecord");
    return used_++;
  }
  Handle close(Handle h, cudaStream_t s) {
    check(cudaEventRecord(events_[h].end, s), "cudaEventRecord");
    return h;
  }
  unsigned char* sub(int slot, int sub_buffer) {
    return static_cast<unsigned char*>(subs_) + (static_cast<std::size_t>(slot) * static_cast<std::size_t>(layout_.sub_buffers) +
                                                 static_cast<std::size_t>(sub_buffer)) * layout_.sub_buffer;
  }

  BackendOptions opt_;
  MPI_Comm world_;
  int rank_ = 0, n_ = 1;
  BufferLayout layout_;
  cudaStream_t compute_{}, ag_{}, rs_{}, send_{}, copy_{};
  std::vector<cudaStream_t> recv_;
  ncclComm_t ag_comm_ = nullptr, rs_comm_ = nullptr;
  std::vector<ncclComm_t> p2p_comms_;  // by sending rank
  cublasHandle_t cublas_ = nullptr;
  void *a_ = nullptr, *b_ = nullptr, *c_ = nullptr;
  void *shard_ = nullptr, *coll_send_ = nullptr, *coll_recv_ = nullptr, *subs_ = nullptr;
  unsigned char *staging_ = nullptr, *local_cpu_ = nullptr, *replicas_ = nullptr;  // pinned host memory
  std::vector<GpuOp> events_;
  std::size_t used_ = 0;
  std::map<Handle, double> hold_;  // paced collectives: no earlier end than the link's deadline
  cudaEvent_t zero_ = nullptr;
  Clock::time_point t0_;
};

}  // namespace

}  // namespace ckptsim::replay

// The module's one entry point (backend.cpp loads this module with dlopen and looks it up by
// this name; see the header comment there): a new backend the caller owns.
extern "C" __attribute__((visibility("default"))) ckptsim::replay::Backend* ckptsim_replay_make_nccl_backend(const ckptsim::replay::BackendOptions* options,
                                                                      MPI_Comm world) {
  return new ckptsim::replay::NcclBackend(*options, world);
}
