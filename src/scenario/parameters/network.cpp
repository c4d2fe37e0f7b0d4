// Parameters owned by network: the network between machines: topology, latency, collectives. Read by
// network/topology.hpp, network/collectives.hpp. Rows of the parameter table (parameters.hpp): each
// says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock network_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"network", {
    {"/cluster/network/topology", U::name, C::none, P::defaulted, R::iteration | R::costs, "network topology",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.topology; }, &topology_names},
    {"/cluster/network/latency", U::duration, C::non_negative, P::defaulted, R::iteration | R::costs, "latency per message",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.latency; }},
    {"/cluster/network/oversubscription", U::number, C::at_least_one, P::defaulted, R::iteration | R::costs, "leaf-spine uplink oversubscription ratio",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.oversubscription; }},
    {"/cluster/network/machines_per_leaf", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "machines under one leaf switch (leaf-spine, fat-tree)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.machines_per_leaf; }},
    {"/cluster/network/leaves_per_pod", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "leaves under one pod's spine switches (fat-tree: leaf, pod spine, core)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.leaves_per_pod; }},
    {"/cluster/network/pod_oversubscription", U::number, C::at_least_one, P::defaulted, R::iteration | R::costs, "fat-tree: oversubscription of a pod's uplinks to the core (beyond the leaves')",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.pod_oversubscription; }},
    {"/cluster/network/collective", U::name, C::none, P::defaulted, R::iteration | R::costs, "collective algorithm of the iteration model (NCCL)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.collective; }, &collective_names},
    {"/cluster/network/collective_efficiency", U::number, C::unit_interval, P::defaulted, R::iteration | R::costs, "achieved fraction of network_bandwidth for collectives (default: the instance preset's measurements at this machine count, else 1)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.collective_efficiency; }},
    {"/cluster/network/p2p_efficiency", U::number, C::unit_interval, P::defaulted, R::iteration | R::costs, "achieved fraction of network_bandwidth for point-to-point checkpoint sends (default: the instance preset's, else 1)",
     [](Scenario& s) -> FieldRef { return &s.cluster.network.p2p_efficiency; }},
  }};
  // clang-format on
  static constexpr ReadCondition kLeaves{
      [](const Scenario& s) { return s.cluster.network.topology != NetworkTopology::single_switch; },
      "cluster.network.topology is \"leaf-spine\" or \"fat-tree\""};
  static constexpr ReadCondition kPods{
      [](const Scenario& s) { return s.cluster.network.topology == NetworkTopology::fat_tree; },
      "cluster.network.topology is \"fat-tree\""};
  row_of(block, "/cluster/network/machines_per_leaf").read_when = &kLeaves;
  row_of(block, "/cluster/network/oversubscription").read_when = &kLeaves;
  row_of(block, "/cluster/network/leaves_per_pod").read_when = &kPods;
  row_of(block, "/cluster/network/pod_oversubscription").read_when = &kPods;
  return block;
}

}  // namespace ckptsim
