// The replica state of run/recovery/replica_state.hpp.
#include "ckptsim/run/recovery/replica_state.hpp"

#include <cmath>

#include "ckptsim/core/random.hpp"

namespace ckptsim {

SimTime WorkRate::shrunk(SimTime w) const {
  const long double n = machines_;
  return SimTime::from_ns(static_cast<std::int64_t>(static_cast<long double>(w.ns()) * (n - out_) / n));
}

SimTime WorkRate::wall_after(SimTime from, SimTime w) {
  if (out_ == 0) return slow_.wall_after_work(from, w);
  const long double n = machines_;
  const long double need = std::ceil(static_cast<long double>(w.ns()) * n / (n - out_));
  return slow_.wall_after_work(from, need < 9.2e18L ? SimTime::from_ns(static_cast<std::int64_t>(need)) : SimTime::max());
}

ReplicaState::ReplicaState(const ReplicaInputs& in, std::uint64_t replica)
    : scenario(in.scenario),
      costs(in.costs),
      replica_index(replica),
      failures(with_fault_model(make_failure_source(FailureSourceContext{in.scenario.failures, in.scenario.cluster.machines,
                                                                         in.scenario.run.seed, replica, in.trace}),
                                in.scenario.failures, in.scenario.cluster.machines, in.scenario.run.seed, replica)),
      rate(in.scenario.failures, in.scenario.cluster.machines, in.scenario.run.seed, replica),
      standbys(in.scenario.failures.replacement, in.scenario.cluster.standby_machines,
               make_stream(in.scenario.run.seed, replica, RandomComponent::replacement)),
      memory(in.holders) {
  failures.pull();
  result.causes = in.causes;
  result.failures_by_cause.assign(in.causes->size(), 0);
  result.lost_by_cause.assign(in.causes->size(), SimTime::zero());
}

bool ReplicaState::replace_machine(int j, SimTime failed_at, SimTime detected) {
  ++result.machines_replaced;
  memory.lose(j);
  states.local_lost = true;
  const StandbyPool::Replacement r = standbys.replace(failed_at, detected);
  episode.replacements_ready = std::max(episode.replacements_ready, r.ready);
  if (!r.standby && episode.track_unplaced) episode.unplaced.push_back(j);
  return r.standby;
}

}  // namespace ckptsim
