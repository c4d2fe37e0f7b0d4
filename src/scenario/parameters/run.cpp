// Parameters owned by the run: the scenario's name and the top-level seed (first in a file), and the
// run itself: its length, Monte Carlo replicas and seed (last). Read by run/monte_carlo.hpp,
// run/run_model.hpp. Rows of the parameter table (parameters.hpp): each says which models read it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock scenario_name_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"scenario", {
    {"/name", U::text, C::none, P::defaulted, R::label, "scenario name (default: the file name without extension)",
     [](Scenario& s) -> FieldRef { return &s.name; }},
    {"/seed", U::seed, C::none, P::alias, R::iteration | R::run, "same as /run/seed (give one of the two)",
     [](Scenario& s) -> FieldRef { return &s.run.seed; }},
  }};
  // clang-format on
  // The iteration model draws a random placement from the seed, and reads it for nothing else.
  row_of(block, "/seed").iteration_reads_when = &random_placement;
  return block;
}

ParameterBlock run_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"run", {
    {"/run/duration", U::duration, C::positive, P::optional, R::run, "simulated wall-clock length (give duration or iterations)",
     [](Scenario& s) -> FieldRef { return &s.run.duration; }},
    {"/run/iterations", U::integer, C::at_least_one, P::optional, R::run, "training iterations to complete (give duration or iterations)",
     [](Scenario& s) -> FieldRef { return &s.run.iterations; }},
    {"/run/replicas", U::integer, C::at_least_one, P::defaulted, R::run, "Monte Carlo replicas",
     [](Scenario& s) -> FieldRef { return &s.run.replicas; }},
    {"/run/seed", U::seed, C::none, P::defaulted, R::iteration | R::run, "random seed",
     [](Scenario& s) -> FieldRef { return &s.run.seed; }},
  }};
  // clang-format on
  row_of(block, "/run/seed").iteration_reads_when = &random_placement;
  return block;
}

}  // namespace ckptsim
