#pragma once
// FlowSet: the flows alive on a network at one simulated instant, advanced in time.
//
// Each flow has a byte count; between two changes of the flow set, every flow moves at the
// constant max-min fair rate x_f of flow_solver.hpp's model, so
//     remaining_f(t) = remaining_f(t_f) - x_f · (t - t_f),
// where t_f is the last time f's rate changed (remaining bytes are kept lazily, per flow, not
// rewritten at every event). The next completion is at now + min_f remaining_f / x_f, rounded up
// to a whole nanosecond (sim_time.hpp); at advance_to(t) a flow is done when less than one
// nanosecond of work is left at its rate. Per-message latency is not part of a flow: callers
// add a flow once its latency has elapsed.
//
// Incremental re-solve. Max-min fair rates decompose over the connected components of the
// bipartite graph resources <-> flows (a flow is linked to each resource it crosses): the
// allocation in one component does not depend on any other. An arrival or a completion marks
// the resources of that flow dirty; the next re-solve walks from the dirty resources to their
// components (breadth-first, over per-resource member lists) and recomputes only those flows.
// A wide flow (one collective crossing every machine) would cost an entry in thousands of member
// lists at each arrival and completion; it is marked in a row of its own instead, and the few
// wide flows alive are checked against that row wherever a member list is read.
// Within a component, progressive filling runs bottleneck by bottleneck:
//     L_r = (C_r - U_r) / W_r,   U_r = sum_{f frozen} a_{f,r}·x_f,   W_r = sum_{f unfrozen} a_{f,r},
// the resource of smallest L_r (a lazy min-heap) saturates next: its unfrozen flows get
// x_f = L_r and are frozen, which updates U and W (hence L) of the resources they cross; a
// flow whose rate cap is below the next level is frozen at its cap. This is the same
// allocation as MaxMinSolver (the full progressive filling, kept as the reference), computed
// in O(U log U) for U = uses in the component instead of O(rounds x U).
// Projected finish times sit in an indexed min-heap ordered by (finish, insertion number);
// only flows whose rate changed are re-keyed (a bulk rebuild when most did).
//
// Complexity per change: O(U_c log U_c + k log F) for the touched component(s) (U_c uses) and
// the k flows whose rate changed; next_completion O(1) after that; advance_to O(d log F) for the
// d flows done. Memory O(F + sum of uses). Deterministic: no container is ordered by address.
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/network/flow_solver.hpp"

namespace ckptsim {

class FlowSet {
 public:
  /// Components with at most this many resources, or whose rounds x resources bound is at most
  /// kScanPasses x their uses (few flows over many links), are filled by scanning the resources
  /// each round; the others through a heap of saturation levels.
  static constexpr std::size_t kScanResources = 256;
  static constexpr std::size_t kScanPasses = 4;
  /// While the flows form one component, the component walk is repeated every this many
  /// re-solves only (the others re-solve every alive flow, the same allocation).
  static constexpr std::int64_t kWalkEvery = 32;
  /// Flows crossing at least this many resources (a collective over every machine) are "wide":
  /// they are kept out of the per-resource member lists and marked in a per-flow row instead.
  static constexpr std::size_t kWideUses = 64;

  explicit FlowSet(std::vector<double> capacities);

  /// Starts a flow of `bytes` at the current time; `tag` is returned when it completes.
  /// `uses` is not copied: it must stay valid until the flow has completed and the set has
  /// been re-solved after that (task graphs keep one pool of use lists for the whole run).
  /// A resource may appear at most once in `uses` (add_use in collectives.hpp merges them).
  void add(std::span<const ResourceUse> uses, double bytes, std::int64_t tag,
           double rate_cap = std::numeric_limits<double>::infinity());

  /// Time of the next completion (nullopt when no flow is alive). Re-solves rates if needed.
  [[nodiscard]] std::optional<SimTime> next_completion();

  /// Moves every flow forward to `t` (>= now) and returns the tags of the flows that are done
  /// at `t` (less than a nanosecond of work left), in the order they were added.
  std::vector<std::int64_t> advance_to(SimTime t);

  [[nodiscard]] SimTime now() const { return now_; }
  [[nodiscard]] std::size_t size() const { return alive_; }
  /// Current rate of each alive flow, in insertion order (bytes/s); re-solves if needed.
  /// O(F log F): for tests and diagnostics.
  [[nodiscard]] const std::vector<double>& rates();
  [[nodiscard]] const std::vector<double>& capacities() const { return capacities_; }
  /// Number of rate re-solves so far (instants at which the set of flows had changed).
  [[nodiscard]] std::int64_t solves() const { return solves_; }
  /// Flow rates recomputed so far, summed over the re-solves (a full re-solve would add the
  /// number of alive flows each time).
  [[nodiscard]] std::int64_t flows_resolved() const { return flows_resolved_; }

