#pragma once
// The erasure-coded strategy's memory, traffic, encode and exact recovery probabilities, as
// `ckptsim analyze` prints them beside GEMINI's replicas (checkpoint/erasure_code.hpp,
// analysis/erasure_recovery.hpp): the table lines and the "erasure_code" member of its JSON.
#include <ostream>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/run/strategy_costs.hpp"
#include "ckptsim/scenario/scenario.hpp"

namespace ckptsim {

/// Failures at once shown: k = 1 .. p + kExtraFailuresShown.
inline constexpr int kExtraFailuresShown = 3;

/// {"group_size", "parity", "cpu_shards_per_machine", "cpu_memory_bytes", "traffic_bytes_per_machine",
///  "encode_s", "repair_bytes", "recovery_probability": {"k": P_k, ...}, "rack_recovery_probability":
///  {"j": P_j, ...} (null without racks; "unavailable": why, when the layout has no exact count)}.
[[nodiscard]] nlohmann::json erasure_summary_json(const Scenario& scenario, const StrategyCosts& costs);

/// Two lines: memory and traffic per machine; P(recover from CPU memory) for k machines replaced at once.
void print_erasure_summary(std::ostream& out, const Scenario& scenario, const StrategyCosts& costs);

}  // namespace ckptsim
