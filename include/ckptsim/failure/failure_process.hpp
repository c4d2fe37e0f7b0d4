#pragma once
// Failure processes: when, where and of which type machines fail during one replica of a run.
//
// A FailureSource yields the replica's failures in time order, lazily, so the run model only
// ever looks at the next one (its cost is proportional to failures, not to machines x time).
// Models (each registered by name, `ckptsim list`):
//   exponential  Every machine fails as a Poisson process of rate lambda (failures/machine/s).
//                By superposition the cluster's failures form a Poisson process of rate
//                N*lambda whose machine is uniform over 0..N-1: inter-arrival ~ Exp(N*lambda).
//                GEMINI uses 1.5% of machines per day, from the OPT-175B log (GEMINI, SOSP '23, §6).
//   weibull      Each machine is a renewal process whose times between failures are
//                Weibull(shape k, scale lambda): P(X > x) = exp(-(x/lambda)^k). k < 1 gives the
//                decreasing hazard (clustered failures) of Schroeder & Gibson, DSN 2006.
//                Mean time between failures per machine = lambda * Gamma(1 + 1/k).
//   trace        Failures replayed from a CSV file (time, machine, type); identical in every replica.
//   none         No failures.
// Types: each failure is hardware with probability `hardware_fraction`, drawn from its own
// stream, unless the trace gives the type. Streams: (seed, replica, failures, machine or 0) and
// (seed, replica, failure_types).
//
// Causes (failures/causes): with a cause table, each machine failure draws its cause from the
// table's normalized shares (stream failure_types) and takes the cause's outcome; the causes of a
// run are indexed as failure_causes() lists them.
// Failure domains (failures/domains): each kind (rack, leaf, power) with machines-per-domain s
// and rate r per domain adds a Poisson process of rate ceil(N/s) x r whose domain d is uniform;
// the event takes machines [d*s, min(N, (d+1)*s)) down at the same instant, hardware with the
// kind's probability. Stream (seed, replica, domains, kind). Merged in time order with the machine
// failures (ties: machine failures first, then kinds in rack, leaf, power order).
// Lemon nodes (failures/lemons): machine i's rate is x_i times the base: x_i = multiple for a
// `fraction` of machines (which ones drawn per replica), or x_i ~ Gamma(k, 1/k) (mean 1).
// Exponential: the cluster process has rate sum_i x_i lambda and picks machine i with
// probability x_i / sum x (a Fenwick tree: O(log N) per failure). Weibull: machine i's scale is
// lambda / x_i, so its long-run renewal rate is x_i times the base. Quarantine: a machine's k-th failure within the window
// makes it hardware (replaced) and its replacement is a fresh machine with x = 1.
// Stream (seed, replica, lemons).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ckptsim/core/registry.hpp"
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

enum class FailureType { software, hardware };

struct FailureEvent {
  SimTime time;
  int machine = 0;     ///< the first machine down
  int machines = 1;    ///< machines machine .. machine+machines-1 go down at once (a domain failure)
  FailureType type = FailureType::software;
  int cause = 0;       ///< index into failure_causes()
  bool hang = false;   ///< found by timeouts, not by a process exit (fault_model.hpp)
  /// The detection of silent corruption k (CorruptionOnsets' k-th onset, from 0); none otherwise.
  std::optional<std::int64_t> corruption = std::nullopt;
  /// Announced early enough to move the machine's state to a standby first (failure/migration.hpp).
  bool predicted = false;
};

/// A cause a failure can be attributed to, with the times the run model uses for it.
struct FailureCause {
  std::string name;
  SimTime detection;
  SimTime restart;
};

/// The causes of a run, in index order: the cause table's rows (or "software", "hardware" without
/// one), then each modelled domain kind ("rack", "leaf", "power").
std::vector<FailureCause> failure_causes(const FailureSpec& spec);

/// Index of the first domain cause in failure_causes().
int domain_cause_base(const FailureSpec& spec);

/// Failure events one replica should expect over `horizon` (machine and domain failures; the
/// lemon multipliers have mean 1 in the gamma model, and fraction x multiple + 1 - fraction in the
/// fraction model). Used to refuse runs beyond a stated work limit before they start.
double expected_failure_events(const FailureSpec& spec, int machines, SimTime horizon);

class FailureSource {
 public:
  virtual ~FailureSource() = default;
  /// The next failure strictly in time order; nullopt when there are no more.
  virtual std::optional<FailureEvent> next() = 0;
};

struct TraceRecord {
  SimTime time;
  int machine = 0;
  FailureType type = FailureType::software;
  std::string cause;   ///< the optional fourth column; "" when absent
  int line = 0;        ///< the line of the file it was read from (0 when not read from a file)
};

/// Reads a failure trace CSV: optional '#' comment lines, a header `time,machine,type` (or
/// `time,machine,type,cause`), then one failure per line (time as seconds or a duration string,
/// machine index, software|hardware, and a cause name [a-z0-9_-] with the fourth column).
/// A domain failure is one line per machine at the same time. At most kMaxTraceRecords lines.
/// Throws InputError naming the file, the line (as pointer "/line/N") and what was wrong.
std::vector<TraceRecord> load_failure_trace(const std::string& path, int machines);

/// The same reader on a file's text, already read (through core/input_file.hpp) from `path`.
std::vector<TraceRecord> parse_failure_trace(std::string_view text, const std::string& path, int machines);

constexpr std::size_t kMaxTraceRecords = 10'000'000;

struct FailureSourceContext {
  const FailureSpec& spec;
  int machines;
  std::uint64_t seed;
  std::uint64_t replica;
  /// Loaded once per run and shared read-only by every replica (trace process only).
  const std::vector<TraceRecord>* trace = nullptr;
};

/// The failure processes, named and ordered as FailureProcessKind's name table (scenario/kinds.hpp).
using FailureSourceFactory = std::unique_ptr<FailureSource> (*)(const FailureSourceContext&);
const Registry<FailureSourceFactory>& failure_process_registry();

/// Failure domain kinds, for `ckptsim list`.
const Registry<DomainKind>& failure_domain_registry();

/// The cause index of a trace record: the table row named by its cause column, or software (0)
/// / hardware (1) without a table; -1 when a table exists and has no such row.
int trace_cause_index(const TraceRecord& r, const std::vector<FailureCauseSpec>& table);

/// Builds the source named by spec.process, merged with the domain failures the spec models.
/// The name must exist (the loader checked it).
std::unique_ptr<FailureSource> make_failure_source(const FailureSourceContext& ctx);

}  // namespace ckptsim
