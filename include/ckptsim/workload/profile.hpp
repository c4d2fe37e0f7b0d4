#pragma once
// IterationProfile: one iteration's length and each machine's network idle spans.
//
// A machine's network is busy while any training transfer crossing its NIC (send or receive)
// is alive, from the moment it is issued (its latency included) until its last byte arrives;
// its idle spans are the gaps, within [0, iteration end], between busy intervals. Each span
// remembers its anchor: the training transfer whose end opened it (-1 when none), so that a
// checkpoint plan can be replayed relative to the training operations rather than to clock
// times. Spans can instead be imported from a measured profile (docs/profile-format.md);
// such spans have no anchors.
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/topology.hpp"
#include "ckptsim/workload/task_graph.hpp"

namespace ckptsim {

struct IdleSpan {
  SimTime start;
  SimTime length;
  int anchor = -1;  ///< task whose end opened the span, -1 when none (imported, or at time 0)
};

struct IterationProfile {
  SimTime iteration_time;
  std::vector<std::vector<IdleSpan>> machine_spans;  ///< [machine][span]
  bool imported = false;

  /// Total idle time of one machine.
  [[nodiscard]] SimTime idle_time(int machine) const;
  /// The spans a plan shared by every machine can rely on: when every machine has the same
  /// number of spans, span k starts at the latest of the machines' k-th starts and lasts the
  /// shortest of their k-th lengths; otherwise machine 0's spans.
  [[nodiscard]] std::vector<IdleSpan> common_spans() const;
};

/// Idle spans of every machine from a simulated iteration; `network_tasks` are the training
/// transfers.
IterationProfile extract_profile(const TaskGraph& graph, const GraphRun& run, const Topology& topology,
                                 const std::vector<int>& network_tasks);

/// Reads a measured profile (docs/profile-format.md). Per span index, the part common to every
/// iteration: from the latest start to the earliest end (GEMINI's artifact keeps the minimum
/// per span); the iteration time is the mean. Every machine gets these spans. Throws InputError naming the
/// JSON pointer of every problem.
IterationProfile parse_profile(const nlohmann::json& document, const std::string& file, int machines);
IterationProfile load_profile_file(const std::string& path, int machines);

/// The profile of machine `machine` in the import format (one iteration), so that a simulated
/// profile can be edited or compared with a measured one and read back by parse_profile.
nlohmann::json profile_to_json(const IterationProfile& profile, int machine, const std::string& source);

}  // namespace ckptsim
