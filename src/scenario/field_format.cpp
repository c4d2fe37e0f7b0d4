// Writing scenario fields back as unit strings that parse to the same value (field_format.hpp).
#include "field_format.hpp"

#include <array>
#include <cmath>
#include <string_view>
#include <type_traits>

#include <fmt/format.h>

#include "cause_table.hpp"
#include "ckptsim/scenario/bus_curve_json.hpp"
#include "ckptsim/scenario/failure_rate_fields.hpp"
#include "ckptsim/scenario/units.hpp"

namespace ckptsim {
namespace {

struct UnitCandidate {
  std::string_view suffix;
  double factor;  ///< SI value of one unit of the suffix
};

/// Length, plus one for a decimal point: "150GB/s" reads better than "1.2Tbps".
std::size_t score(const std::string& text) { return text.size() + (text.find('.') != std::string::npos ? 1 : 0); }

/// The shortest text "<number><suffix>" (number >= 1; whole numbers preferred; the earlier candidate on a tie) that
/// parses back to exactly `value`; `fallback_suffix` (factor 1) with 17 significant digits always does.
template <std::size_t N, typename Parse>
std::string exact(double value, const std::array<UnitCandidate, N>& candidates, Parse parse,
                  std::string_view fallback_suffix) {
  std::string best = fmt::format("{:.17g}{}", value, fallback_suffix);
  for (const auto& c : candidates) {
    const double k = value / c.factor;
    if (k < 1) continue;  // "0.1Tbps" reads worse than "100Gbps"
    for (int decimals = 0; decimals <= 17; ++decimals) {
      std::string text = fmt::format("{:.{}f}{}", k, decimals, c.suffix);
      try {
        if (parse(text) != value) continue;
      } catch (const UnitError&) {
        break;
      }
      if (score(text) < score(best)) best = std::move(text);
      break;
    }
  }
  return best;
}

}  // namespace

std::string format_duration_exact(SimTime t) {
  if (t == SimTime::zero()) return "0s";
  // SimTime is whole nanoseconds: pick the largest suffix dividing it exactly.
  constexpr std::array<std::pair<std::string_view, std::int64_t>, 7> suffixes{{{"d", 86'400'000'000'000},
                                                                               {"h", 3'600'000'000'000},
                                                                               {"min", 60'000'000'000},
                                                                               {"s", 1'000'000'000},
                                                                               {"ms", 1'000'000},
                                                                               {"us", 1'000},
                                                                               {"ns", 1}}};
  for (const auto& [suffix, ns] : suffixes)
    if (t.ns() % ns == 0) return fmt::format("{}{}", t.ns() / ns, suffix);
  return fmt::format("{}ns", t.ns());
}

std::string format_bytes_exact(double bytes) {
  if (bytes == 0) return "0B";  // a zero size never parses from a suffix search
  constexpr double kKi = 1024.0;
  constexpr std::array<UnitCandidate, 10> c{{{"PiB", kKi * kKi * kKi * kKi * kKi},
                                         {"TiB", kKi * kKi * kKi * kKi},
                                         {"GiB", kKi * kKi * kKi},
                                         {"MiB", kKi * kKi},
                                         {"KiB", kKi},
                                         {"PB", 1e15},
                                         {"TB", 1e12},
                                         {"GB", 1e9},
                                         {"MB", 1e6},
                                         {"KB", 1e3}}};
  return exact(bytes, c, [](const std::string& s) { return parse_bytes(s); }, "B");
}

std::string format_bandwidth_exact(double bytes_per_second) {
  constexpr std::array<UnitCandidate, 10> c{{{"TB/s", 1e12},
                                         {"Tbps", 1e12 / 8},
                                         {"GB/s", 1e9},
                                         {"Gbps", 1e9 / 8},
                                         {"GiB/s", 1024.0 * 1024 * 1024},
                                         {"MB/s", 1e6},
                                         {"Mbps", 1e6 / 8},
                                         {"MiB/s", 1024.0 * 1024},
                                         {"KB/s", 1e3},
                                         {"Kbps", 1e3 / 8}}};
  return exact(bytes_per_second, c, [](const std::string& s) { return parse_bandwidth(s); }, "B/s");
}

std::string format_failure_rate_exact(double rate, RateScope scope) {
  // Zero without a subject: it means the same per machine, per domain and per cluster.
  if (rate == 0) return "0/day";
  // Percent per machine per day is how the literature states it (GEMINI §6: 1.5%/day). A rate
  // written per cluster is stored per machine (per domain), and written back so.
  const auto parse = [scope](const std::string& s) { return read_failure_rate(s, scope).per_second; };
  if (scope == RateScope::domain) {
    constexpr std::array<UnitCandidate, 3> c{{{"%/domain/day", 0.01 / 86400.0},
                                         {"/domain/day", 1.0 / 86400.0},
                                         {"/domain/h", 1.0 / 3600.0}}};
    return exact(rate, c, parse, "/domain/s");
  }
  constexpr std::array<UnitCandidate, 3> c{{{"%/machine/day", 0.01 / 86400.0},
                                       {"/machine/day", 1.0 / 86400.0},
                                       {"/machine/h", 1.0 / 3600.0}}};
  return exact(rate, c, parse, "/machine/s");
}

std::string format_flop_rate_exact(double flops) {
  constexpr std::array<UnitCandidate, 4> c{{{"PFLOPS", 1e15}, {"TFLOPS", 1e12}, {"GFLOPS", 1e9}, {"MFLOPS", 1e6}}};
  return exact(flops, c, [](const std::string& s) { return parse_flop_rate(s); }, "FLOPS");
}

namespace {

/// A double-valued quantity as the scenario writes it: a unit string for bytes, bandwidths,
/// failure and FLOP rates, so that the loader reads it back to the same value; else the number.
nlohmann::json quantity_json(const Field& field, double value) {
  switch (field.unit) {
    case Unit::bytes: return format_bytes_exact(value);
    case Unit::bandwidth: return format_bandwidth_exact(value);
    case Unit::failure_rate: return format_failure_rate_exact(value, failure_rate_scope(field));
    case Unit::flop_rate: return format_flop_rate_exact(value);
    default: return value;
  }
}

}  // namespace

nlohmann::json format_field(const Field& field, Scenario& s) {
  const FieldRef ref = field.bind(s);
  return std::visit(
      [&](auto* p) -> nlohmann::json {
        using T = std::remove_pointer_t<decltype(p)>;
        if constexpr (std::is_enum_v<T> || std::is_same_v<T, SchedulerId>) {
          return std::string(name_of(*p));
        } else if constexpr (std::is_same_v<T, std::string>) {
          if (p->empty() && field.presence != Presence::required && field.presence != Presence::defaulted)
            return nullptr;
          return *p;
        } else if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int> || std::is_same_v<T, std::int64_t> ||
                             std::is_same_v<T, std::uint64_t>) {
          if constexpr (std::is_same_v<T, int>)
            if (field.presence == Presence::gpu_kernel && *p == 0) return nullptr;  // unknown: no GPU type
          return *p;
        } else if constexpr (std::is_same_v<T, double>) {
          if (field.presence == Presence::gpu_kernel && *p == 0) return nullptr;  // unknown: no GPU type
          return quantity_json(field, *p);
        } else if constexpr (std::is_same_v<T, SimTime>) {
          return format_duration_exact(*p);
        } else if constexpr (std::is_same_v<T, std::optional<SimTime>>) {
          if (!*p) return field.unit == Unit::duration_or_never ? nlohmann::json("never") : nlohmann::json(nullptr);
          return format_duration_exact(**p);
        } else if constexpr (std::is_same_v<T, std::optional<double>>) {
          // With its unit, as the double fields: a bare number is refused by the loader for a
          // bandwidth (an optional strategy.heal_bandwidth or local_bandwidth written back).
          if (!*p) return nullptr;
          return quantity_json(field, **p);
        } else if constexpr (std::is_same_v<T, FailureCauseTable>) {
          return format_cause_table(*p);
        } else if constexpr (std::is_same_v<T, std::optional<BusCurve>>) {
          if (!*p) return nullptr;  // no curve: the GPU type publishes none
          return format_bus_curve(**p);
        } else {
          static_assert(std::is_same_v<T, std::optional<std::int64_t>>);
          if (!*p) return nullptr;
          return **p;
        }
      },
      ref);
}

}  // namespace ckptsim
