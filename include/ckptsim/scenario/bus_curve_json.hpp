#pragma once
// Reading and writing a measured collective curve field (/cluster/nvlink_ring_curve,
// /cluster/nvlink_all_reduce_curve; the loader and calibrate read it; the curve: bus_curve.hpp).
//
// Input: an array of 1 to kMaxCurvePoints objects {"size": bytes (a number or "128MiB"),
// "bus_bandwidth": bandwidth ("311GB/s")}, no other keys, sizes strictly ascending and positive,
// bus bandwidths positive (nccl-tests' busbw at that size).
// Output (effective scenario): the same form, exact unit strings that read back to the same values.
#include <string>

#include <nlohmann/json.hpp>

#include "ckptsim/scenario/bus_curve.hpp"

namespace ckptsim {

constexpr std::size_t kMaxCurvePoints = 256;

/// Fills `out` (source "scenario file") and returns "", or leaves it and returns what was
/// expected, starting with the failing point's pointer relative to the field ("/3/size: ...").
std::string read_bus_curve(const nlohmann::json& value, BusCurve& out);

nlohmann::json format_bus_curve(const BusCurve& curve);

}  // namespace ckptsim
