#pragma once
// The cluster a scenario trains on: machines, their GPUs and memories, and the network
// (part of Scenario, scenario.hpp; on its own so the network layer needs no more of it).
//
// SI units: sizes in bytes (double), bandwidths in bytes per second, FLOP rates in FLOP/s.
// Bandwidths per machine are unidirectional (each direction of a full-duplex NIC carries this
// much).
#include <string>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

struct NetworkSpec {
  std::string topology = "single-switch";  ///< "single-switch" | "leaf-spine"
  SimTime latency = microseconds(10);      ///< per message
  double oversubscription = 1.0;           ///< leaf-spine uplink oversubscription ratio (>= 1)
  int machines_per_leaf = 16;              ///< leaf-spine only
  std::string collective = "ring";         ///< iteration model: "ring" | "hierarchical" (NCCL algorithm)
  /// Achieved fraction of network_bandwidth at each NIC (presets.hpp, "bandwidth factors"):
  /// collectives (NCCL all-gather / reduce-scatter) and point-to-point checkpoint sends. The
  /// loader fills them from the instance preset (the collective one at the machine count).
  double collective_efficiency = 1.0;
  double p2p_efficiency = 1.0;
};

struct ClusterSpec {
  std::string instance;                    ///< preset name, "" when fully explicit
  int machines = 0;
  int standby_machines = 0;
  int gpus_per_machine = 8;
  double gpu_memory_bytes = 0;             ///< per GPU
  double cpu_memory_bytes = 0;             ///< per machine
  double network_bandwidth = 0;            ///< bytes/s per machine, each direction
  double gpu_cpu_bandwidth = 0;            ///< bytes/s per GPU over PCIe, each direction
  double nvlink_bandwidth = 0;             ///< bytes/s per GPU inside a machine (NVLink/NVSwitch)
  double gpu_peak_flops = 0;               ///< FLOP/s per GPU at the training precision (dense)
  double gpu_memory_bandwidth = 0;         ///< bytes/s per GPU, HBM (optimizer step)
  /// false: the NIC cannot reach GPU memory, so inter-node traffic is staged through host
  /// memory and crosses each GPU's PCIe link (host staging, network/collectives.hpp).
  bool gpudirect_rdma = true;
  NetworkSpec network;
};

}  // namespace ckptsim
