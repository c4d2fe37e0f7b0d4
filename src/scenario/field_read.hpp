#pragma once
// Reading one scenario field from its JSON value (private to the scenario layer).
//
// Converts the value by the field's unit (parameters.hpp), applies its range check and stores it
// into the Scenario member the field binds. Nothing is stored when the value does not fit.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/parameters.hpp"

namespace ckptsim {

/// nullopt on success; otherwise what a valid value would have been (for Problem::expected).
std::optional<std::string> read_field_value(const Field& field, const nlohmann::json& value, Scenario& s);

/// A duration written either way: a unit string ("15s") or a JSON number of seconds, through the
/// one range check of units.hpp (duration_from_seconds). Throws UnitError with what was expected.
SimTime duration_value(const nlohmann::json& value);

/// The largest value an integer field's Scenario member holds: 2^31 - 1 for an int, 2^63 - 1 for
/// the int64 iteration count (stated in messages and in the JSON Schema).
std::int64_t integer_field_maximum(const Field& field);

/// What the field holds, for messages: "an integer, at least 1, at most 2147483647", "one of \"a\", \"b\"".
std::string field_expectation(const Field& field);

/// The value as written (compact JSON), cut to about 100 characters for messages.
std::string shown_value(const nlohmann::json& value);

/// "\"a\", \"b\", \"c\"".
std::string quoted_names(const std::vector<std::string>& names);

/// The names closest to a misspelt `text`, for "did you mean" hints: those at the smallest
/// edit distance (insertions, deletions, substitutions and swaps of neighbours, case ignored) when
/// it is at most a third of the text's length (at least 1); otherwise the names holding the text
/// (at least 3 characters) or held in it. Empty when nothing is close; at most three names.
std::vector<std::string> closest_names(const std::string& text, const std::vector<std::string>& names);

/// " (did you mean \"a\"?)", " (did you mean \"a\" or \"b\"?)", or "" when nothing is close.
std::string did_you_mean(const std::string& text, const std::vector<std::string>& names);

/// RFC 6901 escaping of one reference token: '~' -> "~0", '/' -> "~1".
std::string escape_pointer_token(const std::string& key);

}  // namespace ckptsim
