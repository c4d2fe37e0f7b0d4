#pragma once
// Up-front work and memory limits (docs/limits.md, "Work and memory limits").
//
// Before allocating or looping, a command estimates what an input asks for (bytes, simulated
// events, combinations) and refuses it with a LimitError naming the input, the estimate and the
// limit, unless the user passed --force. Estimates are first-order and err on the large side;
// the limits are set so that a refused input would take minutes and gigabytes at least.
#include <string>
#include <vector>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

inline constexpr double kMaxMemoryBytes = 4.0 * 1024 * 1024 * 1024;  ///< 4 GiB per command
inline constexpr double kMaxSimulatedEvents = 1e9;                  ///< failures etc., all replicas
inline constexpr double kMaxCombinations = 1e5;                     ///< optimize grid points

/// What an estimate counts: bytes are printed in GiB (TiB from 1,000 GiB), the others as a count of their name.
enum class WorkUnit { bytes, failure_events, flows, combinations, limb_operations };

/// The unit's name in messages ("failure events").
constexpr const char* work_unit_name(WorkUnit unit) {
  switch (unit) {
    case WorkUnit::bytes: return "bytes";
    case WorkUnit::failure_events: return "failure events";
    case WorkUnit::flows: return "flows";
    case WorkUnit::combinations: return "combinations";
    case WorkUnit::limb_operations: return "64-bit limb operations";
  }
  return "";
}

/// One estimate: `input` names what caused it ("--replicas", "/failures/rate", or every factor
/// of a product, "/model/layers x /cluster/machines x /cluster/gpus_per_machine").
struct WorkEstimate {
  std::string input;
  std::string what;  ///< "memory for the replica results"
  double amount = 0;
  double limit = 0;
  WorkUnit unit = WorkUnit::bytes;
  std::string file = {};   ///< the scenario file the pointers of `input` refer to ("" for options)
  std::string found = {};  ///< the values responsible, as written: "100000", "124 x 16 x 8"
};

/// What a refused estimate tells the user to do, after "see docs/limits.md; ".
inline constexpr const char* kForceRunsIt = "--force runs it anyway";

inline std::string format_work_amount(double amount, WorkUnit unit) {
  // Bytes in GiB, or TiB from 1,000 GiB on (three significant digits never need an exponent
  // below 1,000: "992 GiB", "1.02 TiB").
  if (unit == WorkUnit::bytes) {
    const double gib = amount / (1024.0 * 1024 * 1024);
    return gib < 999.5 ? fmt::format("{:.3g} GiB", gib) : fmt::format("{:.3g} TiB", gib / 1024.0);
  }
  return fmt::format("{:.3g} {}", amount, work_unit_name(unit));
}

/// "file: input = found: what needs about X, above the limit of Y (see docs/limits.md; way out)"
inline std::string work_limit_message(const WorkEstimate& e, const char* way_out = kForceRunsIt) {
  return fmt::format("{}{}{}: {} needs about {}, above the limit of {} (see docs/limits.md; {})",
                     e.file.empty() ? "" : e.file + ": ", e.input, e.found.empty() ? "" : " = " + e.found, e.what,
                     format_work_amount(e.amount, e.unit), format_work_amount(e.limit, e.unit), way_out);
}

/// Throws LimitError for the first estimate above its limit (a NaN estimate counts as above),
/// unless `force`. `way_out` ends the message (kForceRunsIt where the command has --force).
inline void enforce_work_limits(const std::vector<WorkEstimate>& estimates, bool force,
                                const char* way_out = kForceRunsIt) {
  if (force) return;
  for (const WorkEstimate& e : estimates)
    if (!(e.amount <= e.limit)) throw LimitError(work_limit_message(e, way_out));
}

}  // namespace ckptsim
