#pragma once
// Presets: named instances (machine types) and models that a scenario may start from.
//
// A scenario names `cluster.instance` and/or `model.preset`; the loader copies the preset's
// values into the Scenario first, then every field written explicitly overrides its preset field.
// Units are SI like the Scenario structs: bytes, bytes/s (each direction), FLOP/s.
// Every figure carries its source in presets.cpp.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ckptsim {

/// One published measurement of a collective's achieved bandwidth: at `machines` nodes, the NIC
/// reached `efficiency` x its line rate (presets.cpp gives each point's source).
struct EfficiencyPoint {
  int machines = 0;
  double efficiency = 1.0;
};

struct InstancePreset {
  std::string name;
  std::string description;
  int gpus_per_machine = 0;
  double gpu_memory_bytes = 0;    ///< per GPU
  double cpu_memory_bytes = 0;    ///< per machine
  double network_bandwidth = 0;   ///< bytes/s per machine, each direction
  double gpu_cpu_bandwidth = 0;   ///< bytes/s per GPU over PCIe, each direction (effective)
  double nvlink_bandwidth = 0;    ///< bytes/s per GPU inside the machine, each direction
  double gpu_peak_flops = 0;      ///< FLOP/s per GPU, dense, training precision (bf16/fp16)
  double gpu_memory_bandwidth = 0;  ///< bytes/s per GPU, HBM (data sheet)
  /// Bandwidth factors (published measurements, presets.cpp): collectives' achieved fraction
  /// of the NIC line rate by node count (empty: 1), point-to-point sends' fraction.
  std::vector<EfficiencyPoint> collective_efficiency;
  double p2p_efficiency = 1.0;
  bool gpudirect_rdma = true;       ///< the NIC reads and writes GPU memory directly
  double compute_efficiency = 0.5;  ///< ZeRO-3 achieved fraction of gpu_peak_flops (recomputation counted)
};

struct ModelPreset {
  std::string name;
  std::string description;
  int layers = 0;
  int hidden = 0;
  int ffn = 0;
  int heads = 0;
  int vocabulary = 0;
  /// Parameter count when the architecture is not the GPT/BERT-style transformer that
  /// transformer_parameters() counts (grouped-query attention, gated FFN, untied embeddings).
  std::optional<double> published_parameters;
};

/// The collective factor at `machines` nodes: piecewise-linear in log2(machines) through the
/// points (ordered by machines), the first / last point's value outside them, 1 when empty.
///   f(N) = f_i + (f_{i+1} - f_i) · (log2 N - log2 N_i) / (log2 N_{i+1} - log2 N_i),  N_i <= N <= N_{i+1}
double collective_efficiency_at(const std::vector<EfficiencyPoint>& points, int machines);

/// Every instance preset, in a stable order (`ckptsim list` prints them).
const std::vector<InstancePreset>& instance_presets();
/// Every model preset, in a stable order.
const std::vector<ModelPreset>& model_presets();

/// nullptr when no preset has this name.
const InstancePreset* find_instance_preset(std::string_view name);
const ModelPreset* find_model_preset(std::string_view name);

/// Names for error messages and listings.
std::vector<std::string> instance_preset_names();
std::vector<std::string> model_preset_names();

/// Parameter count of a GPT/BERT-style transformer (multi-head attention with biases, a
/// two-matrix FFN with biases, two LayerNorms per layer, tied input/output embeddings):
///   per layer: Q,K,V,O weights 4h^2 + biases 4h; FFN weights 2·h·ffn + biases ffn + h;
///              two LayerNorms 2·2h                      -> 4h^2 + 2·h·ffn + 9h + ffn
///   model:     layers x per layer + token embeddings vocab·h + final LayerNorm 2h.
/// Position embeddings (sequence_length·h, < 0.01% of the models here) are left out.
double transformer_parameters(int layers, int hidden, int ffn, int vocabulary);

/// The preset's parameter count: published_parameters if set, else transformer_parameters().
double preset_parameters(const ModelPreset& preset);

}  // namespace ckptsim
