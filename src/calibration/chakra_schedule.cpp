// Chakra execution traces: node durations, the schedule and the idle spans (chakra_trace.hpp has
// the rules, with their sources). Reading the protobuf file is chakra_reader.cpp, built when
// protobuf is found; without it this file holds the refusal.
#include <algorithm>
#include <functional>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "ckptsim/calibration/chakra_trace.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

namespace {

/// 100 years in seconds: the simulated clock's range (docs/limits.md), as for PyTorch traces.
constexpr double kChakraMaxSeconds = 3.15576e9;
constexpr std::uint64_t kChakraMaxMicros = 3'155'760'000'000'000;

std::string chakra_node_pointer(const ChakraNode& n) { return fmt::format("node {}", n.id); }

bool is_chakra_communication(ChakraNodeType t) {
  return t == ChakraNodeType::collective || t == ChakraNodeType::send || t == ChakraNodeType::recv;
}

/// nccl-tests' bus-bandwidth factor (doc/PERFORMANCE.md) of a CollectiveCommType value; the
/// second member says whether the factor depends on the group size n.
std::pair<double, bool> chakra_bus_factor(std::int64_t comm_type, int n) {
  const double ranks = n;
  switch (comm_type) {
    case 0: return {2.0 * (ranks - 1) / ranks, true};  // ALL_REDUCE
    case 1: return {1.0, false};                       // REDUCE
    case 2: return {(ranks - 1) / ranks, true};        // ALL_GATHER
    case 3: return {(ranks - 1) / ranks, true};        // GATHER
    case 4: return {(ranks - 1) / ranks, true};        // SCATTER
    case 5: return {1.0, false};                       // BROADCAST
    case 6: return {(ranks - 1) / ranks, true};        // ALL_TO_ALL
    case 7: return {(ranks - 1) / ranks, true};        // REDUCE_SCATTER
    case 8: return {(ranks - 1) / ranks, true};        // REDUCE_SCATTER_BLOCK
    case 9: return {0.0, false};                       // BARRIER
    default: return {-1.0, false};
  }
}

double chakra_communication_seconds(const ChakraTrace& trace, const ChakraNode& n, const ChakraTiming& timing) {
  double factor = 1.0;
  bool needs_group = false;
  if (n.type == ChakraNodeType::collective) {
    if (!n.comm_type) {
      throw InputError(trace.file, chakra_node_pointer(n), "a collective with attr comm_type (it records no duration_micros)", "none");
    }
    const auto [f, needs_n] = chakra_bus_factor(*n.comm_type, timing.group_size.value_or(2));
    if (f < 0) throw InputError(trace.file, chakra_node_pointer(n), "comm_type 0..9 (et_def.proto CollectiveCommType)", std::to_string(*n.comm_type));
    if (f == 0) return 0;  // a barrier: no bytes
    factor = f;
    needs_group = needs_n;
  }
  if (!n.comm_size) {
    throw InputError(trace.file, chakra_node_pointer(n), "attr comm_size (bytes) on a communication node without duration_micros", "none");
  }
  if (*n.comm_size == 0) return 0;
  if (!timing.bus_bandwidth) {
    throw InputError(trace.file, chakra_node_pointer(n),
                     needs_group ? "--bus-bandwidth and --group-size: the collective records no duration_micros, only comm_size"
                                 : "--bus-bandwidth: the communication node records no duration_micros, only comm_size",
                     fmt::format("comm_size {} B and no --bus-bandwidth", *n.comm_size));
  }
  if (needs_group && !timing.group_size) {
    throw InputError(trace.file, chakra_node_pointer(n), "--group-size N: the collective records no duration_micros and its bus factor depends on the ranks",
                     "no --group-size");
  }
  const double t = static_cast<double>(*n.comm_size) * factor / *timing.bus_bandwidth;
  if (!(t <= kChakraMaxSeconds)) {
    throw InputError(trace.file, chakra_node_pointer(n), "a transfer time of at most 100 years (docs/limits.md)",
                     fmt::format("comm_size {} B at {:g} B/s: {:g} s", *n.comm_size, *timing.bus_bandwidth, t));
  }
  return t;
}

}  // namespace

