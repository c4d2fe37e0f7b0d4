#pragma once
// What a result rests on: every scenario parameter in effect and where its value came from
// (the file, the parameter table's default, the instance, GPU type or model preset, or a
// computation), so that outputs can say which assumptions drive them and which the user never
// wrote. Origins follow the parameter table's Presence (parameters.hpp); the values are written
// as effective_scenario_json() writes them.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

enum class ValueOrigin {
  file,        ///< written in the scenario file
  preset,      ///< from cluster.instance, the GPU type or model.preset
  computed,    ///< derived (model.parameters from the architecture)
  defaulted,   ///< the parameter table's default
};

struct Assumption {
  std::string pointer;  ///< "/training/micro_batch"
  std::string value;    ///< "8", "\"400Gbps\""
  ValueOrigin origin = ValueOrigin::defaulted;
  std::string source;   ///< "scenario file", "default", "instance \"p5.48xlarge\"", ...
};

/// Every field with a value in effect, in table order (unset optional fields are left out).
/// Which fields the user wrote is read from s.source_file (already validated by the loader; read
/// again here, so call it while the file is unchanged, as the commands do right after loading);
/// for a scenario built in code (no file) nothing counts as written.
std::vector<Assumption> scenario_assumptions(const Scenario& s);

/// The table pointers a scenario document writes.
std::vector<std::string> written_pointers(const nlohmann::json& doc);

/// The parameters that drive a run's costs most and that a user is least likely to have
/// written: batch shape, compute and network efficiencies, failure and recovery times.
const std::vector<std::string_view>& key_assumption_pointers();

/// Whether the failure model can replace a machine: a hardware share of the machine failures (or
/// a hardware cause, or a lemon quarantine), a trace (its rows are not read here), a failure
/// domain with a hardware share, straggler eviction or silent data corruption.
bool hardware_failures_possible(const FailureSpec& failures);

/// The replacement delay's fields in force: its distribution and that distribution's
/// parameters. The delay decides the replacement waits, and so whether standby machines pay off.
std::vector<std::string_view> replacement_assumption_pointers(const FailureSpec& failures);

/// The key assumptions of scenario_assumptions(s): key_assumption_pointers(), then
/// replacement_assumption_pointers(s.failures), in that order. The replacement delay is always
/// there (issue 42); where no failure can replace a machine (!hardware_failures_possible) its
/// sources end in "; no failure here replaces a machine".
std::vector<Assumption> key_assumptions(const Scenario& s);

}  // namespace ckptsim
