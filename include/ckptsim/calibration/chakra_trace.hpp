#pragma once
// Reading MLCommons Chakra execution traces (ET) as the network idle spans of one iteration.
//
// Format (github.com/mlcommons/chakra, schema/protobuf/et_def.proto, vendored in
// third_party/chakra/): a file is a sequence of messages, each preceded by its length as a
// base-128 varint (Chakra's src/third_party/utils/protolib.py, encodeMessage/decodeMessage):
// one GlobalMetadata, then Node messages. One file per rank ("NAME.RANK.et").
//
// What is read of a Node:
//   id, type; data_deps ("starts after the end of"); ctrl_deps only when asked
//   (ctrl_deps_order): Chakra's own feeder (src/feeder/et_feeder.cpp) and ASTRA-sim order nodes
//   by data_deps alone, and Chakra's PyTorch converter writes a node's parent operator into
//   ctrl_deps (src/converter/pytorch_converter.py), a node the trace may not even hold;
//   duration_micros;
//   attr is_cpu_op (bool), num_ops (integer FLOPs), comm_type (CollectiveCommType),
//   comm_size (integer bytes).
// Everything else (name, ctrl_deps unless asked, start_time_micros, inputs, outputs, pg_name,
// tensor_size, comm_src/dst/tag, comm_priority, involved_dim, other attrs, GlobalMetadata's
// attrs but "schema") is not read.
//
// Durations (seconds):
//   compute node:  duration_micros·1e-6 when > 0, else num_ops / F (F = --gpu-flops, FLOP/s),
//                  else 0 (a node that records neither; counted in the summary);
//   communication: duration_micros·1e-6 when > 0, else, with S = comm_size bytes, n = group size
//                  and B = bus bandwidth (bytes/s), nccl-tests' bus-bandwidth convention
//                  (nccl-tests doc/PERFORMANCE.md: busbw = algbw·factor, algbw = S / t):
//                    t = S·factor / B,   factor = 2(n-1)/n  all-reduce
//                                                 (n-1)/n   all-gather, reduce-scatter(-block), all-to-all
//                                                 1         reduce, broadcast, send, recv (comm_type not read)
//                  gather and scatter, which nccl-tests does not test, take (n-1)/n (our
//                  derivation: the root receives or sends the other ranks' share of S);
//                  a barrier (and a node of 0 bytes) takes 0;
//   metadata and invalid nodes: 0 (they only pass on dependencies, as ASTRA-sim skips them).
// Schedule (ASTRA-sim's HardwareResource rule, astra-sim/workload/HardwareResource.cc): a node
// is ready when all its dependencies have ended; three resources each run one node at a time —
// CPU operators (is_cpu_op true), GPU compute (other compute nodes), the GPU's communication
// (collectives and sends); receives, metadata and invalid nodes need no resource. A free resource
// starts its ready node with the earliest ready time, ties by node id (file order after that).
// Every rank is scheduled alone: a collective takes its own duration, without waiting for peers.
// Network busy = the union of the communication nodes' intervals (every collective, send and
// receive counts as crossing the machine's NIC: a trace does not say which ranks share a
// machine). The iteration time is the end of the last node; the idle spans are the gaps of
// [0, iteration time) between busy intervals, those shorter than min_span_s left out.
//
// Limits (LimitError, docs/limits.md): at most 5,000,000 nodes and 20,000,000 dependencies per
// trace (about 2 GiB of memory for reading and scheduling).
// Errors (InputError naming the file, the message's byte offset or the node id): a truncated
// varint, a varint beyond 64 bits, a length beyond the end of the file, a message that does not
// parse, no GlobalMetadata, an unknown node type, MEM_LOAD/MEM_STORE nodes (remote memory is not
// modelled), a duplicate node id, a dependency on a missing node or on itself, a cycle in the
// dependencies, a duration or time beyond 100 years (3.15576e15 us: the simulated clock's range,
// docs/limits.md; a negative time written as uint64 lands here), negative num_ops or comm_size,
// an unknown comm_type, a communication node without comm_type (collectives) or comm_size when
// its duration is 0, and the --bus-bandwidth / --group-size / --gpu-flops it needs when absent.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace ckptsim {

/// Chakra's NodeType values (et_def.proto).
enum class ChakraNodeType { invalid = 0, metadata = 1, mem_load = 2, mem_store = 3, compute = 4, send = 5, recv = 6, collective = 7 };

/// Which resource runs a node (see the schedule above).
enum class ChakraResource { cpu, gpu_compute, gpu_comm, none };

struct ChakraNode {
  std::uint64_t id = 0;
  ChakraNodeType type = ChakraNodeType::invalid;
  bool is_cpu_op = false;
  std::vector<std::uint64_t> data_deps;
  std::vector<std::uint64_t> ctrl_deps;
  std::uint64_t duration_micros = 0;
  std::optional<std::int64_t> num_ops;         ///< FLOPs
  std::optional<std::int64_t> comm_type;       ///< CollectiveCommType value
  std::optional<std::int64_t> comm_size;       ///< bytes
};

struct ChakraTrace {
  std::string file;
  std::string schema;  ///< GlobalMetadata attr "schema" (or version), "" when absent
  std::vector<ChakraNode> nodes;  ///< in file order
};

/// What times nodes that record no duration (unset: such a node is an error).
struct ChakraTiming {
  std::optional<double> bus_bandwidth;  ///< B, bytes/s
  std::optional<int> group_size;        ///< n
  std::optional<double> gpu_flops;      ///< F, FLOP/s
};

struct ChakraSchedule {
  std::string file;
  double iteration_time_s = 0;
  double network_busy_s = 0;
  std::vector<std::pair<double, double>> idle_spans;  ///< [start, length], seconds
  std::size_t compute_nodes = 0, comm_nodes = 0, other_nodes = 0;
  std::size_t untimed_compute_nodes = 0;  ///< compute nodes with neither duration nor num_ops
  std::size_t modelled_comm_nodes = 0;    ///< communication nodes timed from comm_size
  std::size_t flops_compute_nodes = 0;    ///< compute nodes timed from num_ops
};

/// Whether this build reads Chakra traces (protobuf was found when it was configured).
bool chakra_reader_available();

inline constexpr std::size_t kMaxChakraNodes = 5'000'000;
inline constexpr std::size_t kMaxChakraDependencies = 20'000'000;

/// Parses a trace's bytes (`file` names it in errors). Throws InputError as listed above,
/// LimitError beyond the limits, and std::logic_error when chakra_reader_available() is false.
ChakraTrace parse_chakra_trace(std::string_view bytes, const std::string& file);

/// The resource of a node (the schedule's rule above).
ChakraResource chakra_resource(const ChakraNode& node);

/// Each node's duration in seconds (the rules above), in the trace's node order.
std::vector<double> chakra_durations(const ChakraTrace& trace, const ChakraTiming& timing);

/// Schedules the trace (the rules above) and returns its iteration time and idle spans; with
/// `ctrl_deps_order` a node also waits for its ctrl_deps (which must then be in the trace).
ChakraSchedule schedule_chakra_trace(const ChakraTrace& trace, const ChakraTiming& timing, double min_span_s,
                                     bool ctrl_deps_order = false);

/// The measured idle-span profile (docs/profile-format.md): one iteration per trace. Throws
/// InputError when the traces do not all have the same number of spans, listing the counts.
nlohmann::json chakra_idle_span_profile(const std::vector<ChakraSchedule>& schedules, const std::string& source);

}  // namespace ckptsim
