// What a replay backend gives the shared rank loop (rank_loop.cpp) and the microbenchmarks
// (microbench.cpp): the "device" buffers (GPU memory for nccl, plain host memory for mpi), the
// CPU replicas in host memory (pinned for nccl), and asynchronous operations on separate
// streams (compute, all-gather, reduce-scatter, checkpoint sends, checkpoint receives, copies to
// the host) whose measured span the backend reports once they completed. Control traffic
// (barriers, the receivers' credit messages, gathering the records) stays on MPI in both
// backends, so scheduling, recording, checksums and output are the same code.
//
// Times are seconds since the current iteration's time zero (begin_iteration). The mpi backend
// reads the host's steady clock; the nccl backend measures GPU operations with CUDA events
// against an event recorded at time zero.
#pragma once
#include <cstddef>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>

#include <nlohmann/json.hpp>

#include "ckptsim/calibration/plan_file.hpp"
#include "paced_link.hpp"
#include "timeline.hpp"

namespace ckptsim::replay {

struct BufferLayout {
  std::size_t shard = 0;             ///< this rank's checkpoint shard (device memory)
  std::size_t collective_block = 0;  ///< bytes per rank of the collective send/receive buffers
  std::size_t sub_buffer = 0;        ///< bytes of one receive sub-buffer
  int sub_buffers = 1;               ///< receive sub-buffers per sender
  std::vector<int> senders;          ///< ranks whose chunks this rank receives: slot i is senders[i]
};

struct BackendOptions {
  int matmul_n = 64;  ///< compute block: n x n times n x n (2 n^3 FLOPs)
};

/// A device call (CUDA, NCCL, cuBLAS) failed during the replay: a fault of the machine or its
/// drivers, not of the input (exit 1, naming the call and the library's reason).
class DeviceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Backend {
 public:
  using Handle = std::size_t;
  virtual ~Backend() = default;

  [[nodiscard]] virtual const char* name() const = 0;
  /// Allocates the buffers (collective over the ranks: call on every rank).
  virtual void allocate(const BufferLayout& layout) = 0;
  /// Writes the (rank, iteration) pattern into the shard, synchronises all ranks and sets time
  /// zero; handles of the previous iteration become invalid.
  virtual void begin_iteration(int iteration) = 0;
  [[nodiscard]] virtual double now() = 0;

  /// Matrix multiplications totalling `flops` on the compute stream.
  virtual Handle compute(double flops) = 0;
  /// A ring all-gather or reduce-scatter in which each rank's stream moves `bytes`, ready at
  /// `eligible`. With a paced `link` every byte a rank sends passes it (paced_link.hpp): the mpi
  /// backend runs the ring itself, n - 1 steps of paced point-to-point segments (a step's block
  /// goes once the previous step's block arrived), so the measured time is MPI's and the
  /// pacing's together; the nccl backend runs NCCL's collective and holds its end until the link
  /// has carried its bytes (NCCL cannot be paced from outside). Unpaced: the library's own
  /// collective (MPI_Iallgather / MPI_Ireduce_scatter_block, ncclAllGather / ncclReduceScatter).
  virtual Handle collective(OpKind kind, double bytes, PacedLink& link, double eligible) = 0;
  /// Bytes [offset, offset + n) of this rank's shard to `peer` (checkpoint send stream).
  virtual Handle send(std::size_t offset, std::size_t n, int peer) = 0;
  /// Receives n bytes from the sender of `slot` into its sub-buffer at `offset`.
  virtual Handle receive(int slot, int sub_buffer, std::size_t offset, std::size_t n) = 0;
  /// Copies the first n bytes of a sub-buffer into the slot's CPU replica at `replica_offset`.
  virtual Handle copy_to_host(int slot, int sub_buffer, std::size_t n, std::size_t replica_offset) = 0;
  /// Copies bytes [offset, offset + n) of the shard into this rank's own CPU replica.
  virtual Handle local_copy(std::size_t offset, std::size_t n) = 0;
  enum class Progress { waiting, working, done };
  /// Makes progress on `h`: `working` when this call did some of its work (the mpi backend
  /// computes and copies inside poll), `waiting` when it is still in flight, `done` (with its
  /// measured span) once it completed.
  virtual Progress poll(Handle h, Span& measured) = 0;
  /// Microseconds the rank loop sleeps at most when a turn found nothing to do (it wakes earlier
  /// for the next paced deadline), unless --idle-sleep-us.
  [[nodiscard]] virtual int idle_sleep_us() const = 0;

  /// What this rank runs on, for reports: {"backend", "host", ...}; nccl adds the CUDA runtime,
  /// driver and NCCL versions and the device's name and PCI bus id.
  [[nodiscard]] virtual nlohmann::json device_info() const = 0;

  /// --inject-corruption: flips one bit of byte `byte` of a sub-buffer (after its receive).
  virtual void corrupt(int slot, int sub_buffer, std::size_t byte) = 0;
  /// The CPU replicas (host memory), valid once their copies completed.
  [[nodiscard]] virtual const unsigned char* replica(int slot) const = 0;
  [[nodiscard]] virtual const unsigned char* local_replica() const = 0;
};

/// "mpi" or "nccl"; throws ModelError("--backend", ...) when the backend was not built or (nccl)
/// this machine has no usable GPU for this rank.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options, MPI_Comm world);

/// Whether this build has the nccl backend.
bool nccl_backend_built();

}  // namespace ckptsim::replay
