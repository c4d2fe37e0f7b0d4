// Costs the replica-group strategies share (replica_group_costs.hpp).
#include "replica_group_costs.hpp"

#include <algorithm>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "ckptsim/core/checked_time.hpp"
#include "ckptsim/network/achieved_bandwidth.hpp"
#include "ckptsim/scenario/restart_phases.hpp"

namespace ckptsim::strategies {

void set_replica_group_costs(const CostInputs& in, StrategyCosts& c) {
  const StrategySpec& st = in.s.strategy;
  c.replica_groups = st.replica_groups;
  c.min_groups = st.min_replica_groups;
  c.step_timeout = st.step_timeout;
  c.heartbeat_timeout = st.heartbeat_timeout;
  c.stall = SimTime::zero();
  c.completion = SimTime::zero();
  const double group_shard = in.s.checkpoint_bytes() * st.replica_groups / std::max(1, in.s.cluster.machines);
  const double bandwidth = st.heal_bandwidth.value_or(p2p_machine_send_bandwidth(in.s.cluster));
  c.heal = checked_transfer_time(group_shard, bandwidth,
                                 st.heal_bandwidth ? "/strategy/heal_bandwidth" : "/cluster/network/p2p_efficiency",
                                 "a replica group's heal from a live peer");
  if (in.s.failures.restart_from_phases) {
    const GroupRestart group = replica_group_restart(in.s.failures.restart_phases, in.s.cluster, st.replica_groups);
    c.reconfigure = group.across_groups;
    c.group_restart = group.total();
  }
}

SimTime cross_group_allreduce(const Scenario& s, double bytes_per_parameter, const std::string& what,
                              const std::string& gloo_what) {
  const StrategySpec& st = s.strategy;
  const int groups = std::max(1, st.replica_groups);
  const ClusterSpec& cl = s.cluster;
  const double machine_shard = s.model.parameters * bytes_per_parameter * groups / std::max(1, cl.machines);
  const double ring = 2.0 * (groups - 1) / groups;
  SimTime a = checked_add(
      checked_transfer_time(ring * machine_shard, cl.network.collective_efficiency * cl.network_bandwidth,
                            "/cluster/network_bandwidth", what),
      checked_multiply(cl.network.latency, 2 * static_cast<std::int64_t>(groups - 1), "/cluster/network/latency", what),
      "/cluster/network_bandwidth", what);
  if (st.ft_transport == FtTransport::gloo)
    a = checked_add(a,
                    checked_transfer_time(2.0 * machine_shard, std::max(1, cl.gpus_per_machine) * cl.gpu_cpu_bandwidth,
                                          "/cluster/gpu_cpu_bandwidth", gloo_what),
                    "/cluster/gpu_cpu_bandwidth", what);
  return a;
}

void add_replica_group_costs_json(const StrategyCosts& c, nlohmann::json& out) {
  out["replica_groups"] = c.replica_groups;
  out["min_replica_groups"] = c.min_groups;
  out["heal_s"] = c.heal.seconds();
  out["step_timeout_s"] = c.step_timeout.seconds();
  out["heartbeat_timeout_s"] = c.heartbeat_timeout.seconds();
  if (c.group_restart > SimTime::zero()) {
    out["group_restart_s"] = c.group_restart.seconds();
    out["reconfigure_s"] = c.reconfigure.seconds();
  }
}

}  // namespace ckptsim::strategies
