// Integrity of checkpoint replicas. Every rank fills its shard with a pattern known from
// (rank, iteration) alone, so a receiver can recompute what any byte of any sender's shard must
// be. The check hashes a byte range with 64-bit FNV-1a over 8-byte words (Fowler, Noll, Vo:
// http://www.isthe.com/chongo/tech/comp/fnv/), which changes whenever any single byte changes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ckptsim::replay {

/// splitmix64 (Steele, Lea, Flood 2014) of the word index, keyed by rank and iteration.
inline std::uint64_t pattern_word(int rank, int iteration, std::uint64_t word) {
  std::uint64_t z = word + 0x9e3779b97f4a7c15ULL * (1 + static_cast<std::uint64_t>(rank) * 65537ULL +
                                                   (static_cast<std::uint64_t>(iteration) << 32));
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// Fills bytes [offset, offset + n) of the (rank, iteration) pattern into `out`.
inline void fill_pattern(unsigned char* out, std::size_t offset, std::size_t n, int rank, int iteration) {
  for (std::size_t i = 0; i < n;) {
    const std::size_t pos = offset + i;
    const std::uint64_t w = pattern_word(rank, iteration, pos / 8);
    const std::size_t in_word = pos % 8;
    const std::size_t take = (8 - in_word) < (n - i) ? (8 - in_word) : (n - i);
    unsigned char bytes[8];
    std::memcpy(bytes, &w, 8);
    std::memcpy(out + i, bytes + in_word, take);
    i += take;
  }
}

inline std::uint64_t checksum(const unsigned char* data, std::size_t n) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, data + i, 8);
    h = (h ^ w) * 0x100000001b3ULL;
  }
  for (; i < n; ++i) h = (h ^ data[i]) * 0x100000001b3ULL;
  return h;
}

}  // namespace ckptsim::replay
