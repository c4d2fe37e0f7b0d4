// Parameters owned by model: the transformer's architecture (a model preset fills it). Read by
// workload/transformer.hpp, scenario/presets.hpp. Rows of the parameter table (parameters.hpp): each
// says which models read it.
#include "parameter_blocks.hpp"
#include "ckptsim/scenario/presets.hpp"

namespace ckptsim {

ParameterBlock model_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"model", {
    {"/model/preset", U::name, C::none, P::optional, R::iteration | R::costs, "model preset filling the architecture fields below",
     [](Scenario& s) -> FieldRef { return &s.model.preset; }, &model_preset_names},
    {"/model/parameters", U::number, C::positive, P::computed, R::iteration | R::costs, "parameter count (default: from the architecture)",
     [](Scenario& s) -> FieldRef { return &s.model.parameters; }},
    {"/model/layers", U::integer, C::at_least_one, P::from_model, R::iteration | R::costs, "transformer layers",
     [](Scenario& s) -> FieldRef { return &s.model.layers; }},
    {"/model/hidden", U::integer, C::at_least_one, P::from_model, R::iteration | R::costs, "hidden size",
     [](Scenario& s) -> FieldRef { return &s.model.hidden; }},
    {"/model/ffn", U::integer, C::at_least_one, P::from_model, R::iteration | R::costs, "feed-forward inner size",
     [](Scenario& s) -> FieldRef { return &s.model.ffn; }},
    {"/model/heads", U::integer, C::at_least_one, P::from_model, R::iteration | R::costs, "attention heads (must divide hidden)",
     [](Scenario& s) -> FieldRef { return &s.model.heads; }},
    {"/model/vocabulary", U::integer, C::at_least_one, P::from_model, R::iteration | R::costs, "vocabulary size",
     [](Scenario& s) -> FieldRef { return &s.model.vocabulary; }},
    {"/model/causal", U::boolean, C::none, P::defaulted, R::iteration | R::costs, "causal (decoder) attention; false for encoders (default: the model preset's, else true)",
     [](Scenario& s) -> FieldRef { return &s.model.causal; }},
    {"/model/dropout", U::number, C::probability, P::defaulted, R::iteration | R::costs, "dropout probability of the attention probabilities and the residual branches (0: no dropout kernels or masks) (default: the model preset's, else 0.1, Megatron-LM's)",
     [](Scenario& s) -> FieldRef { return &s.model.dropout; }},
    {"/model/kv_heads", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "key/value heads (grouped-query attention; must divide heads) (default: the model preset's, else /model/heads); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.kv_heads; }, nullptr, {}, &megatron_only},
    {"/model/gated_ffn", U::boolean, C::none, P::defaulted, R::iteration | R::costs, "gated feed-forward (SwiGLU: gate, up and down matrices) (default: the model preset's, else false); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.gated_ffn; }, nullptr, {}, &megatron_only},
    {"/model/tied_embeddings", U::boolean, C::none, P::defaulted, R::iteration | R::costs, "the output projection shares the input embedding (default: the model preset's, else true); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.tied_embeddings; }, nullptr, {}, &megatron_only},
    {"/model/experts", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "mixture of experts: expert FFNs per layer, each of /model/ffn (1: dense) (default: the model preset's); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.experts; }, nullptr, {}, &megatron_only},
    {"/model/experts_per_token", U::integer, C::at_least_one, P::defaulted, R::iteration | R::costs, "mixture of experts: experts each token is routed to (top-k) (default: the model preset's); read by parallelism megatron",
     [](Scenario& s) -> FieldRef { return &s.model.experts_per_token; }, nullptr, {}, &megatron_only},
  }};
  // clang-format on
  for (const char* pointer : {"/model/kv_heads", "/model/gated_ffn", "/model/tied_embeddings", "/model/experts",
                              "/model/experts_per_token"})
    row_of(block, pointer).read_when = &kReadUnderMegatron;
  return block;
}

}  // namespace ckptsim
