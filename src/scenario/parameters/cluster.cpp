// Parameters owned by cluster: the machines: how many, their CPU memory and links (an instance preset
// fills them). Read by scenario/cluster.hpp, scenario/presets.hpp. Rows of the parameter table
// (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"
#include "ckptsim/scenario/presets.hpp"

namespace ckptsim {

ParameterBlock cluster_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  return {"cluster", {
    {"/cluster/instance", U::name, C::none, P::optional, R::iteration | R::costs, "instance preset filling the machine fields below",
     [](Scenario& s) -> FieldRef { return &s.cluster.instance; }, &instance_preset_names},
    {"/cluster/machines", U::integer, C::at_least_one, P::required, R::iteration | R::costs | R::run | R::placement, "machines training (N)",
     [](Scenario& s) -> FieldRef { return &s.cluster.machines; }},
    {"/cluster/standby_machines", U::integer, C::non_negative, P::defaulted, R::run | R::placement, "idle spares that replace failed machines at once",
     [](Scenario& s) -> FieldRef { return &s.cluster.standby_machines; }},
    {"/cluster/gpus_per_machine", U::integer, C::at_least_one, P::from_instance, R::iteration | R::costs, "GPUs per machine",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpus_per_machine; }},
    {"/cluster/cpu_memory", U::bytes, C::positive, P::from_instance, R::iteration | R::placement, "CPU memory per machine (holds in-memory checkpoints)",
     [](Scenario& s) -> FieldRef { return &s.cluster.cpu_memory_bytes; }},
    {"/cluster/network_bandwidth", U::bandwidth, C::positive, P::from_instance, R::iteration | R::costs, "inter-machine bandwidth per machine, each direction",
     [](Scenario& s) -> FieldRef { return &s.cluster.network_bandwidth; }},
    {"/cluster/gpu_cpu_bandwidth", U::bandwidth, C::positive, P::from_instance, R::iteration | R::costs, "GPU-to-CPU (PCIe) bandwidth per GPU, each direction",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpu_cpu_bandwidth; }},
    {"/cluster/gpudirect_rdma", U::boolean, C::none, P::defaulted, R::iteration | R::costs, "the NIC reaches GPU memory directly; false: inter-node traffic is staged through host memory over PCIe (default: the instance preset's, else true)",
     [](Scenario& s) -> FieldRef { return &s.cluster.gpudirect_rdma; }},
  }};
  // clang-format on
}

}  // namespace ckptsim
