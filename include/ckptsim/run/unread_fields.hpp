#pragma once
// Fields a scenario writes that nothing it runs reads.
//
// A scenario file may hold every parameter of the table (scenario/parameters.hpp) whatever its
// strategy, engine or failure process, and the loader range-checks them all; a value the chosen
// models never read would otherwise change nothing without a word (`strategy.interval` under
// async-two-phase). These warnings name each such field the file writes (Scenario::written:
// defaults and presets are not the user's word, nor is a value equal to the one the field holds
// without it, as an effective scenario read back writes every field) and what is read instead:
//   - a /strategy row that the scenario's strategy does not name in Strategy::parameters()
//     (run/strategy.hpp; the kind itself is always read): "not read by strategy X", with the
//     field that sets its checkpoint period and the fields it does read;
//   - a row whose read condition (Field::read_when: an engine's knobs, Megatron's layout, a
//     topology's switches, each fault mechanism's details) does not hold;
//   - a row that only one failure process reads (Presence::when_process) under another.
// What counts as read depends on the report: `ckptsim iteration` compares the traffic schedulers
// for the replicas, placement, buffer and scheduler of /strategy whatever the strategy (the rows
// whose ReadBy holds `iteration`), so for it those are read even under a strategy that ignores
// them in its costs and run.
// tests/unit/run/unread_fields_test.cpp holds every warning to the truth: changing a field it
// names changes no result.
#include <string>
#include <vector>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

struct FieldWarning {
  std::string pointer;  ///< the field ("/strategy/interval")
  std::string message;  ///< the whole sentence, the pointer first
};

/// Which report the warnings are for (see above).
enum class UnreadFor { run, iteration };

/// In table order; empty when the scenario writes nothing that goes unread.
std::vector<FieldWarning> unread_field_warnings(const Scenario& scenario, UnreadFor report = UnreadFor::run);

/// The warnings' messages alone, as reports print them.
std::vector<std::string> unread_field_messages(const Scenario& scenario, UnreadFor report = UnreadFor::run);

/// Whether the scenario's models read the field at all for that report (the rules above, whether
/// or not the file writes it).
bool field_is_read(const Scenario& scenario, std::string_view pointer, UnreadFor report = UnreadFor::run);

}  // namespace ckptsim