ChakraResource chakra_resource(const ChakraNode& node) {
  switch (node.type) {
    case ChakraNodeType::compute: return node.is_cpu_op ? ChakraResource::cpu : ChakraResource::gpu_compute;
    case ChakraNodeType::collective:
    case ChakraNodeType::send: return ChakraResource::gpu_comm;
    default: return ChakraResource::none;  // recv (ASTRA-sim lets receives overlap), metadata, invalid
  }
}

std::vector<double> chakra_durations(const ChakraTrace& trace, const ChakraTiming& timing) {
  std::vector<double> out;
  out.reserve(trace.nodes.size());
  for (const ChakraNode& n : trace.nodes) {
    if (n.type == ChakraNodeType::mem_load || n.type == ChakraNodeType::mem_store) {
      throw InputError(trace.file, chakra_node_pointer(n), "COMP, COMM_COLL, COMM_SEND, COMM_RECV, METADATA or INVALID nodes (remote memory is not modelled)",
                       n.type == ChakraNodeType::mem_load ? "MEM_LOAD_NODE" : "MEM_STORE_NODE");
    }
    if (n.duration_micros > 0) {
      // 100 years = 3.15576e15 us; a negative time written as uint64 is far beyond it.
      if (n.duration_micros > kChakraMaxMicros) {
        throw InputError(trace.file, chakra_node_pointer(n), "duration_micros of at most 100 years (3.15576e15 us, docs/limits.md)", std::to_string(n.duration_micros));
      }
      out.push_back(static_cast<double>(n.duration_micros) * 1e-6);
      continue;
    }
    if (n.type == ChakraNodeType::compute) {
      if (!n.num_ops || *n.num_ops == 0) {
        out.push_back(0);
        continue;
      }
      if (!timing.gpu_flops) {
        throw InputError(trace.file, chakra_node_pointer(n), "--gpu-flops F: the compute node records num_ops but no duration_micros",
                         fmt::format("num_ops {} and no --gpu-flops", *n.num_ops));
      }
      const double t = static_cast<double>(*n.num_ops) / *timing.gpu_flops;
      if (!(t <= kChakraMaxSeconds)) {
        throw InputError(trace.file, chakra_node_pointer(n), "a compute time of at most 100 years (docs/limits.md)",
                         fmt::format("num_ops {} at {:g} FLOP/s: {:g} s", *n.num_ops, *timing.gpu_flops, t));
      }
      out.push_back(t);
    } else if (is_chakra_communication(n.type)) {
      out.push_back(chakra_communication_seconds(trace, n, timing));
    } else {
      out.push_back(0);
    }
  }
  return out;
}

