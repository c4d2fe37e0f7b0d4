// Recovery from in-memory checkpoints (tier memory: gemini, in-memory-blocking, erasure-coded,
// async-two-phase with a local tier; run_model.hpp, "tiers"): from CPU memory unless, for some
// machine i, every holder of i's checkpoint was replaced since the latest complete in-memory
// checkpoint (erasure-coded: more than p machines of some coding group), `local` when no machine
// lost its CPU memory since then, else `peer`; otherwise the latest persistent upload
// (`storage`), else the initial state (`scratch`). A completed in-memory checkpoint refills every
// holder; after a storage recovery CPU memory holds nothing usable until the next one completes.
// After a detected silent corruption, an in-memory state only while it is still the newest in
// memory.
#include "../replica_loop.hpp"
#include "policies.hpp"

namespace ckptsim {
namespace {

class MemoryPolicy final : public PolicyBase {
 public:
  MemoryPolicy(const ReplicaInputs& in, ReplicaState&) : PolicyBase(in.costs) {}

  template <typename Clock>
  void note_completed(const Clock& clock, SimTime e, SimTime lineage0, ReplicaState& st) {
    if (auto ck = clock.latest_checkpoint(e)) {
      st.states.memory = version_of(*ck, lineage0);
      st.memory.refill();
    }
    if (auto ck = clock.latest_persistent(e)) st.states.persistent = version_of(*ck, lineage0);
  }

  template <typename Clock>
  CleanStates clean_states(const Clock& clock, SimTime e, SimTime lineage0, const ReplicaState& st) const {
    return {newest(clock.latest_checkpoint(e), st.states.memory, lineage0),
            newest(clock.latest_persistent(e), st.states.persistent, lineage0)};
  }

  [[nodiscard]] RecoveryTarget choose_target(const ReplicaState& st) const {
    if (st.states.memory && st.memory.recoverable()) return from_memory(st);
    return persistent_or_scratch(st);
  }

  [[nodiscard]] RecoveryTarget choose_clean(const ReplicaState& st) const {
    const CleanStates& c = st.episode.corruption->clean;
    if (c.memory && st.states.memory && st.states.memory->iteration == c.memory->iteration &&
        st.states.memory->lineage == c.memory->lineage && st.memory.recoverable())
      return from_memory(st);
    return PolicyBase::choose_clean(st);
  }

 private:
  /// The in-memory state: `peer` when any machine's CPU memory is empty since the latest
  /// complete checkpoint (replaced in this episode, or in an earlier one: it got its own shard
  /// back from its peers, but still holds none of the shards it stores for others, and its own
  /// shard is only on its peers until the next checkpoint completes).
  static RecoveryTarget from_memory(const ReplicaState& st) {
    return {*st.states.memory, st.memory.some_machine_empty() ? RecoveryTier::peer : RecoveryTier::local};
  }
};

SegmentPattern memory_pattern(const StrategyCosts& c) { return SegmentPattern::periodic(c, {true, true, false}); }

void memory_terms(const Scenario& s, const StrategyCosts& c, std::vector<HorizonTerm>& terms) {
  checkpoint_horizon_terms(s, c, c.stall, terms);
  if (c.persistent_every_iterations > 0) terms.push_back({"/storage/bandwidth", "a persistent upload", c.upload});
}

}  // namespace

const RecoveryPolicyRow& memory_policy() {
  static const RecoveryPolicyRow row{CheckpointTier::memory,
                                     "memory",
                                     &simulate_replica<MemoryPolicy, SegmentClock, SteppedClock>,
                                     &memory_pattern,
                                     &segment_failure_free,
                                     true,
                                     false,
                                     &slowest_memory_retrieval,
                                     &memory_terms};
  return row;
}

}  // namespace ckptsim
