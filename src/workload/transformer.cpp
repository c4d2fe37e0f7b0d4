#include "ckptsim/workload/transformer.hpp"

#include <stdexcept>

#include "ckptsim/core/error.hpp"
#include "ckptsim/scenario/parameter_count.hpp"

namespace ckptsim {

TransformerShape TransformerShape::from(const Scenario& scenario) {
  const ModelSpec& m = scenario.model;
  if (m.layers < 1 || m.hidden < 1 || m.ffn < 1 || m.heads < 1 || m.vocabulary < 1) {
    throw ModelError("/model", "the iteration model needs layers, hidden, ffn, heads and vocabulary of at least 1");
  }
  TransformerShape s;
  s.layers = m.layers;
  s.hidden = m.hidden;
  s.ffn = m.ffn;
  s.heads = m.heads;
  s.vocabulary = m.vocabulary;
  s.sequence = scenario.training.sequence_length;
  s.micro_batch = scenario.training.micro_batch;
  s.recompute = scenario.training.activation_recomputation;
  s.mixed_precision = scenario.training.mixed_precision;
  s.causal = scenario.model.causal;
  s.attention = scenario.training.attention;
  s.dropout = scenario.model.dropout;
  s.cross_entropy = scenario.training.cross_entropy;
  s.gelu = scenario.training.gelu;
  return s;
}

namespace {

/// The one parameter count (scenario/parameter_count.hpp) of the GPT-style architecture the
/// ZeRO-3 engines model: one key/value head per head, a plain FFN, tied embeddings, no experts.
TransformerParameterCount gpt_style_count(const TransformerShape& s) {
  ModelSpec m;
  m.layers = s.layers;
  m.hidden = static_cast<int>(s.hidden);
  m.ffn = static_cast<int>(s.ffn);
  m.heads = static_cast<int>(s.heads);
  m.vocabulary = static_cast<int>(s.vocabulary);
  m.kv_heads = m.heads;
  m.gated_ffn = false;
  m.tied_embeddings = true;
  m.experts = 1;
  return transformer_parameter_count(m).value_or(TransformerParameterCount{});
}

}  // namespace

double TransformerShape::layer_parameters() const { return gpt_style_count(*this).layer(); }

double TransformerShape::embedding_parameters() const {
  const TransformerParameterCount c = gpt_style_count(*this);
  return c.embedding + c.output_projection + c.final_norm;
}

double TransformerShape::parameters() const { return layers * layer_parameters() + embedding_parameters(); }

double TransformerShape::layer_forward_flops() const {
  const double tokens = micro_batch * sequence;
  return tokens * (8 * hidden * hidden + 4 * hidden * ffn) + 4 * micro_batch * sequence * sequence * hidden;
}

double TransformerShape::output_forward_flops() const { return 2 * micro_batch * sequence * hidden * vocabulary; }

double TransformerShape::layer_backward_flops() const { return (recompute ? 3.0 : 2.0) * layer_forward_flops(); }

double TransformerShape::output_backward_flops() const { return 2.0 * output_forward_flops(); }

}  // namespace ckptsim
