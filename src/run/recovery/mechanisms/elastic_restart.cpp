// Elastic restart as a recovery mechanism (failure/elastic.hpp; docs/models.md, "Elastic
// restart"): an episode whose lost machines find no standby restarts without their data-parallel
// units instead of waiting, when the minimum size allows it and waiting would stop the job longer
// than the two reshards and the extra restart (the reshard counts as retrieval); until every
// replacement has arrived the job trains at (N - out) / N of its rate (the work rate of the
// replica state), then at the next iteration boundary it stops, reshards back to N machines and
// restarts (retrieval, restart), nothing rolled back. Refused under per-step fault tolerance,
// whose groups already train on without a failed one.
#include <algorithm>
#include <memory>
#include <vector>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/failure/elastic.hpp"
#include "mechanisms.hpp"

namespace ckptsim {
namespace {

class ElasticRestart final : public RecoveryMechanism {
 public:
  explicit ElasticRestart(const ElasticPlan& plan) : plan_(plan), unit_out_(plan.unit_machines.size(), 0) {}

  /// Once every replacement of the units out has arrived, the segment ends at the first iteration
  /// boundary at or after that; the job reshards back to N machines and restarts, nothing rolled
  /// back. Not yet when a failure or the segment's end comes first.
  SegmentChange before_segment(ReplicaState& st, TrainingSegment& seg) override {
    if (st.rate.machines_out() == 0) return SegmentChange::none;
    if (grow_at_ >= seg.target_end || (st.failures.any() && st.failures.next().time <= grow_at_))
      return SegmentChange::none;
    std::int64_t done = 0;
    SimTime e;
    if (grow_at_ > seg.start) {
      const SimTime by_arrival = st.rate.work(seg.start, grow_at_);
      done = seg.completed(by_arrival);
      e = seg.time_to_complete(done);
      if (e < by_arrival) e = seg.time_to_complete(++done);
    }
    const SimTime boundary = st.rate.wall_after(seg.start, e);
    if (boundary >= seg.target_end || (st.failures.any() && st.failures.next().time < boundary))
      return SegmentChange::none;
    seg.stop_at_boundary(boundary, e);
    // The pause: the reshard back to N machines (retrieval), then the restart.
    const SimTime resharded = std::min(seg.run_end, saturating_add(boundary, plan_.grow_reshard));
    const SimTime resume = std::min(seg.run_end, saturating_add(resharded, grow_restart_));
    st.result.breakdown.retrieval += resharded - boundary;
    st.result.breakdown.restart += resume - resharded;
    st.cause_lost(shrink_cause_) += resume - boundary;
    st.result.lost_by_tier[static_cast<std::size_t>(shrink_tier_)] += resume - boundary;
    ++st.result.elastic_grows;
    std::fill(unit_out_.begin(), unit_out_.end(), 0);
    st.rate.set_machines_out(0);
    grow_at_ = SimTime::zero();
    grow_restart_ = SimTime::zero();
    return seg.resume_after_pause(resume, done, e) ? SegmentChange::restarted : SegmentChange::run_ended;
  }

  /// Shrink instead of waiting, when allowed and shorter: the wait from `saved` until the last
  /// replacement outlasts the reshard to the smaller size, the reshard back and the restart.
  EpisodeShortcut instead_of_waiting(ReplicaState& st, SimTime saved) override {
    shortcut_ = {};
    if (st.episode.unplaced.empty() || !(st.episode.replacements_ready > saved)) return shortcut_;
    // Machines whose units are out already cost nothing more: the job is that size, and its
    // grow waits for their replacements too.
    const int out = machines_out_if_shrunk(st);
    const int size = st.scenario.cluster.machines - out;
    if (out == st.rate.machines_out()) {
      shortcut_.machines_out = out;
    } else if (size >= plan_.min_machines) {
      const SimTime reshard = reshard_time(st.scenario, size);
      const SimTime cost = saturating_add(saturating_add(reshard, plan_.grow_reshard), st.episode.restart);
      if (st.episode.replacements_ready - saved > cost) shortcut_ = {out, reshard};
    }
    return shortcut_;
  }

  /// The episode restarted without the units of its machines that found no standby; the job
  /// grows back once every replacement of the units out has arrived.
  void on_recovered(ReplicaState& st, const CompletedRecovery& done) override {
    if (shortcut_.machines_out == 0) return;
    for (int j : st.episode.unplaced) unit_out_[static_cast<std::size_t>(plan_.unit_of[static_cast<std::size_t>(j)])] = 1;
    grow_at_ = std::max(grow_at_, st.episode.replacements_ready);
    if (shortcut_.machines_out == st.rate.machines_out()) return;  // every unit was out already
    st.rate.set_machines_out(shortcut_.machines_out);
    grow_restart_ = std::max(grow_restart_, st.episode.restart);
    shrink_tier_ = done.tier;
    shrink_cause_ = done.first_cause;
    ++st.result.elastic_shrinks;
  }

 private:
  /// The machines out if the job restarted now without the units of this episode's machines
  /// that found no standby (those already out count once).
  int machines_out_if_shrunk(const ReplicaState& st) const {
    int out = st.rate.machines_out();
    std::vector<char> seen;
    for (int j : st.episode.unplaced) {
      const auto u = static_cast<std::size_t>(plan_.unit_of[static_cast<std::size_t>(j)]);
      if (unit_out_[u] != 0) continue;
      if (seen.empty()) seen.assign(unit_out_.size(), 0);
      if (seen[u] != 0) continue;
      seen[u] = 1;
      out += plan_.unit_machines[u];
    }
    return out;
  }

  const ElasticPlan& plan_;
  std::vector<char> unit_out_;  ///< units out of the job, by unit index
  SimTime grow_at_;             ///< when every replacement of the units out has arrived
  SimTime grow_restart_;        ///< the restart after the grow (the shrinks' longest)
  RecoveryTier shrink_tier_ = RecoveryTier::scratch;  ///< the grow's pause counts to these
  int shrink_cause_ = 0;
  EpisodeShortcut shortcut_;    ///< the episode's latest decision
};

class ElasticRestartPlan final : public MechanismPlan {
 public:
  ElasticRestartPlan(const Scenario& s, const StrategyCosts& c) {
    // Per-step fault tolerance trains on without a failed group already (group_outages.hpp).
    if (c.tier == CheckpointTier::per_step)
      throw ModelError("/failures/elastic/min_machines",
                       "absent under per-step fault tolerance, whose groups leave the quorum and train on without "
                       "restarting (an elastic restart would restart the whole job)");
    plan_ = elastic_plan(s);
  }
  std::unique_ptr<RecoveryMechanism> start(ReplicaState& st, std::uint64_t) const override {
    st.result.elastic = true;
    st.episode.track_unplaced = true;
    return std::make_unique<ElasticRestart>(plan_);
  }

 private:
  ElasticPlan plan_;
};

}  // namespace

const RecoveryMechanismRow& elastic_restart_mechanism() {
  static const RecoveryMechanismRow row{
      "failures.elastic", "elastic restart: restart without the lost units instead of waiting, grow back later",
      [](const Scenario& s) { return elastic_modelled(s.failures); },
      [](const Scenario& s, const StrategyCosts& c) -> std::shared_ptr<const MechanismPlan> {
        return std::make_shared<ElasticRestartPlan>(s, c);
      }};
  return row;
}

}  // namespace ckptsim