ChakraSchedule schedule_chakra_trace(const ChakraTrace& trace, const ChakraTiming& timing, double min_span_s, bool ctrl_deps_order) {
  const std::size_t count = trace.nodes.size();
  if (count == 0) throw InputError(trace.file, "", "Node messages after the GlobalMetadata", "none");
  const std::vector<double> duration = chakra_durations(trace, timing);

  ChakraSchedule out;
  out.file = trace.file;
  std::unordered_map<std::uint64_t, std::size_t> index;
  index.reserve(count);
  for (std::size_t i = 0; i < count; ++i) {
    const ChakraNode& n = trace.nodes[i];
    if (!index.emplace(n.id, i).second) throw InputError(trace.file, chakra_node_pointer(n), "node ids that are unique", "a second node with this id");
    if (n.type == ChakraNodeType::compute) {
      ++out.compute_nodes;
      if (n.duration_micros == 0 && (!n.num_ops || *n.num_ops == 0)) ++out.untimed_compute_nodes;
      if (n.duration_micros == 0 && n.num_ops && *n.num_ops > 0) ++out.flops_compute_nodes;
    } else if (is_chakra_communication(n.type)) {
      ++out.comm_nodes;
      if (n.duration_micros == 0) ++out.modelled_comm_nodes;
    } else {
      ++out.other_nodes;
    }
  }
  if (out.comm_nodes == 0) {
    throw InputError(trace.file, "", "communication nodes (COMM_COLL_NODE, COMM_SEND_NODE, COMM_RECV_NODE): their gaps are the idle spans",
                     fmt::format("none among {} nodes", count));
  }
  // Each node's distinct dependencies (as file positions), its successors, and how many it waits for.
  std::vector<std::vector<std::size_t>> predecessors(count), successors(count);
  std::vector<std::size_t> waiting(count, 0);
  for (std::size_t i = 0; i < count; ++i) {
    const ChakraNode& n = trace.nodes[i];
    std::vector<std::uint64_t> deps = n.data_deps;
    if (ctrl_deps_order) deps.insert(deps.end(), n.ctrl_deps.begin(), n.ctrl_deps.end());
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (std::uint64_t d : deps) {
      if (d == n.id) throw InputError(trace.file, chakra_node_pointer(n), "dependencies on other nodes", "a dependency on itself");
      const auto it = index.find(d);
      if (it == index.end()) {
        throw InputError(trace.file, chakra_node_pointer(n), ctrl_deps_order ? "dependencies (data_deps, ctrl_deps) on nodes of the trace" : "data_deps on nodes of the trace",
                         fmt::format("a dependency on node {}, which it does not hold", d));
      }
      predecessors[i].push_back(it->second);
      successors[it->second].push_back(i);
      ++waiting[i];
    }
  }
  // Kahn's order first: a node left over lies on (or after) a cycle.
  {
    std::vector<std::size_t> left = waiting;
    std::vector<std::size_t> stack;
    for (std::size_t i = 0; i < count; ++i)
      if (left[i] == 0) stack.push_back(i);
    std::size_t seen = 0;
    while (!stack.empty()) {
      const std::size_t i = stack.back();
      stack.pop_back();
      ++seen;
      for (std::size_t s : successors[i])
        if (--left[s] == 0) stack.push_back(s);
    }
    if (seen < count) {
      // Walk back along unfinished dependencies until a node repeats: that stretch is a cycle.
      std::size_t at = 0;
      while (left[at] == 0) ++at;
      std::vector<std::size_t> order;
      std::vector<int> position(count, -1);
      while (position[at] < 0) {
        position[at] = static_cast<int>(order.size());
        order.push_back(at);
        for (const std::size_t j : predecessors[at]) {
          if (left[j] > 0) {
            at = j;
            break;
          }
        }
      }
      std::string cycle;
      for (std::size_t k = static_cast<std::size_t>(position[at]); k < order.size(); ++k) cycle += fmt::format("{} <- ", trace.nodes[order[k]].id);
      cycle += std::to_string(trace.nodes[at].id);
      throw InputError(trace.file, chakra_node_pointer(trace.nodes[at]), "dependencies without cycles",
                       fmt::format("a cycle: node {} (\"a <- b\": a depends on b)", cycle));
    }
  }

  // List scheduling, event by event. Ready queues order by (ready time, node id, file order).
  using Ready = std::tuple<double, std::uint64_t, std::size_t>;
  using Event = std::pair<double, std::size_t>;
  std::priority_queue<Ready, std::vector<Ready>, std::greater<>> ready[3];
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events;
  bool busy[3] = {false, false, false};
  std::vector<double> start(count, 0), end(count, 0);
  auto release = [&](std::size_t i, double at) {
    const ChakraResource r = chakra_resource(trace.nodes[i]);
    if (r == ChakraResource::none) {
      start[i] = at;
      end[i] = at + duration[i];
      events.emplace(end[i], i);
    } else {
      ready[static_cast<int>(r)].emplace(at, trace.nodes[i].id, i);
    }
  };
  for (std::size_t i = 0; i < count; ++i)
    if (waiting[i] == 0) release(i, 0.0);
  double now = 0;
  for (;;) {
    for (int r = 0; r < 3; ++r) {
      if (busy[r] || ready[r].empty()) continue;
      const std::size_t i = std::get<2>(ready[r].top());
      ready[r].pop();
      busy[r] = true;
      start[i] = now;
      end[i] = now + duration[i];
      events.emplace(end[i], i);
    }
    if (events.empty()) break;
    now = events.top().first;
    while (!events.empty() && events.top().first == now) {
      const std::size_t i = events.top().second;
      events.pop();
      const ChakraResource r = chakra_resource(trace.nodes[i]);
      if (r != ChakraResource::none) busy[static_cast<int>(r)] = false;
      for (std::size_t s : successors[i])
        if (--waiting[s] == 0) release(s, now);
    }
  }
  out.iteration_time_s = *std::max_element(end.begin(), end.end());
  if (!(out.iteration_time_s <= kChakraMaxSeconds)) {
    throw InputError(trace.file, "", "an iteration of at most 100 years (docs/limits.md)", fmt::format("{:g} s", out.iteration_time_s));
  }
  if (!(out.iteration_time_s > 0)) {
    throw InputError(trace.file, "", "nodes with durations (duration_micros, num_ops or comm_size): the iteration must last more than 0",
                     "every node takes 0");
  }
  // The communication intervals' union, then its gaps. Times are snapped to whole nanoseconds
  // as the profile reader reads them (SimTime::from_seconds), so that what is written reads back
  // in order and inside the iteration.
  const auto snap = [](double s) { return SimTime::from_seconds(s).ns(); };
  const std::int64_t iteration_ns = snap(out.iteration_time_s);
  out.iteration_time_s = static_cast<double>(iteration_ns) / 1e9;
  std::vector<std::pair<double, double>> comm;
  for (std::size_t i = 0; i < count; ++i)
    if (is_chakra_communication(trace.nodes[i].type) && end[i] > start[i]) comm.emplace_back(start[i], end[i]);
  std::sort(comm.begin(), comm.end());
  double cursor = 0;
  auto gap = [&](double from, double to) {
    const std::int64_t a = snap(from), b = std::min(snap(to), iteration_ns);
    if (b > a && static_cast<double>(b - a) / 1e9 >= min_span_s) {
      out.idle_spans.emplace_back(static_cast<double>(a) / 1e9, static_cast<double>(b - a) / 1e9);
    }
  };
  for (const auto& [a, b] : comm) {
    if (a > cursor) gap(cursor, a);
    if (b > cursor) {
      out.network_busy_s += b - std::max(a, cursor);
      cursor = b;
    }
  }
  gap(cursor, out.iteration_time_s);
  return out;
}

