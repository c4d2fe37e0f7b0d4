// Reading one scenario field from its JSON value (field_read.hpp).
#include "field_read.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <variant>

#include "cause_table.hpp"
#include "ckptsim/scenario/bus_curve_json.hpp"
#include "ckptsim/scenario/failure_rate_fields.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

using nlohmann::json;

std::string check_text(Check c) {
  switch (c) {
    case Check::none: return "";
    case Check::positive: return "greater than zero";
    case Check::non_negative: return "zero or more";
    case Check::at_least_one: return "at least 1";
    case Check::unit_interval: return "in (0, 1]";
    case Check::probability: return "in [0, 1)";
  }
  return "";
}

bool passes(Check c, double v) {
  switch (c) {
    case Check::none: return true;
    case Check::positive: return v > 0;
    case Check::non_negative: return v >= 0;
    case Check::at_least_one: return v >= 1;
    case Check::unit_interval: return v > 0 && v <= 1;
    case Check::probability: return v >= 0 && v < 1;
  }
  return true;
}

/// Each reader returns false when the value does not fit (nothing stored); unit parsers may
/// throw UnitError instead.
bool read_text(const Field& f, const json& v, Scenario& s) {
  if (!v.is_string()) return false;
  const auto text = v.get<std::string>();
  return std::visit(
      [&](auto* member) {
        using T = std::remove_pointer_t<decltype(member)>;
        if constexpr (std::is_same_v<T, SchedulerId>) {
          const std::optional<SchedulerId> value = find_scheduler(text);  // built-in or registered
          if (value) *member = *value;
          return value.has_value();
        } else if constexpr (std::is_enum_v<T>) {
          const std::optional<T> value = parse_name<T>(text);  // the enum's name table
          if (value) *member = *value;
          return value.has_value();
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (f.unit == Unit::name) {
            const auto names = f.choices();
            if (std::find(names.begin(), names.end(), text) == names.end()) return false;
          }
          *member = text;
          return true;
        } else {
          return false;  // a text unit bound to a non-text member: a table error the loader tests catch
        }
      },
      f.bind(s));
}

bool read_integer(const Field& f, const json& v, Scenario& s) {
  if (!v.is_number_integer()) return false;
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::numeric_limits<std::int64_t>::max()) return false;
  const auto n = v.get<std::int64_t>();
  if (!passes(f.check, static_cast<double>(n))) return false;
  const FieldRef ref = f.bind(s);
  if (auto* p = std::get_if<int*>(&ref)) {
    if (n > std::numeric_limits<int>::max() || n < std::numeric_limits<int>::min()) return false;
    **p = static_cast<int>(n);
  } else {
    *std::get<std::optional<std::int64_t>*>(ref) = n;
  }
  return true;
}

bool read_seed(const Field& f, const json& v, Scenario& s) {
  // 0 .. 2^63-1 everywhere (the --seed options take the same range): refuse 2^63 and above.
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<std::int64_t>() < 0)) return false;
  if (v.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) return false;
  *std::get<std::uint64_t*>(f.bind(s)) = v.get<std::uint64_t>();
  return true;
}

bool read_fraction(const Field& f, const json& v, Scenario& s) {
  double x = 0;
  if (v.is_number()) {
    x = v.get<double>();
    if (x < 0 || x > 1) return false;
  } else if (v.is_string()) {
    x = parse_fraction(v.get<std::string>());
  } else {
    return false;
  }
  if (!passes(f.check, x)) return false;  // e.g. a speed: positive as well as at most 1
  *std::get<double*>(f.bind(s)) = x;
  return true;
}

bool read_duration(const Field& f, const json& v, Scenario& s) {
  std::optional<SimTime> t;
  if (v.is_string() && f.unit == Unit::duration_or_never && v.get<std::string>() == "never") {
    t = std::nullopt;
  } else if (v.is_string() || v.is_number()) {
    t = duration_value(v);
  } else {
    return false;
  }
  if (t && !passes(f.check, t->seconds())) return false;
  const FieldRef ref = f.bind(s);
  if (auto* p = std::get_if<SimTime*>(&ref)) {
    **p = *t;  // a plain duration field never reads "never"
  } else {
    *std::get<std::optional<SimTime>*>(ref) = t;
  }
  return true;
}

/// Quantities stored as a double: plain numbers and unit strings.
bool read_quantity(const Field& f, const json& v, Scenario& s) {
  double x = 0;
  if (v.is_number() && (f.unit == Unit::number || f.unit == Unit::bytes)) {
    x = v.get<double>();
  } else if (v.is_string() && f.unit != Unit::number) {
    const auto text = v.get<std::string>();
    switch (f.unit) {
      case Unit::bytes: x = parse_bytes(text); break;
      case Unit::bandwidth: x = parse_bandwidth(text); break;
      // Per machine or per domain as written; a rate per cluster is shared out by the loader
      // once the counts are known (loader.cpp, spread_cluster_rates).
      case Unit::failure_rate: x = read_failure_rate(text, failure_rate_scope(f)).per_second; break;
      case Unit::flop_rate: x = parse_flop_rate(text); break;
      default: return false;
    }
  } else {
    return false;
  }
  if (!passes(f.check, x)) return false;
  const FieldRef ref = f.bind(s);
  if (auto* p = std::get_if<double*>(&ref)) {
    **p = x;
  } else {
    *std::get<std::optional<double>*>(ref) = x;
  }
  return true;
}

}  // namespace

