#pragma once
// Unit strings of the scenario format (docs/architecture.md, "Decisions").
//
// Input quantities are strings with suffixes; inside, everything is SI:
//   duration   "250ms" "15s" "5min" "3h" "30d" (ns us ms s min h d)            -> SimTime
//   bytes      "128MiB" "1.2TB" (B; KB MB GB TB PB = 1000^k; KiB MiB GiB TiB PiB = 1024^k) -> bytes
//   bandwidth  "400Gbps" (bits/s: bps Kbps Mbps Gbps Tbps, 1000^k)
//              "1GB/s" "25GiB/s" (bytes/s: B/s KB/s ... GiB/s)                 -> bytes/s
//   rate       "1.5%/machine/day", "0.02/machine/h" (per machine), "2/cluster/day" (the whole
//              cluster; "/job/" alike), "0.06%/domain/day" (per failure domain); a time unit
//              of s min h d day week year                                    -> failures/subject/s
//   flop rate  "312TFLOPS" (FLOPS KFLOPS MFLOPS GFLOPS TFLOPS PFLOPS, 1000^k)   -> FLOP/s
//   fraction   0.5 or "50%"                                                    -> [0, 1]
// A bare JSON number is accepted where the unit is unambiguous: seconds for durations, bytes
// for sizes. Bits vs bytes and 1000 vs 1024 are always explicit in the suffix.
// Every parser throws UnitError with what was expected when the text is not understood.
#include <stdexcept>
#include <string>
#include <string_view>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

class UnitError : public std::runtime_error {
 public:
  explicit UnitError(const std::string& expected) : std::runtime_error(expected) {}
};

SimTime parse_duration(std::string_view text);
/// The one range check of every duration an input writes, as a unit string or as a bare number
/// of seconds: finite, zero or more, at most 100 years (kMaxDuration, docs/limits.md); UnitError
/// otherwise. parse_duration applies it after the unit.
SimTime duration_from_seconds(double seconds);
double parse_bytes(std::string_view text);
double parse_bandwidth(std::string_view text);         ///< bytes per second
/// Failures per machine per second, from a rate that says so ("1.5%/machine/day") or a zero. A
/// rate per cluster needs the machine count, which this reader (a trace spec, a sweep's axis
/// value) does not have: refused, as is a bare rate (read_failure_rate).
double parse_failure_rate(std::string_view text);
double parse_flop_rate(std::string_view text);         ///< FLOP per second
double parse_fraction(std::string_view text);          ///< in [0, 1]

/// Whose failures a rate string counts: the word between its number and its time unit.
enum class RateSubject {
  none,     ///< no word ("0/day"): allowed for a zero rate only, which means the same for every subject
  machine,  ///< "1.5%/machine/day": each machine's own failures
  cluster,  ///< "2/cluster/day" or "2/job/day": the whole cluster's, all its machines (or domains) together
  domain,   ///< "0.06%/domain/day": each failure domain's (one rack, leaf switch or power domain)
};

/// Which subjects a scenario field's rate may name. A process that strikes one machine at a time
/// (failures.rate, stragglers, silent corruption) is stated per machine or per cluster; a failure
/// domain's (failures.domains.*.rate, all its machines at once) per domain or per cluster. A
/// domain's failures per machine would not say how often the domain fails, and a machine
/// process has no domain: both are refused.
enum class RateScope { machine, domain };

struct FailureRate {
  double per_second = 0;                    ///< failures per subject per second, >= 0
  RateSubject subject = RateSubject::none;
};

/// Reads "<number>[%]/<subject>/<time unit>": a number >= 0, an optional percent sign (blanks
/// around both allowed), "/", a subject word of `scope` ("machine" or "domain"; "cluster" or
/// "job" for both) and "/", then s min h d day week year. A zero rate may leave the subject out
/// ("0/day"); any other rate must name it, since "2/day" reads as 2 per machine to one reader
/// and 2 per cluster to another. Throws UnitError saying what was expected, with both spellings.
FailureRate read_failure_rate(std::string_view text, RateScope scope);

/// What a rate of `scope` is written as, for messages: "a failure rate per machine or per cluster,
/// such as "1.5%/machine/day" or "2/cluster/day" (time units: s min h d day week year)".
std::string failure_rate_expectation(RateScope scope);

/// Human-readable forms for tables ("1.50 GiB", "400 Gbps", "3 h 0 min").
std::string format_bytes(double bytes);
std::string format_bandwidth(double bytes_per_second);
std::string format_duration(SimTime t);

/// Scenario input text for a rate rounded to `digits` significant digits, in the base unit of
/// the parsers' suffix tables: bytes/s ("1.23457e+10B/s", read back by parse_bandwidth) and
/// FLOP/s ("9.89e+14FLOPS", parse_flop_rate). For writers of scenario fragments (calibrate).
std::string bandwidth_input_text(double bytes_per_second, int digits);
std::string flop_rate_input_text(double flops, int digits);

}  // namespace ckptsim
