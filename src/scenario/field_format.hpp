#pragma once
// Writing one scenario field back in the input format (private to the scenario layer).
//
// Values are written as the shortest unit string that parses back to exactly the same SI value
// ("50GB/s", "128MiB", "3h", "1.5%/machine/day"); when no suffix does, the base unit with 17
// significant digits ("123456.789B/s"). Used by effective_scenario_json() and the parameter listing.
#include <nlohmann/json.hpp>

#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {

/// The field's value in input form; a null json when it is not set and should be left out
/// (an unset std::optional, an empty preset name or trace path). `s` is only read.
nlohmann::json format_field(const Field& field, Scenario& s);

std::string format_duration_exact(SimTime t);
std::string format_bytes_exact(double bytes);
std::string format_bandwidth_exact(double bytes_per_second);
/// Per machine ("1.5%/machine/day") or, for a failure domain's rate, per domain ("/domain/day").
std::string format_failure_rate_exact(double per_subject_per_second, RateScope scope);
std::string format_flop_rate_exact(double flops);

}  // namespace ckptsim
