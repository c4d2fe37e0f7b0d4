#pragma once
// Bytes per gibibyte (2^30, IEC 80000-13 binary prefix) and per gigabyte (10^9, SI prefix): the
// two sizes data sheets and presets are quoted in (GPU memory in GiB, link rates in GB/s).
// Included by sources only, so that a test keeps its own independently written constants.

namespace ckptsim {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;

}  // namespace ckptsim
