#pragma once
// Changing one row of the parameter table alone, as a user would write it, for the tests that go
// over every row (tests/unit/sweep/cost_key_test.cpp, tests/unit/run/unread_fields_test.cpp):
// the member the row fills is edited in a copy of the loaded scenario (integers +1, x2 and -1,
// numbers x1.5 and /1.5, durations x2 + 1 ms and /2, booleans flipped, an unset optional set to a
// small value and a set one unset, a name to every other name), and the new value is written at
// the row's pointer into the scenario document (as effective_scenario_json() writes it), so that
// the loader reads it with presets, derived values and cross-field checks.
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/cause_presets.hpp"
#include "ckptsim/scenario/parameters.hpp"
#include "ckptsim/scenario/scenario_json.hpp"

namespace ckptsim::test {

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

/// The edits of one row's member, each applied to its own copy of `base` (see the file comment).
inline std::vector<Scenario> edited_copies(const Field& f, const Scenario& base) {
  std::vector<Scenario> out;
  auto edit = [&](auto change) {
    Scenario s = base;
    change(f.bind(s));
    out.push_back(std::move(s));
  };
  Scenario probe = base;
  std::visit(
      Overloaded{
          [&](std::string*) {},  // names are changed by name below; free text (the scenario's name, a trace path) is not read by a model
          [&](int* v) {
            for (int d : {1, *v, -1}) edit([d](FieldRef r) { *std::get<int*>(r) += d; });
          },
          [&](std::int64_t* v) {
            for (std::int64_t d : {std::int64_t{1}, *v, std::int64_t{-1}}) edit([d](FieldRef r) { *std::get<std::int64_t*>(r) += d; });
          },
          [&](std::uint64_t*) { edit([](FieldRef r) { *std::get<std::uint64_t*>(r) += 1; }); },
          [&](double* v) {
            for (double factor : {1.5, 1 / 1.5}) edit([factor](FieldRef r) { *std::get<double*>(r) *= factor; });
            if (*v == 0) edit([](FieldRef r) { *std::get<double*>(r) = 0.5; });
          },
          [&](bool*) { edit([](FieldRef r) { *std::get<bool*>(r) = !*std::get<bool*>(r); }); },
          [&](SimTime* v) {
            if (*v == SimTime::max()) {  // "never": a finite value instead
              edit([](FieldRef r) { *std::get<SimTime*>(r) = hours(3); });
              return;
            }
            edit([](FieldRef r) { *std::get<SimTime*>(r) = *std::get<SimTime*>(r) * 2 + milliseconds(1); });
            edit([](FieldRef r) { *std::get<SimTime*>(r) = SimTime::from_ns(std::get<SimTime*>(r)->ns() / 2); });
          },
          [&](std::optional<SimTime>* v) {
            if (*v) {
              edit([](FieldRef r) { auto& o = *std::get<std::optional<SimTime>*>(r); o = *o * 2 + milliseconds(1); });
              edit([](FieldRef r) { std::get<std::optional<SimTime>*>(r)->reset(); });
            } else {
              for (SimTime t : {milliseconds(1), seconds(1), minutes(1)})
                edit([t](FieldRef r) { *std::get<std::optional<SimTime>*>(r) = t; });
            }
          },
          [&](std::optional<std::int64_t>* v) {
            if (*v) {
              for (std::int64_t d : {std::int64_t{1}, std::int64_t{-1}})
                edit([d](FieldRef r) { **std::get<std::optional<std::int64_t>*>(r) += d; });
              edit([](FieldRef r) { std::get<std::optional<std::int64_t>*>(r)->reset(); });
            } else {
              for (std::int64_t n : {0, 1, 2, 3, 4}) edit([n](FieldRef r) { *std::get<std::optional<std::int64_t>*>(r) = n; });
            }
          },
          [&](std::optional<double>* v) {
            if (*v) {
              for (double factor : {1.5, 1 / 1.5}) edit([factor](FieldRef r) { **std::get<std::optional<double>*>(r) *= factor; });
              edit([](FieldRef r) { std::get<std::optional<double>*>(r)->reset(); });
            } else {
              for (double x : {0.5, 0.9}) edit([x](FieldRef r) { *std::get<std::optional<double>*>(r) = x; });
            }
          },
          [&](std::optional<BusCurve>* v) {
            using Curve = std::optional<BusCurve>;
            if (*v) {
              for (double factor : {1.5, 1 / 1.5})
                edit([factor](FieldRef r) {
                  for (BusPoint& p : (*std::get<Curve*>(r))->points) p.bus_bandwidth *= factor;
                });
              edit([](FieldRef r) { std::get<Curve*>(r)->reset(); });
            } else {
              edit([](FieldRef r) {
                BusCurve c;
                c.points = {{1 << 20, 100e9}, {1 << 30, 300e9}};
                *std::get<Curve*>(r) = c;
              });
            }
          },
          [&](FailureCauseTable*) {},  // a cause preset is changed by name below
          [&](auto*) {},               // enums: by name below
      },
      f.bind(probe));
  return out;
}

/// The documents to try for one row: the base document with the row's pointer rewritten to each
/// edited value (as the effective scenario writes it), or removed (an unset optional), or set to
/// each other name of a name-valued row.
inline std::vector<nlohmann::json> edited_documents(const Field& f, const Scenario& base, const nlohmann::json& base_doc) {
  using nlohmann::json;
  std::vector<json> out;
  const json::json_pointer at{std::string(f.pointer)};
  const json base_effective = effective_scenario_json(base);
  const json current = base_effective.contains(at) ? base_effective.at(at) : json();
  if (f.unit == Unit::name || f.unit == Unit::cause_table) {
    std::vector<std::string> names;
    if (f.choices != nullptr) names = f.choices();
    if (f.unit == Unit::cause_table) names = cause_preset_names();
    for (const std::string& name : names) {
      if (current.is_string() && current.get<std::string>() == name) continue;
      json doc = base_doc;
      doc[at] = name;
      out.push_back(std::move(doc));
    }
    return out;
  }
  for (const Scenario& s : edited_copies(f, base)) {
    const json effective = effective_scenario_json(s);
    json doc = base_doc;
    if (effective.contains(at)) {
      if (effective.at(at) == current) continue;
      doc[at] = effective.at(at);
    } else {
      if (current.is_null() || !doc.contains(at)) continue;  // unset already, or only derived
      doc.at(at.parent_pointer()).erase(at.back());
    }
    out.push_back(std::move(doc));
  }
  return out;
}

}  // namespace ckptsim::test
