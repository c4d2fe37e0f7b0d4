// The parameter count of a model's architecture (parameter_count.hpp).
#include "ckptsim/scenario/parameter_count.hpp"

namespace ckptsim {

std::optional<TransformerParameterCount> transformer_parameter_count(const ModelSpec& m) {
  if (m.layers < 1 || m.hidden < 1 || m.ffn < 1 || m.heads < 1 || m.vocabulary < 1 || m.experts < 1) return std::nullopt;
  const double h = m.hidden;
  const double f = m.ffn;
  const double a = m.heads;
  const double k = m.kv_heads > 0 ? m.kv_heads : m.heads;
  const double d = h / a;
  const double g = m.gated_ffn ? 2.0 : 1.0;
  const bool biases = !m.gated_ffn;
  TransformerParameterCount c;
  c.attention_matrices = h * (a + 2 * k) * d + a * d * h;
  c.attention_bias_split = biases ? (a + 2 * k) * d : 0.0;
  c.attention_bias_whole = biases ? h : 0.0;
  c.norms = m.gated_ffn ? 2 * h : 4 * h;
  c.router = m.experts > 1 ? h * m.experts : 0.0;
  c.ffn_matrices = (g + 1) * h * f;
  c.ffn_bias_split = biases ? g * f : 0.0;
  c.ffn_bias_whole = biases ? h : 0.0;
  c.experts = m.experts;
  c.layers = m.layers;
  c.embedding = m.vocabulary * h;
  c.output_projection = m.tied_embeddings ? 0.0 : m.vocabulary * h;
  c.final_norm = m.gated_ffn ? h : 2 * h;
  return c;
}

}  // namespace ckptsim
