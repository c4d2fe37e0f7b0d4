#pragma once
// Failure traces from published statistical descriptions, and statistics of a trace
// (`ckptsim trace synth`, `ckptsim trace stats`). Sources are restated in
// docs/failure-data.md.
//
// Presets (a FailureSpec plus its provenance):
//   llama3-405b   exponential at 419 interruptions / (2,048 machines x 54 days) =
//                 0.003789 per machine-day, causes from the Llama 3 405B table (arXiv 2407.21783).
//   opt-175b      exponential at ~2 machines down per day on 124 machines = 0.01613 per
//                 machine-day (OPT-175B logbook, metaseq); the log gives no hardware/software
//                 split, so hardware_fraction is the project default 0.5.
//   lanl-weibull  per-machine Weibull renewal with shape 0.7 (decreasing hazard; Schroeder and
//                 Gibson, DSN 2006, report shapes 0.7-0.8 for times between node failures);
//                 scale set so the long-run rate is 1.5% per machine-day (GEMINI's rate), since
//                 the shape, not LANL's absolute rate, is what the preset carries.
// SPEC: "NAME[:key=value,...]" where NAME is a preset, "exponential" or "weibull"; keys rate
// (a failure rate), shape (Weibull k), hardware (a fraction), causes (a cause preset name).
//
// Statistics: the trace is read as N per-machine renewal processes observed over [0, D]: the
// times between a machine's failures (from 0 for its first) are complete lifetimes, the time from
// its last failure (or 0) to D a right-censored one. Exponential MLE: rate = r / sum(t) over all
// r failures and total observed time. Weibull MLE with censoring: the shape k solves
//   r/k + sum_failures ln t - r * sum_all t^k ln t / sum_all t^k = 0
// (bisection on ln k; the left side decreases in k), scale = (sum_all t^k / r)^(1/k).
// Likelihood-ratio test of exponential (k = 1) against Weibull: 2 (lnL_W - lnL_E) ~ chi2(1).
#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptsim/failure/failure_process.hpp"

namespace ckptsim {

struct TraceSynthesisSpec {
  std::string name;                   ///< preset or process name as given
  FailureSpec failures;
  std::vector<std::string> provenance;  ///< header lines: sources and figures encoded
};

/// Parses "NAME[:key=value,...]"; throws InputError (pointer = the key) on anything else.
TraceSynthesisSpec parse_trace_spec(const std::string& text);

/// The failures of one replica (seed, replica 0) on `machines` over [0, duration): one record per
/// machine (a domain failure gives one line per machine at the same time), cause names from
/// failure_causes(). Throws LimitError beyond kMaxTraceRecords expected records.
std::vector<TraceRecord> synthesize_trace(const FailureSpec& spec, int machines, SimTime duration,
                                          std::uint64_t seed);

/// Writes the trace CSV (time,machine,type,cause) with '#' header lines: the provenance, then
/// "# machines: N", "# duration: D", "# seed: S" (read back by trace stats).
void write_trace_csv(std::ostream& out, const std::vector<TraceRecord>& records,
                     const std::vector<std::string>& header, int machines, SimTime duration, std::uint64_t seed);

/// The most machines a trace (synth --machines, stats --machines, "# machines:") describes.
inline constexpr int kMaxTraceMachines = 1'000'000;

/// "# machines: N" and "# duration: D" from a trace file's leading '#' lines, when present. A
/// present line must hold exactly an integer from 1 to kMaxTraceMachines, or a duration greater
/// than zero: anything else is an InputError at its line ("/line/N"), never read half-way or
/// ignored.
struct TraceHeader {
  std::optional<int> machines;
  std::optional<SimTime> duration;
};
/// read_input_file (core/input_file.hpp) + parse_trace_header.
TraceHeader read_trace_header(const std::string& path);
TraceHeader parse_trace_header(std::string_view text, const std::string& path);

struct LifetimeFit {
  double exponential_rate = 0;       ///< per second
  double exponential_log_likelihood = 0;
  double weibull_shape = 0;
  double weibull_scale_s = 0;
  double weibull_log_likelihood = 0;
  double likelihood_ratio = 0;       ///< 2 (lnL_W - lnL_E)
  double p_value = 1;                ///< of the exponential model, chi2(1)
};

struct TraceStats {
  int machines = 0;
  SimTime duration;
  std::int64_t failures = 0;          ///< records (machine failures)
  std::int64_t events = 0;            ///< distinct failure times (a domain failure counts once)
  double rate_per_machine_day = 0;    ///< failures / (machines x days)
  std::optional<LifetimeFit> fit;     ///< nullopt with fewer than 2 failures
  std::int64_t hardware = 0;
  std::int64_t software = 0;
  std::map<std::string, std::int64_t> causes;  ///< by cause column ("" when absent)
  int machines_failed = 0;            ///< machines with at least one failure
  int machines_repeated = 0;          ///< machines with two or more
  int most_failures = 0;              ///< the largest count on one machine
};

/// `machines` and `duration` must cover every record (machine < machines, time <= duration).
TraceStats trace_stats(const std::vector<TraceRecord>& records, int machines, SimTime duration);

/// The censored-Weibull and exponential maximum-likelihood fit of lifetimes (complete ones with
/// failed = true, censored ones false). Needs at least two complete lifetimes.
LifetimeFit fit_lifetimes(const std::vector<double>& lifetimes_s, const std::vector<bool>& failed);

}  // namespace ckptsim
