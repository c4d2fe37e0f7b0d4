#pragma once
// Random streams that reproduce by construction (docs/architecture.md, "Decisions").
//
// Every stochastic component of every replica draws from its own Boost.Random mt19937_64 engine
// seeded from (seed, replica, component) through a SplitMix64 mix, so the numbers a replica sees
// do not depend on how many threads or ranks run, nor on the order replicas are run in.
// Distributions are Boost.Random's (std:: distributions differ between standard libraries).
#include <cstdint>
#include <string_view>

#include <boost/random/mersenne_twister.hpp>

namespace ckptsim {

using RandomEngine = boost::random::mt19937_64;

/// Named components, so adding one never shifts another's stream.
enum class RandomComponent : std::uint64_t {
  failures = 1,
  failure_types = 2,
  replacement = 3,
  placement = 4,
  analysis = 5,
  workload = 6,
  lemons = 7,
  domains = 8,
  trace_synthesis = 9,
  hangs = 10,
  stragglers = 11,
  misdiagnosis = 12,
  silent_corruption = 13,
  migration = 14,
  shadow = 15,  ///< the shadow cluster's machine failures (shadow strategy)
};

/// SplitMix64 finaliser (Steele, Lea, Flood, OOPSLA 2014): a bijective 64-bit mix.
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t replica, std::uint64_t component,
                                    std::uint64_t index = 0) {
  return mix64(mix64(mix64(mix64(seed) ^ replica) ^ component) ^ index);
}

/// The engine of one component of one replica (index separates e.g. per-machine streams).
inline RandomEngine make_stream(std::uint64_t seed, std::uint64_t replica, RandomComponent component,
                                std::uint64_t index = 0) {
  return RandomEngine(stream_seed(seed, replica, static_cast<std::uint64_t>(component), index));
}

}  // namespace ckptsim
