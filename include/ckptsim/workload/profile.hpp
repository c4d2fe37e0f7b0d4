#pragma once
// IterationProfile: one iteration's length and each machine's network idle spans, in two views.
//
//   profiler view (machine_spans; what the checkpoint schedulers plan into): GEMINI's profiler
//     brackets each collective with CUDA events on the communication stream, so a collective is
//     busy from the moment its kernel can start — the host has issued it, the NCCL stream's
//     previous operation and the stream it waits for (its input) are done — until its last
//     byte lands: the time it waits for its peers (each ring step's latency) or for the host
//     counts as busy. Spans are the gaps between collectives that cross the machine's NIC.
//   network-silent view (silent_spans): the moments when no training bytes cross the NIC, i.e.
//     the gaps between flows actually moving data (from the end of a phase's latency to its
//     last byte).
// Every profiler-busy moment contains the silent view's busy moments, so silent idle >=
// profiler idle; the difference is the time collectives spend waiting for their peers.
// Idle spans are the gaps, within [0, iteration end], between busy intervals. Each span
// remembers its anchor: the training task whose end opened it (-1 when none), so that a
// checkpoint plan can be replayed relative to the training operations rather than to clock
// times. Spans can instead be imported from a measured profile (docs/profile-format.md);
// such spans have no anchors and no silent view.
#include <cstddef>
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

/// The summed length of `spans`.
SimTime total_length(const std::vector<IdleSpan>& spans);

/// Each machine's idle spans, stored once per distinct list: in the usual case every collective
/// crosses every machine's NIC and all machines share one list, so a cluster of M machines with
/// S spans holds S spans, not M x S (2,048 machines x 2,151 silent spans were 106 MB of copies).
/// Read like a vector of lists, one per machine (size, [], at, front, range-for); change the
/// lists through assign or for_each_list.
class SpansByMachine {
 public:
  SpansByMachine() = default;
  /// `machines` machines sharing `spans`.
  SpansByMachine(int machines, std::vector<IdleSpan> spans) { assign(machines, std::move(spans)); }
  /// One list per machine, kept as given.
  explicit SpansByMachine(std::vector<std::vector<IdleSpan>> per_machine);

  void assign(int machines, std::vector<IdleSpan> spans);
  /// Grows or shrinks to `machines`; new machines get `spans`, and a list that no remaining
  /// machine reads is dropped.
  void resize(int machines, const std::vector<IdleSpan>& spans);
  /// Applies `edit` to every distinct list once (so to every machine's spans).
  template <class Edit>
  void for_each_list(Edit edit) {
    for (auto& list : lists_) edit(list);
  }

  [[nodiscard]] std::size_t size() const { return list_of_.size(); }
  [[nodiscard]] bool empty() const { return list_of_.empty(); }
  [[nodiscard]] const std::vector<IdleSpan>& operator[](std::size_t machine) const { return lists_[list_of_[machine]]; }
  /// Throws std::out_of_range for a machine beyond size().
  [[nodiscard]] const std::vector<IdleSpan>& at(std::size_t machine) const;
  [[nodiscard]] const std::vector<IdleSpan>& front() const { return (*this)[0]; }
  /// The distinct lists (each machine's list is one of them).
  [[nodiscard]] const std::vector<std::vector<IdleSpan>>& distinct() const { return lists_; }

  class Iterator {
   public:
    Iterator(const SpansByMachine* owner, std::size_t machine) : owner_(owner), machine_(machine) {}
    const std::vector<IdleSpan>& operator*() const { return (*owner_)[machine_]; }
    Iterator& operator++() {
      ++machine_;
      return *this;
    }
    bool operator==(const Iterator& o) const { return machine_ == o.machine_; }

   private:
    const SpansByMachine* owner_;
    std::size_t machine_;
  };
  [[nodiscard]] Iterator begin() const { return {this, 0}; }
  [[nodiscard]] Iterator end() const { return {this, size()}; }

 private:
  std::vector<std::vector<IdleSpan>> lists_;
  std::vector<std::size_t> list_of_;  ///< machine -> its list in lists_
};

struct IterationProfile {
  SimTime iteration_time;
  SpansByMachine machine_spans;  ///< [machine][span], the profiler's view
  SpansByMachine silent_spans;   ///< [machine][span], network-silent (simulated only)
  bool imported = false;
  /// Imported: the profile states that the network is idle from its last span's end to the
  /// iteration's end (`idle_after_last_span`, docs/profile-format.md), and that time is one more
  /// span of every iteration. Without it that time is not known to be free: a checkpoint's
  /// leftover after the last span delays the iteration by at least its NIC time.
  bool idle_after_last_span = false;

  /// Total idle time of one machine (the profiler's view).
  [[nodiscard]] SimTime idle_time(int machine) const;
  /// Total network-silent time of one machine (zero for an imported profile).
  [[nodiscard]] SimTime silent_time(int machine) const;
  /// The spans a plan shared by every machine can rely on: when every machine has the same
  /// number of spans, span k starts at the latest of the machines' k-th starts and lasts the
  /// shortest of their k-th lengths; otherwise machine 0's spans.
  [[nodiscard]] std::vector<IdleSpan> common_spans() const;
};

/// A training transfer busy on the NICs of the machines `uses_task` (a transfer) crosses, from
/// `from` to `to`; `task` is the one whose end (= `to`) opens the span that follows.
struct BusyInterval {
  SimTime from;
  SimTime to;
  int task = -1;
  int uses_task = -1;
};

/// Every machine's idle spans in [0, iteration_time] around `busy`; one shared list when every
/// interval crosses every machine. Complexity: O(B log B + B·U) for B intervals crossing U
/// resources each, times the machines that some interval leaves out.
SpansByMachine machine_idle_spans(const TaskGraph& graph, const Topology& topology, std::vector<BusyInterval> busy,
                                  SimTime iteration_time);

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