SimTime duration_value(const json& v) {
  if (v.is_string()) return parse_duration(v.get<std::string>());
  if (v.is_number()) return duration_from_seconds(v.get<double>());  // a bare number is seconds
  throw UnitError("a duration such as \"15s\" or \"5min\", or a number of seconds");
}

std::string shown_value(const json& value) {
  constexpr std::size_t kLongest = 100;
  std::string text = value.dump();
  if (text.size() > kLongest) text = text.substr(0, kLongest) + "... (" + std::to_string(text.size()) + " characters)";
  return text;
}

std::string quoted_names(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += ", ";
    out += '"' + n + '"';
  }
  return out;
}

namespace {

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

/// Optimal-string-alignment distance (Levenshtein plus swaps of two neighbouring characters).
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

}  // namespace

std::vector<std::string> closest_names(const std::string& text, const std::vector<std::string>& names) {
  constexpr std::size_t kLongestCompared = 200;  // a megabyte-long value is nobody's typo
  constexpr std::size_t kMostShown = 3;
  std::vector<std::string> out;
  if (text.empty() || text.size() > kLongestCompared) return out;
  const std::string t = lowered(text);
  const std::size_t allowed = std::max<std::size_t>(1, t.size() / 3);
  std::size_t best = allowed + 1;
  for (const auto& name : names) {
    if (name == text) continue;  // the same name is never a hint (it was refused for another reason)
    const std::size_t d = edit_distance(t, lowered(name.substr(0, kLongestCompared)));  // 0: case alone differs
    if (d > allowed || d > best) continue;
    if (d < best) out.clear();
    best = d;
    out.push_back(name);
  }
  if (out.empty()) {
    for (const auto& name : names) {
      const std::string n = lowered(name);
      if (n != t && ((t.size() >= 3 && n.find(t) != std::string::npos) || (n.size() >= 3 && t.find(n) != std::string::npos)))
        out.push_back(name);
    }
  }
  if (out.size() > kMostShown) out.clear();  // many equally close names: no useful hint
  return out;
}

std::string did_you_mean(const std::string& text, const std::vector<std::string>& names) {
  const auto close = closest_names(text, names);
  if (close.empty()) return "";
  std::string out = " (did you mean ";
  for (std::size_t i = 0; i < close.size(); ++i) {
    if (i > 0) out += i + 1 == close.size() ? " or " : ", ";
    out += '"' + close[i] + '"';
  }
  return out + "?)";
}

std::string escape_pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) {
    if (c == '~') {
      out += "~0";
    } else if (c == '/') {
      out += "~1";
    } else {
      out += c;
    }
  }
  return out;
}

std::string field_expectation(const Field& f) {
  if (f.unit == Unit::name) return "one of " + quoted_names(f.choices());
  std::string text = f.unit == Unit::failure_rate ? failure_rate_expectation(failure_rate_scope(f)) : unit_expectation(f.unit);
  if (f.check != Check::none) text += ", " + check_text(f.check);
  if (f.unit == Unit::integer) text += ", at most " + std::to_string(integer_field_maximum(f));
  return text;
}

std::int64_t integer_field_maximum(const Field& f) {
  Scenario probe;
  if (std::holds_alternative<int*>(f.bind(probe))) return std::numeric_limits<int>::max();
  return std::numeric_limits<std::int64_t>::max();
}

std::optional<std::string> read_field_value(const Field& f, const json& v, Scenario& s) {
  try {
    bool ok = false;
    switch (f.unit) {
      case Unit::text:
      case Unit::name: ok = read_text(f, v, s); break;
      case Unit::boolean:
        ok = v.is_boolean();
        if (ok) *std::get<bool*>(f.bind(s)) = v.get<bool>();
        break;
      case Unit::seed: ok = read_seed(f, v, s); break;
      case Unit::integer: ok = read_integer(f, v, s); break;
      case Unit::fraction: ok = read_fraction(f, v, s); break;
      case Unit::duration:
      case Unit::duration_or_never: ok = read_duration(f, v, s); break;
      case Unit::number:
      case Unit::bytes:
      case Unit::bandwidth:
      case Unit::failure_rate:
      case Unit::flop_rate: ok = read_quantity(f, v, s); break;
      case Unit::bus_curve: {
        BusCurve curve;
        std::string problem = read_bus_curve(v, curve);
        if (!problem.empty()) return problem;
        *std::get<std::optional<BusCurve>*>(f.bind(s)) = std::move(curve);
        return std::nullopt;
      }
      case Unit::cause_table: {
        // The loader reads cause tables itself, to report each row's pointer
        // (read_cause_table); here only the first problem can be told.
        const auto problems = read_cause_table(v, *std::get<FailureCauseTable*>(f.bind(s)));
        if (problems.empty()) return std::nullopt;
        return problems.front().pointer.empty() ? problems.front().expected
                                                : "at " + problems.front().pointer + ": " + problems.front().expected;
      }
    }
    if (ok) return std::nullopt;
    return field_expectation(f);
  } catch (const UnitError& e) {
    // The parser's own words (they list the suffixes), plus what the unit text leaves out.
    std::string text = e.what();
    if (f.unit == Unit::duration_or_never) text += ", or \"never\"";
    if (f.check != Check::none && f.unit != Unit::bandwidth && f.unit != Unit::flop_rate)
      text += ", " + check_text(f.check);
    return text;
  }
}

}  // namespace ckptsim
