#pragma once
// Presets: named instances (machine types) and models that a scenario may start from.
//
// A scenario names `cluster.instance` and/or `model.preset`; the loader copies the preset's
// values into the Scenario first, then every field written explicitly overrides its preset field.
// Units are SI like the Scenario structs: bytes, bytes/s (each direction), FLOP/s.
// Every figure carries its source in presets.cpp (instances, models) or gpu_types.cpp (GPUs).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// One published measurement of a collective's achieved bandwidth: at `machines` nodes, the NIC
/// reached `efficiency` x its line rate (presets.cpp gives each point's source).
struct EfficiencyPoint {
  int machines = 0;
  double efficiency = 1.0;
};

/// A machine type. Its GPU figures come from its GPU type (gpu_types.hpp); the rest from the
/// cloud's instance page or the system's data sheet (`source`).
struct InstancePreset {
  std::string name;
  std::string description;
  std::string source;               ///< URL of the instance page or data sheet
  std::string gpu;                  ///< GPU type (gpu_types.hpp)
  int gpus_per_machine = 0;
  double cpu_memory_bytes = 0;      ///< per machine
  double network_bandwidth = 0;     ///< bytes/s per machine, each direction: the NICs' line rate
  std::string network;              ///< what makes up the line rate ("4 x 100 Gbps EFA")
  int pcie_generation = 0;          ///< the GPU's host link; 0: not PCIe (NVLink-C2C)
  double gpu_cpu_bandwidth = 0;     ///< bytes/s per GPU over the host link, each direction (effective)
  std::string gpu_cpu_source;       ///< measured, or estimated, and where from
  /// Bandwidth factors (published measurements, presets.cpp): collectives' achieved fraction
  /// of the NIC line rate by node count (empty: 1), point-to-point sends' fraction.
  std::vector<EfficiencyPoint> collective_efficiency;
  double p2p_efficiency = 1.0;
  std::string bandwidth_factors;    ///< "measured: ..." or "line rate: ..."
  bool gpudirect_rdma = true;       ///< the NIC reads and writes GPU memory directly
  [[nodiscard]] bool measured_factors() const { return !collective_efficiency.empty() || p2p_efficiency != 1.0; }
};

struct ModelPreset {
  std::string name;
  std::string description;
  int layers = 0;
  int hidden = 0;
  int ffn = 0;
  int heads = 0;
  int vocabulary = 0;
  /// The count the model's authors publish, worked out by hand in presets.cpp from the
  /// architecture (it must equal transformer_parameter_count's); nullopt where none is given.
  std::optional<double> published_parameters;
  bool causal = true;             ///< decoder-only (GPT, Llama); false for encoders (BERT, RoBERTa)
  double dropout = 0.1;           ///< model.dropout the training code applies
  // The architecture beyond the GPT-style layer, read by the megatron model (model.kv_heads ...).
  std::optional<int> kv_heads = std::nullopt;  ///< grouped-query attention; nullopt: one per head
  bool gated_ffn = false;         ///< SwiGLU
  bool tied_embeddings = true;
  int experts = 1;                ///< mixture of experts (1: dense)
  int experts_per_token = 1;      ///< top-k routing
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

/// The model fields the preset fills (the loader starts from these), its name in `preset` and
/// its parameter count (preset_parameters) in `parameters`.
ModelSpec preset_model(const ModelPreset& preset);

/// The preset's parameter count: published_parameters where it has one, else the one count of
/// its architecture (parameter_count.hpp, transformer_parameter_count). Each published count
/// equals that count (presets.cpp counts them by hand; presets_test checks it).
double preset_parameters(const ModelPreset& preset);

/// Whether `model` has the preset's architecture: every field the parameter count reads (layers,
/// hidden, ffn, heads, kv_heads, vocabulary, gated_ffn, tied_embeddings, experts) is the
/// preset's. An edited architecture is counted anew (the loader), and its count is no longer
/// the preset's (run --defaults).
bool has_preset_architecture(const ModelSpec& model, const ModelPreset& preset);

}  // namespace ckptsim
