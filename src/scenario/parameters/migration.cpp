// Parameters owned by live migration: failures announced early enough to move a machine's state. Read
// by failure/migration.hpp. Rows of the parameter table (parameters.hpp): each says which models read
// it.
#include "parameter_blocks.hpp"

namespace ckptsim {

ParameterBlock migration_parameters() {
  using U = Unit;
  using C = Check;
  using P = Presence;
  using R = ReadBy;
  // clang-format off
  ParameterBlock block{"live migration", {
    {"/failures/migration/fraction", U::fraction, C::none, P::defaulted, R::run, "share of single-machine hardware failures announced early enough to move the machine's state to a free standby before it fails (0 = no live migration)",
     [](Scenario& s) -> FieldRef { return &s.failures.migration.fraction; }},
    {"/failures/migration/pause", U::duration, C::positive, P::optional, R::run, "the job's pause per migration (default: the machine's checkpoint state sent at the achieved point-to-point rate, plus the in-process restart latency)",
     [](Scenario& s) -> FieldRef { return &s.failures.migration.pause; }},
  }};
  // clang-format on
  static constexpr ReadCondition kMigration{[](const Scenario& s) { return s.failures.migration.fraction > 0; },
                                            "failures.migration.fraction is above 0"};
  row_of(block, "/failures/migration/pause").read_when = &kMigration;
  return block;
}

}  // namespace ckptsim
