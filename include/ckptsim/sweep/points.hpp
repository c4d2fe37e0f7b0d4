#pragma once
// Sweep points: the values of point `index`, its seed, and its scenario document.
//
// Index order: grid points in row-major order of the axes as listed (the last axis varies
// fastest); zip point i takes value i of every axis; random point i draws axis a from the stream
// stream_seed(sweep seed, i, kSweepComponent, a) (Boost.Random: uniform_real on [low, high), on
// the log of [low, high] for log-uniform, uniform_int over the value list). A point's values and
// seed therefore depend only on (spec, index): any machine, rank, thread or shard computes the
// same point.
//
// Point seed: stream_seed(sweep seed, index, kSweepComponent) >> 11 (53 bits, exact in JSON
// doubles too). It becomes the scenario's /run/seed unless an axis sweeps /run/seed or /seed.
#include <cstdint>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "ckptsim/sweep/spec.hpp"

namespace ckptsim::sweep {

/// Component number of the sweep's random streams ("Sweep" in ASCII, far from core's 1..6).
inline constexpr std::uint64_t kSweepComponent = 0x5377656570ULL;

std::vector<nlohmann::json> point_values(const SweepSpec& spec, std::int64_t index);

std::uint64_t point_seed(std::uint64_t sweep_seed, std::int64_t index);

/// The base with every axis value written at its pointer (missing parent objects are created;
/// an object replaces the whole subtree). Throws InputError (file: the base label, pointer:
/// the axis pointer) when a pointer cannot be written, e.g. an array index out of range.
nlohmann::json point_scenario(const SweepSpec& spec, const std::vector<nlohmann::json>& values);

/// True when an axis sets the seed itself (/run/seed or /seed).
bool axes_set_seed(const SweepSpec& spec);

}  // namespace ckptsim::sweep
