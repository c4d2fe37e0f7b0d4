// Parameters owned by failures: the failure process, its outcomes and the recovery times. Read by
// failure/failure_process.hpp, run/run_model.hpp. Rows of the parameter table (parameters.hpp): each
// says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock failure_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"failures", {
    {"/failures/process", U::name, C::none, P::required, R::run, "failure process",
     [](Scenario& s) -> FieldRef { return &s.failures.process; }, &failure_process_names},
    {"/failures/rate", U::failure_rate, C::non_negative, P::when_process, R::run, "failures per machine per unit time (exponential): \"1.5%/machine/day\", or of the whole cluster, \"2/cluster/day\" (shared among /cluster/machines)",
     [](Scenario& s) -> FieldRef { return &s.failures.rate; }, nullptr, "exponential"},
    {"/failures/shape", U::number, C::positive, P::when_process, R::run, "Weibull shape k (weibull)",
     [](Scenario& s) -> FieldRef { return &s.failures.weibull_shape; }, nullptr, "weibull"},
    {"/failures/scale", U::duration, C::positive, P::when_process, R::run, "Weibull scale per machine (weibull)",
     [](Scenario& s) -> FieldRef { return &s.failures.weibull_scale; }, nullptr, "weibull"},
    {"/failures/trace", U::text, C::none, P::when_process, R::run, "failure trace CSV, relative to the scenario file (trace)",
     [](Scenario& s) -> FieldRef { return &s.failures.trace_file; }, nullptr, "trace"},
    {"/failures/hardware_fraction", U::fraction, C::none, P::defaulted, R::run, "share of failures that are hardware (need a replacement)",
     [](Scenario& s) -> FieldRef { return &s.failures.hardware_fraction; }},
    {"/failures/detection", U::duration, C::non_negative, P::defaulted, R::run, "time to detect a failure",
     [](Scenario& s) -> FieldRef { return &s.failures.detection; }},
    {"/failures/restart", U::duration, C::non_negative, P::from_phases, R::run, "an in-job restart of every process, whole (overrides the restart phases; default: their sum at this scale, failures.restart_phases)",
     [](Scenario& s) -> FieldRef { return &s.failures.restart; }, nullptr, {},
     // Written into the effective scenario only when the file wrote it: a restart computed from
     // the phases is written as its phases, so that the effective scenario reads back the same.
     [](const Scenario& s) { return !s.failures.restart_from_phases; }},
    {"/failures/causes", U::cause_table, C::none, P::optional, R::run, "cause table: a preset name or [{name, share, outcome, detection, restart}]; sets each failure's outcome instead of hardware_fraction",
     [](Scenario& s) -> FieldRef { return &s.failures.causes; }},
  }};
  // clang-format on
  return block;
}

}  // namespace ckptsim
