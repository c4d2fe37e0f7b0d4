#include "ckptsim/network/collectives.hpp"

#include <algorithm>
#include <stdexcept>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

void add_use(std::vector<ResourceUse>& uses, int resource, double weight) {
  for (ResourceUse& u : uses) {
    if (u.resource == resource) {
      u.weight += weight;
      return;
    }
  }
  uses.push_back({resource, weight});
}

void add_route_uses(std::vector<ResourceUse>& uses, const Topology& topology, const std::vector<int>& route,
                    double streams, double nic_efficiency) {
  for (int r : route) add_use(uses, r, topology.machine_of_nic(r) >= 0 ? streams / nic_efficiency : streams);
}

namespace {

// Uses of a ring whose edge leaving machine i goes to machine (i+1) mod N, `streams` parallel
// streams per edge (weight), plus each machine's NVLink port when `intra` is set. NIC weights
// are divided by the achieved fraction f; host staging adds streams/G on the sender's PCIe.
std::vector<ResourceUse> machine_ring_uses(const Topology& topology, double streams, bool intra,
                                           const CollectiveShape& shape) {
  std::vector<ResourceUse> uses;
  const int n = topology.machines();
  uses.reserve(static_cast<std::size_t>(4 * n + 2 * topology.leaves()));
  if (intra) {
    for (int i = 0; i < n; ++i) uses.push_back({topology.nvlink(i), 1.0});
  }
  if (n < 2) return uses;
  const double nic = streams / shape.nic_efficiency;
  const double staged = streams / std::max(1, shape.gpus_per_machine);
  for (int i = 0; i < n; ++i) {
    const int next = (i + 1) % n;
    if (topology.leaf_of(i) == topology.leaf_of(next)) {
      // Same leaf (or single switch): NIC send of i, NIC receive of next; no shared link between.
      uses.push_back({topology.nic_send(i), nic});
      uses.push_back({topology.nic_recv(next), nic});
    } else {
      add_route_uses(uses, topology, topology.route(i, next), streams, shape.nic_efficiency);
    }
    if (shape.host_staging) uses.push_back({topology.pcie(i), staged});
  }
  return uses;
}

}  // namespace

namespace {

// One ring per machine over its G GPUs (NVLink only).
FlowPhase within_machine_phase(const Topology& topology, int g, double bytes, SimTime alpha, int rounds) {
  FlowPhase p;
  p.latency = alpha * static_cast<std::int64_t>(rounds * (g - 1));
  p.bytes = rounds * (g - 1.0) / g * bytes;
  for (int i = 0; i < topology.machines(); ++i) p.uses.push_back({topology.nvlink(i), 1.0});
  return p;
}

// G rings (one per local rank) over the N machines, each moving `bytes` per rank.
FlowPhase across_machines_phase(const Topology& topology, const CollectiveShape& shape, double bytes, int rounds) {
  const int machines = topology.machines();
  FlowPhase p;
  p.latency = shape.alpha * static_cast<std::int64_t>(rounds * (machines - 1));
  p.bytes = rounds * (machines - 1.0) / machines * bytes;
  p.uses = machine_ring_uses(topology, static_cast<double>(std::max(1, shape.gpus_per_machine)), false, shape);
  return p;
}

}  // namespace

std::vector<FlowPhase> collective_phases(const Topology& topology, const CollectiveShape& shape) {
  const int machines = topology.machines();
  const int g = std::max(1, shape.gpus_per_machine);
  const auto n = static_cast<double>(machines) * g;
  const int rounds = shape.kind == CollectiveKind::all_reduce ? 2 : 1;
  std::vector<FlowPhase> phases;
  if (shape.bytes <= 0) return phases;
  if (shape.scope == CollectiveScope::within_machine) {
    if (g > 1) phases.push_back(within_machine_phase(topology, g, shape.bytes, shape.alpha, rounds));
    return phases;
  }
  if (shape.scope == CollectiveScope::across_machines) {
    // One stream per local rank; the group's buffer is S per rank.
    if (machines > 1) phases.push_back(across_machines_phase(topology, shape, shape.bytes / g, rounds));
    return phases;
  }
  if (n <= 1) return phases;
  if (shape.algorithm == CollectiveAlgorithm::ring || machines == 1 || g == 1) {
    FlowPhase p;
    p.latency = shape.alpha * static_cast<std::int64_t>(rounds * (n - 1));
    p.bytes = rounds * (n - 1) / n * shape.bytes;
    p.uses = machine_ring_uses(topology, 1.0, g > 1, shape);
    phases.push_back(std::move(p));
    return phases;
  }
  FlowPhase inter = across_machines_phase(topology, shape, shape.bytes / g, rounds);
  FlowPhase intra = within_machine_phase(topology, g, shape.bytes, shape.alpha, 1);
  switch (shape.kind) {
    case CollectiveKind::all_gather:
      phases.push_back(std::move(inter));
      phases.push_back(std::move(intra));
      break;
    case CollectiveKind::reduce_scatter:
      phases.push_back(std::move(intra));
      phases.push_back(std::move(inter));
      break;
    case CollectiveKind::all_reduce:
      phases.push_back(intra);
      phases.push_back(std::move(inter));
      phases.push_back(std::move(intra));
      break;
  }
  return phases;
}

SimTime collective_time_alpha_beta(int machines, const CollectiveShape& shape, double nic, double nvlink, double pcie) {
  const int g = std::max(1, shape.gpus_per_machine);
  const double n = static_cast<double>(machines) * g;
  const std::int64_t rounds = shape.kind == CollectiveKind::all_reduce ? 2 : 1;
  if (shape.bytes <= 0 || n <= 1) return SimTime::zero();
  // What one machine's outgoing traffic can reach: f·B, and G·P when staged through the host.
  double network = shape.nic_efficiency * nic;
  if (shape.host_staging && pcie > 0) network = std::min(network, g * pcie);
  if (shape.algorithm == CollectiveAlgorithm::ring || machines == 1 || g == 1) {
    double bottleneck = machines > 1 ? network : nvlink;
    if (machines > 1 && g > 1) bottleneck = std::min(network, nvlink);
    return shape.alpha * (rounds * static_cast<std::int64_t>(n - 1)) +
           transfer_time(static_cast<double>(rounds) * (n - 1) / n * shape.bytes, bottleneck);
  }
  const SimTime inter = shape.alpha * (rounds * (machines - 1)) +
                        transfer_time(static_cast<double>(rounds) * (machines - 1.0) / machines * shape.bytes / g, network / g);
  const SimTime intra = shape.alpha * static_cast<std::int64_t>(g - 1) + transfer_time((g - 1.0) / g * shape.bytes, nvlink);
  return inter + intra * rounds;
}

}  // namespace ckptsim
