#pragma once
// A cluster small enough to work by hand: 2 machines of 1 GPU, a 1e9 B/s NIC each way, no
// latency, collectives at line rate, GPUDirect RDMA. A ring collective over the 2 ranks moves
// (n-1)/n = 1/2 of its S bytes through each NIC: S / 2e9 seconds; an all-gather of E fp16
// elements (S = 2E) takes E / 1e9 s, i.e. 1 ms per million elements.
// Model: h hidden, f = 4h, 1 head, vocabulary V, one token per rank (sequence 1, micro-batch
// 1), mixed precision. With h = 1000 and V = 1000 the gathered tensors are E = V·h = 1e6, QKV
// 3e6, O 1e6, FC1 = FC2 4e6 elements (1, 3, 1 and 4 ms of all-gather); biases and LayerNorms
// (<= 4000 elements) are persistent.
// Compute runs at 1e18 FLOP/s (every use under a nanosecond unless a test slows it) and HBM at
// 1e12 B/s.
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim::testing {

inline Scenario tiny_scenario(int layers = 3) {
  Scenario s;
  s.name = "tiny";
  s.cluster.machines = 2;
  s.cluster.gpus_per_machine = 1;
  s.cluster.gpu_memory_bytes = 80.0 * 1024 * 1024 * 1024;
  s.cluster.cpu_memory_bytes = 1e12;
  s.cluster.network_bandwidth = 1e9;
  s.cluster.gpu_cpu_bandwidth = 1e10;
  s.cluster.nvlink_bandwidth = 1e11;
  s.cluster.gpu_peak_flops = 1e18;
  s.cluster.gpu_memory_bandwidth = 1e12;
  s.cluster.network.latency = SimTime::zero();
  s.model.layers = layers;
  s.model.hidden = 1000;
  s.model.ffn = 4000;
  s.model.heads = 1;
  s.model.vocabulary = 1000;
  s.model.parameters = layers * (4e6 + 2 * 4e6 + 9e3 + 4e3) + 1e6 + 2e3;
  s.training.micro_batch = 1;
  s.training.sequence_length = 1;
  s.training.compute_efficiency = 1.0;
  s.storage.bandwidth = 1e9;
  s.training.serialization_bandwidth = 1e9;
  s.strategy.gpu_buffer_bytes = 1e6;
  s.strategy.sub_buffers = 1;
  return s;
}

}  // namespace ckptsim::testing
