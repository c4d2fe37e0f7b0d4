#pragma once
// Per-layer size and FLOPs of a GPT/BERT-style transformer.
//
// Symbols: h hidden, f FFN width, a heads, L layers, V vocabulary, s sequence length,
// b micro-batch (sequences per GPU), n = N·G data-parallel ranks.
// Parameters (the one count, scenario/parameter_count.hpp, of this GPT-style layer):
//   per layer   P_l = 4h^2 + 2hf + 9h + f     (Q,K,V,O + biases; FFN + biases; two LayerNorms)
//   embedding   P_e = V·h (tied with the output projection), final LayerNorm 2h
// Forward FLOPs per rank (a multiply-add = 2 FLOPs; Narayanan et al., "Efficient Large-Scale
// Language Model Training on GPU Clusters Using Megatron-LM", SC '21, Section 5.1):
//   per layer   F_l = b·s·(8h^2 + 4hf) + 4·b·s^2·h     (QKV+O projections, FFN, QK^T and AV)
//   output      F_o = 2·b·s·h·V                        (logits against the tied embedding)
// Backward = 2 x forward; activation recomputation adds one more forward of each layer
// (the output layer is not recomputed).
// GPU memory: gpu_memory.hpp and the engines' terms.
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct TransformerShape {
  int layers = 0;
  double hidden = 0;
  double ffn = 0;
  double heads = 0;
  double vocabulary = 0;
  double sequence = 0;
  double micro_batch = 0;
  bool recompute = true;
  bool mixed_precision = true;
  bool causal = true;                                ///< decoder attention (model.causal)
  AttentionKind attention = AttentionKind::unfused;  ///< training.attention (kernels.hpp)
  double dropout = 0.1;                              ///< model.dropout (0: no dropout kernels or masks)
  CrossEntropyKind cross_entropy = CrossEntropyKind::megatron_fp32;  ///< training.cross_entropy
  GeluKind gelu = GeluKind::fused;                                   ///< training.gelu

  static TransformerShape from(const Scenario& scenario);

  [[nodiscard]] double layer_parameters() const;    ///< P_l
  [[nodiscard]] double embedding_parameters() const;///< P_e + final LayerNorm
  [[nodiscard]] double parameters() const;          ///< L·P_l + P_e + 2h
  [[nodiscard]] double layer_forward_flops() const; ///< F_l, per rank
  [[nodiscard]] double output_forward_flops() const;///< F_o, per rank
  [[nodiscard]] double layer_backward_flops() const;   ///< 2 F_l (+ F_l with recomputation)
  [[nodiscard]] double output_backward_flops() const;  ///< 2 F_o
  [[nodiscard]] double word_bytes() const { return mixed_precision ? 2.0 : 4.0; }  ///< w
};

}  // namespace ckptsim
