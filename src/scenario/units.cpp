#include "ckptsim/scenario/units.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "unit_suffixes.hpp"
#include "ckptsim/core/checked_time.hpp"

namespace ckptsim {
namespace {

struct Suffix {
  std::string_view text;
  double factor;
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

/// Splits "12.5 GiB" into 12.5 and "GiB". Throws when no finite number leads the text.
std::pair<double, std::string_view> split_number(std::string_view text, const std::string& expected) {
  text = trim(text);
  double value = 0.0;
  const char* begin = text.data();
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, value);
  if (ec != std::errc() || !std::isfinite(value)) throw UnitError(expected);
  return {value, trim(std::string_view(ptr, static_cast<std::size_t>(end - ptr)))};
}

template <std::size_t N>
double scaled(std::string_view text, const std::array<Suffix, N>& suffixes, const std::string& expected,
              bool allow_bare) {
  auto [value, suffix] = split_number(text, expected);
  if (suffix.empty()) {
    if (allow_bare) return value;
    throw UnitError(expected);
  }
  for (const auto& s : suffixes)
    if (s.text == suffix) {
      // 1e300PiB is a finite number times a finite unit, but not a finite quantity.
      if (!std::isfinite(value * s.factor)) throw UnitError(expected + ", finite once its unit is applied");
      return value * s.factor;
    }
  throw UnitError(expected);
}

// Upper bounds far beyond any hardware, so that products of inputs stay finite
// (docs/limits.md, "Value ranges").
constexpr double kMaxBytes = 1e21;
constexpr double kMaxBandwidth = 1e18;
constexpr double kMaxFlopRate = 1e21;

constexpr double kKilo = 1e3, kMega = 1e6, kGiga = 1e9, kTera = 1e12, kPeta = 1e15;
constexpr double kKi = 1024.0, kMi = kKi * 1024.0, kGi = kMi * 1024.0, kTi = kGi * 1024.0, kPi = kTi * 1024.0;

constexpr std::array<Suffix, 7> kDurationSuffixes{{
    {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1.0}, {"min", 60.0}, {"h", 3600.0}, {"d", 86400.0}}};

constexpr std::array<Suffix, 11> kByteSuffixes{{{"B", 1.0},
                                                {"KB", kKilo},
                                                {"MB", kMega},
                                                {"GB", kGiga},
                                                {"TB", kTera},
                                                {"PB", kPeta},
                                                {"KiB", kKi},
                                                {"MiB", kMi},
                                                {"GiB", kGi},
                                                {"TiB", kTi},
                                                {"PiB", kPi}}};

constexpr std::array<Suffix, 15> kBandwidthSuffixes{{
    {"bps", 1.0 / 8},      {"Kbps", kKilo / 8},  {"Mbps", kMega / 8}, {"Gbps", kGiga / 8},  {"Tbps", kTera / 8},
    {"B/s", 1.0},          {"KB/s", kKilo},      {"MB/s", kMega},     {"GB/s", kGiga},      {"TB/s", kTera},
    {"KiB/s", kKi},        {"MiB/s", kMi},       {"GiB/s", kGi},      {"TiB/s", kTi},       {"PB/s", kPeta},
}};

constexpr std::array<Suffix, 6> kFlopSuffixes{{{"FLOPS", 1.0},
                                              {"KFLOPS", kKilo},
                                              {"MFLOPS", kMega},
                                              {"GFLOPS", kGiga},
                                              {"TFLOPS", kTera},
                                              {"PFLOPS", kPeta}}};

constexpr std::array<Suffix, 7> kPerTimeSuffixes{{{"s", 1.0},
                                                 {"min", 60.0},
                                                 {"h", 3600.0},
                                                 {"d", 86400.0},
                                                 {"day", 86400.0},
                                                 {"week", 7 * 86400.0},
                                                 {"year", 365.0 * 86400.0}}};

template <std::size_t N>
std::vector<std::string_view> suffix_texts(const std::array<Suffix, N>& suffixes) {
  std::vector<std::string_view> out;
  for (const auto& s : suffixes) out.push_back(s.text);
  return out;
}

}  // namespace

std::vector<std::string_view> duration_suffixes() { return suffix_texts(kDurationSuffixes); }
std::vector<std::string_view> byte_suffixes() { return suffix_texts(kByteSuffixes); }
std::vector<std::string_view> bandwidth_suffixes() { return suffix_texts(kBandwidthSuffixes); }
std::vector<std::string_view> flop_rate_suffixes() { return suffix_texts(kFlopSuffixes); }
std::vector<std::string_view> per_time_suffixes() { return suffix_texts(kPerTimeSuffixes); }

namespace {
const std::string kDurationExpected =
    "a non-negative duration such as \"15s\", \"5min\", \"3h\" or \"30d\" (ns us ms s min h d)";
}  // namespace

SimTime duration_from_seconds(double s) {
  if (!std::isfinite(s) || s < 0) throw UnitError(kDurationExpected);
  if (s > kMaxDurationSeconds)
    throw UnitError(fmt::format("a duration of at most 100 years ({:.6g} s, the simulated clock's range; see "
                                "docs/limits.md)",
                                kMaxDurationSeconds));
  return SimTime::from_seconds(s);
}

SimTime parse_duration(std::string_view text) {
  return duration_from_seconds(scaled(text, kDurationSuffixes, kDurationExpected, false));
}

static_assert(kBandwidthSuffixes[5].factor == 1.0 && kFlopSuffixes[0].factor == 1.0,
              "bandwidth_input_text and flop_rate_input_text write the base-unit suffixes");

double parse_bytes(std::string_view text) {
  const std::string expected =
      "a non-negative size such as \"128MiB\" or \"1.2TB\" (B KB MB GB TB PB, KiB MiB GiB TiB PiB)";
  const double b = scaled(text, kByteSuffixes, expected, false);
  if (b < 0) throw UnitError(expected);
  if (b > kMaxBytes) throw UnitError("a size of at most 1e21 bytes (1 ZB)");
  return b;
}

double parse_bandwidth(std::string_view text) {
  const std::string expected =
      "a positive bandwidth such as \"400Gbps\" (bits/s: bps Kbps Mbps Gbps Tbps) or \"25GB/s\" (bytes/s: B/s KB/s "
      "MB/s GB/s TB/s KiB/s MiB/s GiB/s TiB/s)";
  const double bw = scaled(text, kBandwidthSuffixes, expected, false);
  if (!(bw > 0)) throw UnitError(expected);
  if (bw > kMaxBandwidth) throw UnitError("a bandwidth of at most 1e18 bytes/s (1 EB/s)");
  return bw;
}

namespace {

/// The time units after the subject, for messages: "s min h d day week year".
std::string per_time_units() {
  std::string out;
  for (const auto& s : kPerTimeSuffixes) {
    if (!out.empty()) out += ' ';
    out += s.text;
  }
  return out;
}

struct SubjectWord {
  std::string_view word;
  RateSubject subject;
};
constexpr std::array<SubjectWord, 4> kRateSubjects{{{"machine", RateSubject::machine},
                                                   {"cluster", RateSubject::cluster},
                                                   {"job", RateSubject::cluster},
                                                   {"domain", RateSubject::domain}}};

bool subject_allowed(RateSubject subject, RateScope scope) {
  switch (subject) {
    case RateSubject::none: return false;  // a zero only (read_failure_rate)
    case RateSubject::machine: return scope == RateScope::machine;
    case RateSubject::cluster: return true;
    case RateSubject::domain: return scope == RateScope::domain;
  }
  return false;
}

}  // namespace

std::vector<std::string_view> rate_subject_words(RateScope scope) {
  std::vector<std::string_view> out;
  for (const auto& s : kRateSubjects)
    if (subject_allowed(s.subject, scope)) out.push_back(s.word);
  return out;
}

std::string failure_rate_expectation(RateScope scope) {
  const std::string units = " (time units: " + per_time_units() + ")";
  if (scope == RateScope::domain)
    return "a failure rate per domain or per cluster, such as \"0.06%/domain/day\" (each domain) or \"2/cluster/day\" "
           "(all the domains together)" + units;
  return "a failure rate per machine or per cluster, such as \"1.5%/machine/day\" or \"2/cluster/day\"" + units;
}

FailureRate read_failure_rate(std::string_view text, RateScope scope) {
  const std::string expected = failure_rate_expectation(scope);
  auto [value, rest] = split_number(text, expected);
  if (value < 0 || std::signbit(value)) throw UnitError(expected);
  if (!rest.empty() && rest.front() == '%') {
    value /= 100.0;
    rest.remove_prefix(1);
  }
  rest = trim(rest);
  if (rest.empty() || rest.front() != '/') throw UnitError(expected);
  rest.remove_prefix(1);
  FailureRate rate;
  for (const auto& s : kRateSubjects) {
    if (rest.substr(0, s.word.size()) != s.word || rest.substr(s.word.size(), 1) != "/") continue;
    rate.subject = s.subject;
    rest.remove_prefix(s.word.size() + 1);
    break;
  }
  if (rate.subject == RateSubject::none && value != 0) throw UnitError(expected);
  if (rate.subject != RateSubject::none && !subject_allowed(rate.subject, scope)) {
    // The one word that does not fit: say why.
    if (rate.subject == RateSubject::machine)
      throw UnitError(expected + "; a domain's failure takes all its machines at once, so a rate per machine does not "
                                 "say how often it fails");
    throw UnitError(expected + "; this process strikes one machine at a time, not a failure domain");
  }
  for (const auto& s : kPerTimeSuffixes)
    if (s.text == rest) {
      rate.per_second = value / s.factor;
      return rate;
    }
  throw UnitError(expected);
}

double parse_failure_rate(std::string_view text) {
  const std::string expected = "a failure rate per machine, such as \"1.5%/machine/day\" or \"0.02/machine/h\" (time units: " +
                               per_time_units() + "); a rate per cluster needs the machine count, not known here";
  FailureRate rate;
  try {
    rate = read_failure_rate(text, RateScope::machine);
  } catch (const UnitError&) {
    throw UnitError(expected);
  }
  if (rate.subject == RateSubject::cluster) throw UnitError(expected);
  return rate.per_second;
}

double parse_flop_rate(std::string_view text) {
  const std::string expected = "a positive FLOP rate such as \"312TFLOPS\" (FLOPS KFLOPS MFLOPS GFLOPS TFLOPS PFLOPS)";
  const double f = scaled(text, kFlopSuffixes, expected, false);
  if (!(f > 0)) throw UnitError(expected);
  if (f > kMaxFlopRate) throw UnitError("a FLOP rate of at most 1e21 FLOPS");
  return f;
}

double parse_fraction(std::string_view text) {
  const std::string expected = "a fraction in [0, 1] such as 0.5 or \"50%\"";
  auto [value, rest] = split_number(text, expected);
  if (rest == "%") {
    value /= 100.0;
  } else if (!rest.empty()) {
    throw UnitError(expected);
  }
  if (value < 0 || value > 1) throw UnitError(expected);
  return value;
}

std::string format_bytes(double bytes) {
  constexpr std::array<std::string_view, 6> names{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  std::size_t i = 0;
  double v = bytes;
  while (std::fabs(v) >= 1024.0 && i + 1 < names.size()) {
    v /= 1024.0;
    ++i;
  }
  return i == 0 ? fmt::format("{:.0f} B", v) : fmt::format("{:.2f} {}", v, names[i]);
}

std::string format_bandwidth(double bytes_per_second) {
  const double bits = bytes_per_second * 8.0;
  if (bits >= 1e12) return fmt::format("{:.3g} Tbps", bits / 1e12);
  if (bits >= 1e9) return fmt::format("{:.3g} Gbps", bits / 1e9);
  if (bits >= 1e6) return fmt::format("{:.3g} Mbps", bits / 1e6);
  return fmt::format("{:.3g} bps", bits);
}

std::string bandwidth_input_text(double bytes_per_second, int digits) {
  return fmt::format("{:.{}g}{}", bytes_per_second, digits, kBandwidthSuffixes[5].text);  // B/s
}

std::string flop_rate_input_text(double flops, int digits) {
  return fmt::format("{:.{}g}{}", flops, digits, kFlopSuffixes[0].text);  // FLOPS
}

std::string format_duration(SimTime t) {
  const double s = t.seconds();
  if (std::fabs(s) < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (std::fabs(s) < 1.0) return fmt::format("{:.1f} ms", s * 1e3);
  if (std::fabs(s) < 120.0) return fmt::format("{:.2f} s", s);
  if (std::fabs(s) < 2 * 3600.0) return fmt::format("{:.1f} min", s / 60.0);
  if (std::fabs(s) < 2 * 86400.0) return fmt::format("{:.2f} h", s / 3600.0);
  return fmt::format("{:.2f} d", s / 86400.0);
}

}  // namespace ckptsim