 private:
  // The fields every re-solve walks, packed apart from the rest (24 bytes a flow).
  struct HotFlow {
    std::span<const ResourceUse> uses;
    std::uint32_t visit = 0;                // component walk stamp
    bool alive = false;
    bool frozen = false;
    bool capped = false;                    // finite rate cap (Flow::rate_cap)
    bool wide = false;                      // uses.size() >= kWideUses
  };
  struct Flow {
    std::vector<std::uint32_t> member_pos;  // index of this flow in members_[uses[i].resource]
    double remaining = 0;                   // bytes left at `since`
    double rate = 0;                        // bytes/s
    double rate_cap = 0;
    double finish = 0;                      // projected finish, seconds since time zero
    SimTime since;
    std::int64_t tag = 0;
    std::uint64_t seq = 0;                  // insertion number
    bool is_new = false;
  };
  // An entry of the finish-time heap carries its keys, so sifting reads only the heap array.
  struct HeapEntry {
    double finish = 0;
    std::uint64_t seq = 0;
    int slot = 0;
  };
  struct Member {
    int flow = 0;
    std::uint32_t use = 0;  // index into the flow's uses
  };

  void resolve();
  void collect_components();
  std::size_t walk_components();
  void fill_component();
  void fill_by_scan(std::size_t unfrozen_flows);
  void fill_by_heap(std::size_t unfrozen_flows);
  std::size_t freeze_next(double key, int r, std::size_t& next_cap, double& level);
  [[nodiscard]] double saturation_level(int r) const;
  void freeze(int f, double rate);
  void apply_rates();
  void remove(int f);
  void add_members(int f);
  void remove_members(int f);
  void add_wide(int f);
  void remove_wide(int f);
  template <typename Visit>
  void for_each_flow_on(int resource, Visit&& visit) const;
  double remaining_at(const Flow& f, SimTime t) const;
  static bool heap_less(const HeapEntry& a, const HeapEntry& b) {
    return a.finish < b.finish || (a.finish == b.finish && a.seq < b.seq);
  }
  void heap_sift_up(std::size_t i);
  void heap_sift_down(std::size_t i);
  void heap_place(std::size_t i, const HeapEntry& e);
  void heap_push(int f);
  void heap_erase(int f);
  void heap_update(int f);
  void heap_rebuild();

  std::vector<double> capacities_;
  std::vector<Flow> flows_;             // slots; dead slots are reused (free_)
  std::vector<HotFlow> hot_;            // per slot, beside flows_
  std::vector<int> free_;
  std::vector<std::vector<Member>> members_;  // per resource: the alive narrow flows crossing it
  std::vector<std::int32_t> wide_refs_;  // per resource: alive wide flows crossing it
  std::vector<int> wide_alive_;          // alive wide flows, in the order they were added
  std::vector<std::vector<std::uint8_t>> wide_rows_;  // per slot: row[r] = 1 when a wide flow uses r
  std::vector<std::span<const ResourceUse>> dirty_spans_;  // use lists of removed flows
  std::vector<int> dirty_flows_;        // added flows (those crossing no resource need them)
  std::vector<std::uint32_t> resource_visit_;
  std::uint32_t stamp_ = 0;
  bool last_walk_reached_all_ = false;
  // Scratch of one re-solve.
  std::vector<int> comp_flows_;
  std::vector<int> comp_resources_;
  std::vector<double> used_;            // U_r
  std::vector<double> weight_;          // W_r
  std::vector<int> unfrozen_;           // unfrozen flows crossing r
  std::vector<double> level_key_;       // current L_r
  std::vector<std::pair<double, int>> level_heap_;
  std::vector<std::pair<double, int>> capped_;  // (rate cap, slot) of capped flows
  std::vector<int> active_;            // resources with unfrozen flows (scan)
  std::vector<int> round_frozen_;      // flows frozen in the current round
  std::vector<double> new_rate_;        // per slot
  std::vector<int> changed_;
  std::vector<HeapEntry> heap_;         // indexed min-heap of flows by (finish, seq)
  std::vector<int> heap_pos_;           // per slot: its index in heap_, -1 when not in it
  std::vector<double> rates_out_;
  SimTime now_ = SimTime::zero();
  std::size_t alive_ = 0;
  std::uint64_t next_seq_ = 0;
  std::int64_t solves_ = 0;
  std::int64_t flows_resolved_ = 0;
};

}  // namespace ckptsim
