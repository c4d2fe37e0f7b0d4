#pragma once
// The parameter count of a model's architecture: the one count every path uses. The loader's
// /model/parameters (and so the checkpoint's size), the model presets (preset_parameters), the
// megatron model's per-rank sums (workload/megatron_iteration.cpp) and the ZeRO-3 engines'
// transformer shape (workload/transformer.hpp) are all built from transformer_parameter_count().
//
// Symbols: h hidden, f FFN width, a heads, k key/value heads (grouped-query attention; k = a
// without it), d = h / a the head width, L layers, V vocabulary, E experts per layer (1: dense),
// g = 2 for a gated FFN (SwiGLU: gate and up matrices), else 1.
// Two layer styles, as /model/gated_ffn selects them (the megatron model's reading):
//   GPT/BERT style (not gated): a bias on every linear layer, two LayerNorms (weight and bias)
//     per layer, a final LayerNorm of 2h;
//   Llama style (gated): no biases, two RMSNorms (weight only) per layer, a final RMSNorm of h.
// One layer:
//   attention matrices   Q, K, V, O        h·(a + 2k)·d + a·d·h   (4h² without GQA)
//   attention biases     Q, K, V / O       (a + 2k)·d / h          (not gated)
//   norms                                  4h (LayerNorms) or 2h (RMSNorms)
//   router                                 h·E                     (E > 1 only)
//   one FFN (an expert)  matrices          (g + 1)·h·f
//                        biases FC1 / FC2  g·f / h                 (not gated)
//   layer                attention + norms + router + E FFNs
// Model: L·layer + V·h (input embedding) + V·h (output projection, untied only) + final norm.
// Without GQA, gating, untied embeddings or experts this is L·(4h² + 2hf + 9h + f) + V·h + 2h
// (docs/models.md). Position embeddings (sequence_length·h, < 0.01 % of the models here) are
// left out. Tensor parallelism over t ranks divides the parts named *_split below and keeps
// the others whole on every rank (Megatron-LM: ColumnParallelLinear splits its bias,
// RowParallelLinear keeps its bias whole, norms and the router are replicated).
#include <optional>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct TransformerParameterCount {
  // One layer.
  double attention_matrices = 0;      ///< Q, K, V, O weights (split)
  double attention_bias_split = 0;    ///< Q, K, V biases (split); 0 when gated
  double attention_bias_whole = 0;    ///< O bias (whole); 0 when gated
  double norms = 0;                   ///< the layer's two norms (whole)
  double router = 0;                  ///< h·E with experts, else 0 (whole)
  double ffn_matrices = 0;            ///< one FFN's (one expert's) weights (split)
  double ffn_bias_split = 0;          ///< its FC1 bias (split); 0 when gated
  double ffn_bias_whole = 0;          ///< its FC2 bias (whole); 0 when gated
  int experts = 1;                    ///< FFNs per layer
  int layers = 0;
  // The model's ends.
  double embedding = 0;               ///< input embedding V·h (split by vocabulary)
  double output_projection = 0;       ///< V·h when untied, else 0 (split by vocabulary)
  double final_norm = 0;              ///< (whole)

  /// One FFN (one expert), biases included.
  [[nodiscard]] double ffn() const { return ffn_matrices + ffn_bias_split + ffn_bias_whole; }
  /// One layer: attention, norms, router and every expert.
  [[nodiscard]] double layer() const {
    return attention_matrices + attention_bias_split + attention_bias_whole + norms + router + experts * ffn();
  }
  /// The model: L layers, the embeddings and the final norm.
  [[nodiscard]] double total() const { return layers * layer() + embedding + output_projection + final_norm; }
};

/// The count of `model`'s architecture (layers, hidden, ffn, heads, kv_heads, vocabulary,
/// gated_ffn, tied_embeddings, experts; a kv_heads below 1 counts as heads). nullopt when layers,
/// hidden, ffn, heads, vocabulary or experts is below 1 (nothing to count).
std::optional<TransformerParameterCount> transformer_parameter_count(const ModelSpec& model);

}  // namespace ckptsim
