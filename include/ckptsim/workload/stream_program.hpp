#pragma once
// StreamProgram: what a training engine's host code does in one iteration, as the ordered list
// of operations it enqueues on CUDA streams and the points where the host itself waits; and
// the one builder that turns such a program into a TaskGraph (task_graph.hpp). The engines
// (deepspeed_zero3.hpp, fsdp.hpp) write programs; nothing else in the model knows their rules.
//
// Semantics (CUDA's stream model, as PyTorch exposes it):
//   - The host runs the program in order. Host operations (a wait on an event, host work of a
//     duration) run one after the other on the host timeline; every other operation is
//     enqueued by the host at the moment the host has reached it, so it starts no earlier than
//     the end of the last host operation before it (kernel launches are asynchronous and cost
//     the host nothing in this model: the program says where the host blocks, the rest is free).
//   - Operations on one stream run one after the other, in the order they were enqueued.
//   - `waits` (torch.cuda.Stream.wait_stream, and ProcessGroupNCCL's syncStreams before each
//     collective): the operation starts after every operation enqueued on those streams so far.
//   - `after` (an event: torch.cuda.Event.record / Work.wait): the operation starts after the
//     end of those operations; a host wait on an operation is Event.synchronize().
//   - A collective runs on its process group's NCCL stream (Stream::comm, Stream::comm_replica):
//     PyTorch's ProcessGroupNCCL keeps one NCCL stream per device and process group
//     (ncclStreams_[key], key from the devices, torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp,
//     collective()), so all-gathers and reduce-scatters of one group run one at a time, in issue
//     order, whatever stream the engine issued them from.
// Every rank runs the same program, so one program stands for every GPU; a collective is one
// set of flows over every machine (network/collectives.hpp).
// Each operation carries the exposure cause its time counts as when GPU compute waits for it
// (iteration_analysis.hpp): the engines label on-demand and prefetched gathers, in-flight
// limiters and host synchronizations where their code makes them.
#include <array>
#include <string>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/collectives.hpp"
#include "ckptsim/workload/compute_time.hpp"
#include "ckptsim/workload/task_graph.hpp"

namespace ckptsim {

enum class Stream {
  host,          ///< the Python thread (not a CUDA stream)
  compute,       ///< the default stream: forward, backward, optimizer kernels
  gather,        ///< DeepSpeed's all-gather stream, FSDP's unshard stream
  pre_gather,    ///< FSDP's pre-unshard stream (mixed-precision cast of the shard)
  reduce,        ///< DeepSpeed's reduce-and-partition stream, FSDP's post-backward stream
  comm,          ///< NCCL stream of the sharding process group
  comm_replica,  ///< NCCL stream of the replicate process group (HSDP)
};
inline constexpr std::size_t kStreams = 7;
const char* name_of(Stream stream);

/// Why GPU compute waited, as iteration_analysis.hpp attributes exposed time.
enum class Cause {
  none,               ///< not a cause (compute itself)
  on_demand_gather,   ///< a gather issued when its module was reached (no prefetch)
  in_flight_limit,    ///< the host held back by a limit on outstanding gathers
  host_sync,          ///< the host waiting for the GPU (synchronize, .item(), reduce limits)
  bandwidth,          ///< a prefetched gather or a reduction still moving bytes
};
inline constexpr std::array<Cause, 4> kExposureCauses = {Cause::on_demand_gather, Cause::in_flight_limit,
                                                         Cause::host_sync, Cause::bandwidth};
const char* name_of(Cause cause);

/// Which process group a collective runs on.
enum class Group {
  data_parallel,  ///< every rank (ZeRO-3, FSDP FULL_SHARD)
  shard,          ///< the GPUs of one machine (FSDP HYBRID_SHARD's sharding group)
  replicate,      ///< one GPU per machine, same local rank (HYBRID_SHARD's replicate group)
};

struct ProgramOp {
  enum class Kind { compute, copy, collective, host_wait, host_work, marker };
  Kind kind = Kind::marker;
  Stream stream = Stream::host;
  TaskCategory category = TaskCategory::marker;
  Cause cause = Cause::none;
  GpuWork use;                  ///< compute: what runs (duration from compute_time.hpp)
  double bytes = 0;                ///< copy: HBM bytes read plus written; collective: S
  /// collective: `count` back-to-back collectives of bytes/count each on the one NCCL stream,
  /// costed as one with count times the latency (the same time while nothing else shares the
  /// network: DeepSpeed's per-tensor gathers at the step's end, deepspeed_zero3.hpp)
  int count = 1;
  CollectiveKind collective = CollectiveKind::all_gather;
  Group group = Group::data_parallel;
  std::vector<Stream> waits;       ///< wait for everything enqueued on these streams so far
  std::vector<int> after;          ///< wait for the end of these operations (events)
  SimTime duration;                ///< host_work
  int layer = -1;                  ///< transformer layer (-1: none)
  int index = -1;                  ///< module, unit, gather group or bucket index (labels)
  std::string label;               ///< what it is, for traces ("L3 QKV", "block 3", "bucket 7")
};

/// Operations in host order; add() returns an operation's index.
class StreamProgram {
 public:
  int add(ProgramOp op);
  /// The last operation enqueued on `stream` so far (-1: none).
  [[nodiscard]] int last_on(Stream stream) const { return last_[static_cast<std::size_t>(stream)]; }
  [[nodiscard]] const std::vector<ProgramOp>& ops() const { return ops_; }
  [[nodiscard]] const ProgramOp& op(int i) const { return ops_[static_cast<std::size_t>(i)]; }
  [[nodiscard]] std::size_t size() const { return ops_.size(); }
  /// Room for `ops` operations in all, so that adding them moves none (a hint: more may be added).
  void reserve(std::size_t ops) { ops_.reserve(ops); }

