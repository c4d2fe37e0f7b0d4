// Live migration as a recovery mechanism (failure/migration.hpp; docs/models.md, "Live
// migration"): an announced hardware failure with a standby free at the last iteration boundary
// before it ends the segment there; the job pauses P (breakdown.migration) while the machine's
// state moves to the standby, and resumes from that boundary with nothing rolled back and no CPU
// memory lost; the standby pool gets a machine back one replacement delay after the boundary.
// Under per-step fault tolerance the machine's replica group leaves the quorum at the boundary
// and rejoins P later. With no standby free the failure happens as any other.
#include <algorithm>
#include <memory>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/failure/migration.hpp"
#include "mechanisms.hpp"

namespace ckptsim {
namespace {

class LiveMigration final : public RecoveryMechanism {
 public:
  explicit LiveMigration(SimTime pause) : pause_(pause) {}

  SegmentChange on_predicted_failure(ReplicaState& st, TrainingSegment& seg) override {
    const FailureEvent& f = st.failures.next();
    const std::int64_t done = seg.completed(st.rate.work(seg.start, f.time));
    const SimTime e = seg.time_to_complete(done);
    const SimTime boundary = std::min(f.time, st.rate.wall_after(seg.start, e));
    if (!st.standbys.take(boundary)) return SegmentChange::none;
    seg.stop_at_boundary(boundary, e);
    const SimTime resume = std::min(seg.run_end, saturating_add(boundary, pause_));
    st.result.breakdown.migration += resume - boundary;
    ++st.result.migrations;
    st.failures.pull();  // the predicted failure was averted
    return seg.resume_after_pause(resume, done, e) ? SegmentChange::restarted : SegmentChange::run_ended;
  }

  bool on_predicted_group_failure(ReplicaState& st, GroupOutages& out, int group, SimTime at) override {
    if (!st.standbys.take(at)) return false;
    ++st.result.migrations;
    out.take_out(group, at, saturating_add(at, pause_));
    st.failures.pull();
    return true;
  }

 private:
  SimTime pause_;
};

class LiveMigrationPlan final : public MechanismPlan {
 public:
  // Once for every replica; a pause beyond the clock is refused here, before any replica runs.
  explicit LiveMigrationPlan(const Scenario& s) : pause_(migration_pause(s)) {}
  std::unique_ptr<RecoveryMechanism> start(ReplicaState& st, std::uint64_t) const override {
    st.result.live_migration = true;
    return std::make_unique<LiveMigration>(pause_);
  }

 private:
  SimTime pause_;
};

}  // namespace

const RecoveryMechanismRow& live_migration_mechanism() {
  static const RecoveryMechanismRow row{
      "failures.migration", "live migration: announced failures move to a standby before they happen",
      [](const Scenario& s) { return migration_modelled(s.failures); },
      [](const Scenario& s, const StrategyCosts&) -> std::shared_ptr<const MechanismPlan> {
        return std::make_shared<LiveMigrationPlan>(s);
      }};
  return row;
}

}  // namespace ckptsim
