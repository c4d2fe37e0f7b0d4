// Parameters owned by the machine replacement: how long a failed machine takes to be replaced
// (a fixed time, or a uniform or lognormal distribution). Read by failure/failure_process.hpp,
// run/run_model.hpp. Rows of the parameter table (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock replacement_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"replacement", {
    {"/failures/replacement/distribution", U::name, C::none, P::defaulted, R::run, "machine replacement time distribution (a bare duration = fixed)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.distribution; }, &replacement_distribution_names},
    {"/failures/replacement/value", U::duration, C::non_negative, P::defaulted, R::run, "replacement time (fixed)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.fixed; }},
    {"/failures/replacement/low", U::duration, C::non_negative, P::defaulted, R::run, "shortest replacement time (uniform)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.low; }},
    {"/failures/replacement/high", U::duration, C::non_negative, P::defaulted, R::run, "longest replacement time (uniform)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.high; }},
    {"/failures/replacement/median", U::duration, C::positive, P::defaulted, R::run, "median replacement time (lognormal)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.median; }},
    {"/failures/replacement/sigma", U::number, C::non_negative, P::defaulted, R::run, "log-space standard deviation (lognormal)",
     [](Scenario& s) -> FieldRef { return &s.failures.replacement.sigma; }},
  }};
  // clang-format on
  // The replacement time's parameters, by distribution (a bare duration is the fixed one).
  static constexpr ReadCondition kFixed{
      [](const Scenario& s) { return s.failures.replacement.distribution == ReplacementDistribution::fixed; },
      "failures.replacement.distribution is \"fixed\""};
  static constexpr ReadCondition kUniform{
      [](const Scenario& s) { return s.failures.replacement.distribution == ReplacementDistribution::uniform; },
      "failures.replacement.distribution is \"uniform\""};
  static constexpr ReadCondition kLognormal{
      [](const Scenario& s) { return s.failures.replacement.distribution == ReplacementDistribution::lognormal; },
      "failures.replacement.distribution is \"lognormal\""};
  row_of(block, "/failures/replacement/value").read_when = &kFixed;
  row_of(block, "/failures/replacement/low").read_when = &kUniform;
  row_of(block, "/failures/replacement/high").read_when = &kUniform;
  row_of(block, "/failures/replacement/median").read_when = &kLognormal;
  row_of(block, "/failures/replacement/sigma").read_when = &kLognormal;
  return block;
}

}  // namespace ckptsim
