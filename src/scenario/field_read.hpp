#pragma once
// Reading one scenario field from its JSON value (private to the scenario layer).
//
// Converts the value by the field's unit (parameters.hpp), applies its range check and stores it
// into the Scenario member the field binds. Nothing is stored when the value does not fit.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/parameters.hpp"

namespace ckptsim {

/// nullopt on success; otherwise what a valid value would have been (for Problem::expected).
std::optional<std::string> read_field_value(const Field& field, const nlohmann::json& value, Scenario& s);

/// What the field holds, for messages: "an integer, at least 1", "one of \"a\", \"b\"".
std::string field_expectation(const Field& field);

/// The value as written (compact JSON), cut to about 100 characters for messages.
std::string shown_value(const nlohmann::json& value);

/// "\"a\", \"b\", \"c\"".
std::string quoted_names(const std::vector<std::string>& names);

/// RFC 6901 escaping of one reference token: '~' -> "~0", '/' -> "~1".
std::string escape_pointer_token(const std::string& key);

}  // namespace ckptsim