  // Shorthands for the engines.
  int host_wait(int event, Cause cause, TaskCategory category = TaskCategory::host);
  /// Host work of `duration` (an engine hook's Python time); nothing when it is zero (-1).
  int host_work(SimTime duration, Cause cause, TaskCategory category = TaskCategory::host);
  int compute(GpuWork use, TaskCategory category, std::vector<Stream> waits, int layer = -1, int index = -1,
              std::string label = {});
  int copy(Stream stream, double bytes, Cause cause, std::vector<Stream> waits = {}, std::vector<int> after = {});
  int collective(CollectiveKind kind, Group group, double bytes, Cause cause, TaskCategory category,
                 std::vector<Stream> waits, int index = -1, std::string label = {}, int count = 1);
  int marker(Stream stream, std::vector<Stream> waits, std::vector<int> after = {});

 private:
  std::vector<ProgramOp> ops_;
  std::array<int, kStreams> last_{-1, -1, -1, -1, -1, -1, -1};
};

/// How the builder costs collectives and copies.
struct ProgramCosts {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  int gpus_per_machine = 1;
  SimTime latency;                  ///< per ring step
  double collective_efficiency = 1; ///< f of the NIC line rate
  bool host_staging = false;        ///< no GPUDirect RDMA
  double hbm_bandwidth = 0;         ///< bytes/s, copies on side streams
  ComputeModel compute;             ///< compute durations
};

/// The graph of a program. Per task: the operation it belongs to, its stream and its cause.
struct BuiltProgram {
  TaskGraph graph;
  int start_task = -1;                ///< every first operation depends on it
  std::vector<int> op_first_task;     ///< per operation
  std::vector<int> op_last_task;      ///< per operation
  std::vector<int> op_stream_prev;    ///< per operation: last task of the previous operation on its stream (-1)
  std::vector<int> op_host_task;      ///< per GPU operation: last task of the host before it was enqueued (-1)
  std::vector<int> task_op;           ///< per task (-1: the start marker)
  std::vector<int> network_tasks;     ///< phase tasks of collectives that cross a NIC
  std::vector<int> compute_tasks;     ///< tasks of Kind::compute operations, in program order
};

/// Builds the task graph; throws ModelError when a copy needs an HBM bandwidth that is missing.
/// Complexity: O(operations + phases), one use list per (collective kind, group).
BuiltProgram build_program(const StreamProgram& program, const Topology& topology, const ProgramCosts& costs);

}  // namespace ckptsim
