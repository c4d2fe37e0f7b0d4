// Elastic restart's units and reshard time (failure/elastic.hpp).
#include "ckptsim/failure/elastic.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/core/error.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/workload/parallelism_model.hpp"

namespace ckptsim {

bool elastic_modelled(const FailureSpec& spec) { return spec.elastic.min_machines.has_value(); }

int ElasticPlan::smallest_unit() const {
  return unit_machines.empty() ? 0 : *std::min_element(unit_machines.begin(), unit_machines.end());
}

ElasticPlan elastic_plan(const Scenario& s) {
  ElasticPlan plan;
  plan.unit_of = parallelism_model(s.training.parallelism).data_parallel_units(s);
  for (int u : plan.unit_of) {
    if (static_cast<std::size_t>(u) >= plan.unit_machines.size()) plan.unit_machines.resize(static_cast<std::size_t>(u) + 1, 0);
    ++plan.unit_machines[static_cast<std::size_t>(u)];
  }
  plan.min_machines = static_cast<int>(s.failures.elastic.min_machines.value_or(s.cluster.machines));
  if (s.cluster.machines - plan.smallest_unit() < 1)
    throw ModelError("/failures/elastic/min_machines",
                     fmt::format("absent: every data-parallel unit of this layout spans all {} machines (one model replica "
                                 "holds parts on each), so the job cannot shrink",
                                 s.cluster.machines));
  if (s.cluster.machines - plan.smallest_unit() < plan.min_machines)
    throw ModelError("/failures/elastic/min_machines",
                     fmt::format("at most {} (/cluster/machines {} less one data-parallel unit of {} machine(s)); with {} "
                                 "the job could never shrink",
                                 s.cluster.machines - plan.smallest_unit(), s.cluster.machines, plan.smallest_unit(),
                                 plan.min_machines));
  (void)reshard_time(s, plan.min_machines);  // the longest reshard: refused here if beyond the clock
  plan.grow_reshard = reshard_time(s, s.cluster.machines);
  return plan;
}

SimTime reshard_time(const Scenario& s, std::int64_t machines) {
  if (s.failures.elastic.reshard) return *s.failures.elastic.reshard;
  return checked_transfer_time(s.checkpoint_bytes() / static_cast<double>(std::max<std::int64_t>(1, machines)),
                               p2p_machine_send_bandwidth(s.cluster), "/failures/elastic/reshard",
                               "resharding the training state");
}

}  // namespace ckptsim
