#pragma once
// The cluster a scenario trains on: machines, their GPUs and memories, and the network
// (part of Scenario, scenario.hpp; on its own so the network layer needs no more of it).
//
// SI units: sizes in bytes (double), bandwidths in bytes per second, FLOP rates in FLOP/s.
// Bandwidths per machine are unidirectional (each direction of a full-duplex NIC carries this
// much).
#include <optional>
#include <string>

#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/bus_curve.hpp"
#include "ckptsim/scenario/kinds.hpp"

namespace ckptsim {

struct NetworkSpec {
  NetworkTopology topology = NetworkTopology::single_switch;
  SimTime latency = microseconds(10);      ///< per message
  double oversubscription = 1.0;           ///< leaf-spine uplink oversubscription ratio (>= 1)
  int machines_per_leaf = 16;              ///< leaf-spine and fat-tree
  int leaves_per_pod = 16;                 ///< fat-tree: leaves under one pod's spine switches
  double pod_oversubscription = 1.0;       ///< fat-tree: a pod's uplinks to the core, ratio (>= 1)
  CollectiveAlgorithm collective = CollectiveAlgorithm::ring;  ///< iteration model (NCCL algorithm)
  /// Achieved fraction of network_bandwidth at each NIC (presets.hpp, "bandwidth factors"):
  /// collectives (NCCL all-gather / reduce-scatter) and point-to-point checkpoint sends. The
  /// loader fills them from the instance preset (the collective one at the machine count).
  double collective_efficiency = 1.0;
  double p2p_efficiency = 1.0;
};

/// What the kernel compute model (workload/kernel_time.hpp) times each operation with, beyond
/// the peak FLOP rate and HBM bandwidth: the GPU type's kernel-level figures
/// (scenario/gpu_types.hpp, each with its source). 0 / nullopt: unknown (no cluster.gpu type
/// and not written); the kernel model then refuses to run unless training.compute_efficiency
/// replaces it.
struct GpuKernelSpec {
  int sms = 0;                             ///< streaming multiprocessors (compute units on AMD)
  double gemm_efficiency = 0;              ///< achieved fraction of the peak inside a GEMM's waves (large-GEMM benchmark)
  double memory_efficiency = 0;            ///< achieved fraction of the HBM bandwidth (STREAM triad)
  std::optional<double> flash_efficiency;  ///< FlashAttention-2 forward + backward, fraction of the peak; nullopt: none published
  SimTime launch_overhead;                 ///< per kernel, on top of its work
  /// K0: each GEMM tile's fixed cost (pipeline fill, output write) in elements of inner depth k;
  /// nullopt: no per-shape sweep, every depth runs at gemm_efficiency (kernel_time.hpp).
  std::optional<double> gemm_depth_overhead;
  /// The inner depth k of the shape gemm_efficiency was measured at (needed with K0).
  std::optional<double> gemm_reference_depth;
  int tile_m = 256;                        ///< GEMM output tile (rows x columns) one SM computes at a time
  int tile_n = 128;
};

struct ClusterSpec {
  std::string instance;                    ///< preset name, "" when fully explicit
  std::string gpu;                         ///< GPU type name (gpu_types.hpp), "" when explicit
  int machines = 0;
  int standby_machines = 0;
  int gpus_per_machine = 8;
  double gpu_memory_bytes = 0;             ///< per GPU
  double cpu_memory_bytes = 0;             ///< per machine
  double network_bandwidth = 0;            ///< bytes/s per machine, each direction
  double gpu_cpu_bandwidth = 0;            ///< bytes/s per GPU over PCIe, each direction
  double nvlink_bandwidth = 0;             ///< bytes/s per GPU inside a machine (NVLink/NVSwitch)
  /// Latency of one ring step of a collective inside a machine (NVLink/NVSwitch, xGMI): NCCL's
  /// tuning model, src/graph/tuning.cc, hwLat[NVLINK][Ring][Simple] = 3.4 us (against 14 us per
  /// network step; docs/references.md). calibrate fits it from single-machine nccl-tests runs.
  SimTime nvlink_latency = nanoseconds(3'400);
  /// Measured nccl-tests curves of collectives inside one machine (the GPU type's; bus_curve.hpp):
  /// a ring reduce-scatter / all-gather, and the all-reduce NCCL picks on a full machine (NVLS on
  /// Hopper, the ring on Ampere). The Megatron model times in-machine collectives by them unless
  /// nvlink_curves is false or the scenario writes nvlink_bandwidth or nvlink_latency.
  std::optional<BusCurve> nvlink_ring_curve;
  std::optional<BusCurve> nvlink_all_reduce_curve;
  int nvlink_curve_gpus = 0;               ///< the GPU count the curves were measured on
  bool nvlink_curves = true;               ///< false: a ring at nvlink_bandwidth, nvlink_latency per step
  double gpu_peak_flops = 0;               ///< FLOP/s per GPU at the training precision (dense)
  double gpu_memory_bandwidth = 0;         ///< bytes/s per GPU, HBM (data sheet)
  GpuKernelSpec kernels;                   ///< the GPU type's kernel-level figures
  /// false: the NIC cannot reach GPU memory, so inter-node traffic is staged through host
  /// memory and crosses each GPU's PCIe link (host staging, network/collectives.hpp).
  bool gpudirect_rdma = true;
  NetworkSpec network;
};

}  // namespace ckptsim
