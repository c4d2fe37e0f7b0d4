// Parameters owned by failure domains: failures of racks, leaf switches and power domains (all their
// machines at once). Read by failure/failure_process.hpp. Rows of the parameter table
// (parameters.hpp): each says which models read it.
#include <string>

#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock failure_domain_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"failure domains", {
    {"/failures/domains/rack/machines", U::integer, C::non_negative, P::defaulted, R::run, "machines per rack (consecutive indices); 0 = no rack failures",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[0].machines; }},
    {"/failures/domains/rack/rate", U::failure_rate, C::non_negative, P::defaulted, R::run, "failures per rack per unit time (all its machines at once): \"0.06%/domain/day\", or of all racks together, \"2/cluster/day\" (shared among the racks)",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[0].rate; }},
    {"/failures/domains/rack/hardware_fraction", U::fraction, C::none, P::defaulted, R::run, "share of rack failures whose machines lose CPU memory and are replaced",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[0].hardware_fraction; }},
    {"/failures/domains/leaf/machines", U::integer, C::non_negative, P::defaulted, R::run, "machines per leaf switch (consecutive indices); 0 = no switch failures",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[1].machines; }},
    {"/failures/domains/leaf/rate", U::failure_rate, C::non_negative, P::defaulted, R::run, "failures per leaf switch per unit time (all its machines at once): \"0.06%/domain/day\", or of all leaf switches together, \"2/cluster/day\"",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[1].rate; }},
    {"/failures/domains/leaf/hardware_fraction", U::fraction, C::none, P::defaulted, R::run, "share of switch failures whose machines lose CPU memory (a switch failure alone keeps it)",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[1].hardware_fraction; }},
    {"/failures/domains/power/machines", U::integer, C::non_negative, P::defaulted, R::run, "machines per power domain (consecutive indices); 0 = no power failures",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[2].machines; }},
    {"/failures/domains/power/rate", U::failure_rate, C::non_negative, P::defaulted, R::run, "failures per power domain per unit time (all its machines at once): \"0.06%/domain/day\", or of all power domains together, \"2/cluster/day\"",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[2].rate; }},
    {"/failures/domains/power/hardware_fraction", U::fraction, C::none, P::defaulted, R::run, "share of power failures whose machines lose CPU memory and are replaced",
     [](Scenario& s) -> FieldRef { return &s.failures.domains[2].hardware_fraction; }},
  }};
  // clang-format on
  // A domain's rate and hardware share are read only when the domain has machines.
  static constexpr ReadCondition kRack{[](const Scenario& s) { return s.failures.domains[0].machines > 0; },
                                       "failures.domains.rack.machines is above 0"};
  static constexpr ReadCondition kLeaf{[](const Scenario& s) { return s.failures.domains[1].machines > 0; },
                                       "failures.domains.leaf.machines is above 0"};
  static constexpr ReadCondition kPower{[](const Scenario& s) { return s.failures.domains[2].machines > 0; },
                                        "failures.domains.power.machines is above 0"};
  for (const char* leaf : {"rate", "hardware_fraction"}) {
    row_of(block, std::string("/failures/domains/rack/") + leaf).read_when = &kRack;
    row_of(block, std::string("/failures/domains/leaf/") + leaf).read_when = &kLeaf;
    row_of(block, std::string("/failures/domains/power/") + leaf).read_when = &kPower;
  }
  return block;
}

}  // namespace ckptsim
