// What a microbenchmark's own measurements say about the pacing: per link kind (p2p, all-gather,
// reduce-scatter), the largest message's bytes over the median of its repetitions' times, as a
// fraction of the requested rate:
//     f_kind = (x_max / median_r t(x_max)) / rate.
// The lateness report (paced_link.hpp) sees only the sender's hand-over; this sees the whole
// path (the receiver's polling, MPI, other work on the machine), so a microbenchmark warns when
// either falls under kKeptFraction (docs/hardware.md, "Pacing: requested against achieved").
#pragma once
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ckptsim::replay {

/// Below this fraction of the requested rate the replay warns that the machine did not keep it.
inline constexpr double kKeptFraction = 0.95;

/// f_kind for every paced kind with samples (`samples`: the microbenchmark's {kind, bytes, seconds}
/// objects); empty when `rate` <= 0 (unpaced: no rate to compare with). A median of 0 s is
/// skipped (no rate can be read from it).
inline std::map<std::string, double> measured_rate_fractions(const nlohmann::json& samples, double rate) {
  std::map<std::string, double> out;
  if (rate <= 0) return out;
  for (const char* kind : {"p2p", "all-gather", "reduce-scatter"}) {
    double largest = 0;
    for (const auto& s : samples)
      if (s.at("kind") == kind) largest = std::max(largest, s.at("bytes").get<double>());
    std::vector<double> times;
    for (const auto& s : samples)
      if (s.at("kind") == kind && s.at("bytes").get<double>() == largest) times.push_back(s.at("seconds").get<double>());
    if (times.empty() || largest <= 0) continue;
    std::sort(times.begin(), times.end());
    const double median = times[times.size() / 2];
    if (median > 0) out[kind] = largest / median / rate;
  }
  return out;
}

}  // namespace ckptsim::replay
