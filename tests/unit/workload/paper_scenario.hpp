#pragma once
// GEMINI's evaluation setup built in code (the loader's presets give the same values):
// 16 x AWS p4d.24xlarge, GPT-2 100B (GEMINI SOSP '23, Section 7 and Table 2).
//   p4d.24xlarge: 8 x A100-40GB, 400 Gbps network (4 x 100 Gbps EFA) = 50e9 B/s per direction;
//   A100 data sheet: 312 TFLOPS dense FP16/BF16 tensor, NVLink 600 GB/s both ways = 300e9 B/s
//   each way, PCIe gen4 x16 ~25e9 B/s effective each way; 40 GiB HBM; the A100-40GB GPU type's
//   kernel figures (scenario/gpu_types.hpp) for the kernel compute model.
//   GPT-2 100B: hidden 8192, FFN 32768, 124 layers, 64 heads, vocabulary 50265, sequence 512,
//   micro-batch 8; 12 checkpoint bytes per parameter; m = 2, R = 128 MiB, p = 4, mu = 0.8.
#include "ckptsim/scenario/gpu_types.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim::testing {

inline Scenario paper_scenario(int machines = 16) {
  Scenario s;
  s.name = "gpt2-100b-p4d";
  s.cluster.instance = "p4d.24xlarge";
  s.cluster.machines = machines;
  apply_gpu_type(s.cluster, *find_gpu_type("a100-sxm4-40gb"));
  s.cluster.gpus_per_machine = 8;
  s.cluster.gpu_memory_bytes = 40.0 * 1024 * 1024 * 1024;
  s.cluster.cpu_memory_bytes = 1152.0 * 1024 * 1024 * 1024;
  s.cluster.network_bandwidth = 50e9;
  s.cluster.gpu_cpu_bandwidth = 25e9;
  s.cluster.nvlink_bandwidth = 300e9;
  s.cluster.gpu_peak_flops = 312e12;
  s.cluster.gpu_memory_bandwidth = 1555e9;  // A100-40GB data sheet: 1,555 GB/s HBM2
  s.model.preset = "gpt2-100b";
  s.model.layers = 124;
  s.model.hidden = 8192;
  s.model.ffn = 32768;
  s.model.heads = 64;
  s.model.vocabulary = 50265;
  // transformer_parameters(): 124 x (4h^2 + 2hf + 9h + f) + V·h + 2h
  const double h = 8192, f = 32768;
  s.model.parameters = 124 * (4 * h * h + 2 * h * f + 9 * h + f) + 50265 * h + 2 * h;
  s.training.micro_batch = 8;
  s.training.sequence_length = 512;
  s.strategy.replicas = 2;
  s.strategy.placement = PlacementScheme::group;
  s.strategy.gpu_buffer_bytes = 128.0 * 1024 * 1024;
  s.strategy.sub_buffers = 4;
  s.strategy.span_safety = 0.8;
  s.strategy.scheduler = SchedulerKind::gemini;
  return s;
}

}  // namespace ckptsim::testing
