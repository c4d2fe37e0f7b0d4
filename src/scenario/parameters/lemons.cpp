// Parameters owned by lemons: per-machine failure-rate heterogeneity and quarantine. Read by
// failure/failure_process.hpp. Rows of the parameter table (parameters.hpp): each says which models
// read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock lemon_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"lemons", {
    {"/failures/lemons/model", U::name, C::none, P::defaulted, R::run, "per-machine rate heterogeneity (exponential and weibull processes)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.model; }, &lemon_model_names},
    {"/failures/lemons/fraction", U::fraction, C::none, P::defaulted, R::run, "share of machines that are lemons (fraction model)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.fraction; }},
    {"/failures/lemons/multiple", U::number, C::at_least_one, P::defaulted, R::run, "a lemon's failure rate / the base rate (fraction model)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.multiple; }},
    {"/failures/lemons/gamma_shape", U::number, C::positive, P::defaulted, R::run, "shape k of the Gamma(k, 1/k) rate multiplier per machine (gamma model)",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.gamma_shape; }},
    {"/failures/lemons/quarantine_failures", U::integer, C::non_negative, P::defaulted, R::run, "replace a machine by a fresh one (base rate) at its k-th failure within the window; 0 = never",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.quarantine_failures; }},
    {"/failures/lemons/quarantine_window", U::duration, C::positive, P::defaulted, R::run, "window of the quarantine rule",
     [](Scenario& s) -> FieldRef { return &s.failures.lemons.quarantine_window; }},
  }};
  // clang-format on
  static constexpr ReadCondition kFraction{[](const Scenario& s) { return s.failures.lemons.model == LemonModel::fraction; },
                                           "failures.lemons.model is \"fraction\""};
  static constexpr ReadCondition kGamma{[](const Scenario& s) { return s.failures.lemons.model == LemonModel::gamma; },
                                        "failures.lemons.model is \"gamma\""};
  static constexpr ReadCondition kQuarantine{[](const Scenario& s) { return s.failures.lemons.quarantine_failures > 0; },
                                             "failures.lemons.quarantine_failures is above 0"};
  row_of(block, "/failures/lemons/fraction").read_when = &kFraction;
  row_of(block, "/failures/lemons/multiple").read_when = &kFraction;
  row_of(block, "/failures/lemons/gamma_shape").read_when = &kGamma;
  row_of(block, "/failures/lemons/quarantine_window").read_when = &kQuarantine;
  return block;
}

}  // namespace ckptsim
