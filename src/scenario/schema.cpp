// The scenario JSON Schema, generated from the parameter table (schema.hpp).
#include "ckptsim/scenario/schema.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/failure_rate_fields.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/presets.hpp"
#include "ckptsim/core/checked_time.hpp"
#include "field_format.hpp"
#include "field_read.hpp"
#include "unit_suffixes.hpp"

namespace ckptsim {
namespace {

// Ordered: the schema lists properties in the table's (file) order, "$schema" and the title first.
using schema_json = nlohmann::ordered_json;

/// A non-negative decimal number as std::from_chars reads it ("12", "1.5", ".5", "2e3").
constexpr std::string_view kNumber = R"((?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)";
/// The same with a nonzero digit in the mantissa: a number greater than zero.
constexpr std::string_view kPositiveNumber =
    R"((?:[0-9]*[1-9][0-9]*(?:\.[0-9]*)?|[0-9]*\.[0-9]*[1-9][0-9]*)(?:[eE][+-]?[0-9]+)?)";
constexpr std::string_view kSpace = "[ \\t]*";

/// "(?:a|b|c)". (Strings are built with append: GCC 12 warns falsely on operator+ chains at -O3.)
std::string alternatives(const std::vector<std::string_view>& suffixes) {
  std::string out("(?:");
  for (std::size_t i = 0; i < suffixes.size(); ++i) {
    if (i > 0) out.append("|");
    out.append(suffixes[i]);
  }
  out.append(")");
  return out;
}

/// A string pattern: "^", then the parts with optional blanks between them (as the unit
/// parsers allow), then "$".
schema_json pattern_of(const std::vector<std::string>& parts) {
  std::string pattern("^");
  pattern.append(kSpace);
  for (const std::string& part : parts) {
    pattern.append(part);
    pattern.append(kSpace);
  }
  pattern.append("$");
  return {{"type", "string"}, {"pattern", pattern}};
}

/// "12.5GiB": a number (greater than zero when `positive`) and one of the suffixes.
schema_json unit_string(const std::vector<std::string_view>& suffixes, bool positive) {
  return pattern_of({std::string(positive ? kPositiveNumber : kNumber), alternatives(suffixes)});
}

/// A zero as std::from_chars reads it ("0", "0.0", ".0", "0e5"): a rate that may leave out its subject.
constexpr std::string_view kZero = R"((?:0+(?:\.0*)?|\.0+)(?:[eE][+-]?[0-9]+)?)";

/// "1.5%/machine/day", "2/cluster/day" (or "0.06%/domain/day" for a domain's rate): a number, an
/// optional percent sign, "/", a subject word of the field's scope and "/", a time unit; or a zero
/// with no subject ("0/day"). The same words and units as read_failure_rate (units.cpp).
schema_json failure_rate_string(RateScope scope) {
  const std::string units = alternatives(per_time_suffixes());
  std::string named(kNumber);
  named.append(kSpace).append("%?").append(kSpace).append("/").append(alternatives(rate_subject_words(scope)));
  named.append("/").append(units);
  std::string zero(kZero);
  zero.append(kSpace).append("%?").append(kSpace).append("/").append(units);
  std::string either("(?:");
  either.append(named).append("|").append(zero).append(")");
  return pattern_of({either});
}

/// The range check as JSON Schema keywords on a number.
void add_range(schema_json& schema, Check check) {
  switch (check) {
    case Check::none: break;
    case Check::positive: schema["exclusiveMinimum"] = 0; break;
    case Check::non_negative: schema["minimum"] = 0; break;
    case Check::at_least_one: schema["minimum"] = 1; break;
    case Check::unit_interval:
      schema["exclusiveMinimum"] = 0;
      schema["maximum"] = 1;
      break;
    case Check::probability:
      schema["minimum"] = 0;
      schema["exclusiveMaximum"] = 1;
      break;
  }
}

/// Seconds as a JSON number: what duration_value accepts (never negative, at most 100 years,
/// units.hpp's duration_from_seconds, the same bound as a duration string).
schema_json seconds_number(Check check) {
  schema_json schema{{"type", "number"}};
  add_range(schema, check == Check::none ? Check::non_negative : check);
  schema["maximum"] = kMaxDurationSeconds;
  return schema;
}

/// /failures/causes: a cause preset's name, or rows {name, share, outcome, detection?, restart?}
/// as read_cause_table accepts them (cause_table.cpp).
schema_json cause_table_schema() {
  const schema_json time{{"anyOf", {seconds_number(Check::non_negative), unit_string(duration_suffixes(), false)}}};
  const schema_json row{{"type", "object"},
                 {"properties",
                  {{"name", {{"type", "string"}, {"pattern", "^[a-z0-9_-]{1,64}$"}}},
                   {"share", {{"type", "number"}, {"exclusiveMinimum", 0}, {"maximum", 1e12}}},
                   {"outcome", {{"enum", {"software", "hardware"}}}},
                   {"detection", time},
                   {"restart", time}}},
                 {"required", {"name", "share", "outcome"}},
                 {"additionalProperties", false}};
  return {{"anyOf", {{{"type", "string"}, {"enum", cause_preset_names()}}, {{"type", "array"}, {"minItems", 1}, {"items", row}}}}};
}

schema_json value_schema(const Field& f) {
  // Bandwidths and FLOP rates are positive whatever the field's check (units.cpp).
  const bool positive = f.check == Check::positive || f.unit == Unit::bandwidth || f.unit == Unit::flop_rate;
  switch (f.unit) {
    case Unit::text: return {{"type", "string"}};
    case Unit::name: return {{"type", "string"}, {"enum", f.choices()}};
    case Unit::boolean: return {{"type", "boolean"}};
    case Unit::integer: {
      schema_json schema{{"type", "integer"}, {"maximum", integer_field_maximum(f)}};
      add_range(schema, f.check);
      return schema;
    }
    case Unit::seed:
      return {{"type", "integer"}, {"minimum", 0}, {"maximum", std::numeric_limits<std::int64_t>::max()}};
    case Unit::number: {
      schema_json schema{{"type", "number"}};
      add_range(schema, f.check);
      return schema;
    }
    case Unit::fraction:
      return {{"anyOf", {{{"type", "number"}, {"minimum", 0}, {"maximum", 1}}, pattern_of({std::string(kNumber), "%?"})}}};
    case Unit::duration: return {{"anyOf", {seconds_number(f.check), unit_string(duration_suffixes(), positive)}}};
    case Unit::duration_or_never:
      return {{"anyOf", {seconds_number(f.check), unit_string(duration_suffixes(), positive), {{"const", "never"}}}}};
    case Unit::bytes: {
      schema_json number{{"type", "number"}};
      add_range(number, f.check);
      return {{"anyOf", {number, unit_string(byte_suffixes(), positive)}}};
    }
    case Unit::bandwidth: return unit_string(bandwidth_suffixes(), true);
    case Unit::failure_rate: return failure_rate_string(failure_rate_scope(f));
    case Unit::flop_rate: return unit_string(flop_rate_suffixes(), true);
    case Unit::cause_table: return cause_table_schema();
    case Unit::bus_curve: {
      const schema_json point{{"type", "object"},
                              {"properties",
                               {{"size", {{"anyOf", {{{"type", "number"}, {"exclusiveMinimum", 0}}, unit_string(byte_suffixes(), true)}}}},
                                {"bus_bandwidth", unit_string(bandwidth_suffixes(), true)}}},
                              {"required", {"size", "bus_bandwidth"}},
                              {"additionalProperties", false}};
      return {{"type", "array"}, {"minItems", 1}, {"maxItems", 256}, {"items", point}};
    }
  }
  return schema_json::object();
}

schema_json property_schema(const Field& f) {
  schema_json schema = value_schema(f);
  std::string description(f.description);
  if (f.unit == Unit::failure_rate)
    description += " — " + failure_rate_expectation(failure_rate_scope(f));
  else if (f.unit != Unit::name && f.unit != Unit::boolean && f.unit != Unit::text)
    description += " — " + unit_expectation(f.unit);
  schema["description"] = description;
  if (f.presence == Presence::defaulted && f.pointer != "/name") {
    Scenario defaults;
    const nlohmann::json value = format_field(f, defaults);
    if (!value.is_null()) schema["default"] = schema_json::parse(value.dump());
  }
  return schema;
}

std::vector<std::string> split_pointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  for (std::size_t pos = 1; pos <= pointer.size();) {
    const std::size_t next = std::min(pointer.find('/', pos), pointer.size());
    tokens.emplace_back(pointer.substr(pos, next - pos));
    pos = next + 1;
  }
  return tokens;
}

schema_json empty_object_schema() {
  return {{"type", "object"}, {"properties", schema_json::object()}, {"additionalProperties", false}};
}

/// The object schema at `tokens`, creating the objects on the way.
schema_json& object_at(schema_json& root, const std::vector<std::string>& tokens) {
  schema_json* node = &root;
  for (const auto& token : tokens) {
    schema_json& properties = (*node)["properties"];
    if (!properties.contains(token)) properties[token] = empty_object_schema();
    node = &properties[token];
  }
  return *node;
}

void add_required(schema_json& object, const std::string& key) {
  schema_json& required = object["required"];
  if (std::find(required.begin(), required.end(), key) == required.end()) required.push_back(key);
}

/// The parent's conditional requirements for a field that is not plainly required.
void add_condition(schema_json& parent, const Field& f, const std::string& key) {
  auto& conditions = parent["allOf"];
  if (f.presence == Presence::when_process) {
    conditions.push_back({{"if", {{"properties", {{"process", {{"const", f.when}}}}}, {"required", {"process"}}}},
                          {"then", {{"required", {key}}}}});
    return;
  }
  // from_instance / from_model: required unless the preset key is present; from_gpu: unless
  // the GPU type or the instance preset (which names a GPU type) is.
  std::vector<std::string> presets;
  switch (f.presence) {
    case Presence::from_instance: presets = {"instance"}; break;
    case Presence::from_gpu: presets = {"instance", "gpu"}; break;
    default: presets = {"preset"}; break;
  }
  for (auto& c : conditions) {
    if (!c.contains("anyOf") || c["anyOf"].size() != presets.size() + 1) continue;
    bool same = true;
    for (std::size_t i = 0; i < presets.size(); ++i) same = same && c["anyOf"][i]["required"][0] == presets[i];
    if (same) {
      c["anyOf"][presets.size()]["required"].push_back(key);
      return;
    }
  }
  schema_json any = schema_json::array();
  for (const auto& p : presets) any.push_back({{"required", {p}}});
  any.push_back({{"required", {key}}});
  conditions.push_back({{"anyOf", any}});
}

void add_field(schema_json& root, const Field& f) {
  const std::vector<std::string> tokens = split_pointer(f.pointer);
  const std::string key = tokens.back();
  const std::vector<std::string> parents(tokens.begin(), tokens.end() - 1);
  schema_json& parent = object_at(root, parents);
  parent["properties"][key] = property_schema(f);
  const bool conditional = f.presence == Presence::when_process || f.presence == Presence::from_instance ||
                           f.presence == Presence::from_gpu || f.presence == Presence::from_model;
  if (conditional) add_condition(parent, f, key);
  if (f.presence != Presence::required) return;
  // A required field makes each enclosing object required in its own parent.
  add_required(parent, key);
  for (std::size_t depth = parents.size(); depth > 0; --depth) {
    const std::vector<std::string> outer(parents.begin(), parents.begin() + static_cast<std::ptrdiff_t>(depth) - 1);
    add_required(object_at(root, outer), parents[depth - 1]);
  }
}

}  // namespace

nlohmann::ordered_json scenario_schema() {
  schema_json root{{"$schema", "https://json-schema.org/draft/2020-12/schema"},
            {"$id", std::string(kSchemaId)},
            {"title", "ckptsim scenario"},
            {"description",
             "A ckptsim scenario file. Generated by `ckptsim schema` from the loader's parameter table; the loader also "
             "checks rules across fields that a schema cannot express (docs/scenario.schema.json)."},
            {"type", "object"},
            {"properties", {{std::string(kSchemaKey), {{"type", "string"},
                                                       {"description", "this schema's location, for editors"}}}}},
            {"additionalProperties", false}};
  for (const Field& f : scenario_fields()) add_field(root, f);
  // /failures/replacement may also be a bare duration: a fixed replacement time.
  schema_json& failures = root["properties"]["failures"];
  schema_json object_form = failures["properties"]["replacement"];
  Field fixed{"/failures/replacement", Unit::duration, Check::non_negative, Presence::optional, ReadBy::run, "", nullptr};
  failures["properties"]["replacement"] = {
      {"description", "machine replacement time: a duration (fixed) or an object naming a distribution"},
      {"anyOf", {value_schema(fixed), object_form}}};
  return root;
}

}  // namespace ckptsim
