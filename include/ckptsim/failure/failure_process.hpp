#pragma once
// Failure processes: when, where and of which type machines fail during one replica of a run.
//
// A FailureSource yields the replica's failures in time order, lazily, so the run model only
// ever looks at the next one (its cost is proportional to failures, not to machines x time).
// Models (each registered by name, `ckptsim list`):
//   exponential  Every machine fails as a Poisson process of rate lambda (failures/machine/s).
//                By superposition the cluster's failures form a Poisson process of rate
//                N*lambda whose machine is uniform over 0..N-1: inter-arrival ~ Exp(N*lambda).
//                GEMINI uses 1.5% of machines per day, from the OPT-175B log (gemini.md §6).
//   weibull      Each machine is a renewal process whose times between failures are
//                Weibull(shape k, scale lambda): P(X > x) = exp(-(x/lambda)^k). k < 1 gives the
//                decreasing hazard (clustered failures) of Schroeder & Gibson, DSN 2006.
//                Mean time between failures per machine = lambda * Gamma(1 + 1/k).
//   trace        Failures replayed from a CSV file (time, machine, type); identical in every replica.
//   none         No failures.
// Types: each failure is hardware with probability `hardware_fraction`, drawn from its own
// stream, unless the trace gives the type. Streams: (seed, replica, failures, machine or 0) and
// (seed, replica, failure_types).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ckptsim/core/registry.hpp"
#include "ckptsim/core/sim_time.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

enum class FailureType { software, hardware };

struct FailureEvent {
  SimTime time;
  int machine = 0;
  FailureType type = FailureType::software;
};

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
};

/// Reads a failure trace CSV: optional '#' comment lines, a header `time,machine,type`, then one
/// failure per line (time as seconds or a duration string, machine index, software|hardware).
/// Throws InputError naming the file, the line (as pointer "/line/N") and what was wrong.
std::vector<TraceRecord> load_failure_trace(const std::string& path, int machines);

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

/// Builds the source of spec.process.
std::unique_ptr<FailureSource> make_failure_source(const FailureSourceContext& ctx);

}  // namespace ckptsim