nlohmann::json chakra_idle_span_profile(const std::vector<ChakraSchedule>& schedules, const std::string& source) {
  auto iterations = nlohmann::json::array();
  std::string counts;
  bool same = true;
  for (const ChakraSchedule& s : schedules) {
    auto spans = nlohmann::json::array();
    for (const auto& [start, length] : s.idle_spans) spans.push_back({start, length});
    iterations.push_back({{"iteration_time", s.iteration_time_s}, {"spans", std::move(spans)}});
    same = same && s.idle_spans.size() == schedules.front().idle_spans.size();
    counts += fmt::format("{}{}: {}", counts.empty() ? "" : ", ", s.file, s.idle_spans.size());
  }
  if (!same) {
    throw InputError(schedules.front().file, "", "the same number of idle spans in every trace (span k is the same gap each iteration, "
                     "docs/profile-format.md); import one rank's trace, or drop short gaps (--min-span)", counts);
  }
  return {{"format", "ckptsim-profile/1"}, {"source", source}, {"iterations", std::move(iterations)}};
}

#ifndef CKPTSIM_HAVE_PROTOBUF
bool chakra_reader_available() { return false; }

ChakraTrace parse_chakra_trace(std::string_view, const std::string&) {
  throw std::logic_error("this build of ckptsim reads no Chakra traces: it was configured without protobuf");
}
#endif

}  // namespace ckptsim
