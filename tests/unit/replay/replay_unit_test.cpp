// ckptsim-replay's pacing and integrity helpers (header-only, no MPI needed).
#include <doctest/doctest.h>

#include <vector>

#include "pattern.hpp"
#include "token_bucket.hpp"

using namespace ckptsim::replay;

TEST_CASE("token bucket paces sends to its rate, first come first paced") {
  // 100 B/s, depth 0: 50 bytes at t = 0 are through at 50/100 = 0.5 s.
  TokenBucket b(100, 0, 0);
  CHECK(b.take(50, 0) == doctest::Approx(0.5));
  // Not ready while the debt lasts; ready once repaid at t = 0.5.
  CHECK_FALSE(b.ready(0.25));
  CHECK(b.ready(0.5));
  // 100 more bytes at t = 0.5 are through at 0.5 + 100/100 = 1.5 s.
  CHECK(b.take(100, 0.5) == doctest::Approx(1.5));
  // Two sends back to back at t = 2 (bucket empty, depth 0): 30 B done at 2.3, then 70 B at 3.0.
  CHECK(b.take(30, 2) == doctest::Approx(2.3));
  CHECK(b.take(70, 2) == doctest::Approx(3.0));
}

TEST_CASE("token bucket depth allows one burst, then the rate") {
  // Depth 64 B, full at t = 0: 64 B pass at once, the next 100 B take 1 s.
  TokenBucket b(100, 64, 0);
  CHECK(b.take(64, 0) == doctest::Approx(0.0));
  CHECK(b.take(100, 0) == doctest::Approx(1.0));
  // Unlimited (rate 0): every send is through immediately.
  TokenBucket u(0, 0, 0);
  CHECK(u.take(1e9, 5) == doctest::Approx(5.0));
}

TEST_CASE("pattern ranges agree with the whole shard, and the checksum sees one flipped bit") {
  std::vector<unsigned char> whole(64), part(21);
  fill_pattern(whole.data(), 0, whole.size(), 3, 7);
  // Bytes [5, 26) filled on their own equal the same bytes of the whole fill (word boundaries
  // at 8 and 16 and 24 are crossed with unaligned ends).
  fill_pattern(part.data(), 5, part.size(), 3, 7);
  CHECK(std::vector<unsigned char>(whole.begin() + 5, whole.begin() + 26) == part);
  const auto sum = checksum(whole.data(), whole.size());
  // Another rank or iteration fills different bytes (hence a different checksum).
  std::vector<unsigned char> other(64);
  fill_pattern(other.data(), 0, other.size(), 4, 7);
  CHECK(checksum(other.data(), other.size()) != sum);
  fill_pattern(other.data(), 0, other.size(), 3, 8);
  CHECK(checksum(other.data(), other.size()) != sum);
  // Flipping any single bit changes the checksum (FNV-1a: each step is a bijection of h).
  for (std::size_t i = 0; i < whole.size(); ++i) {
    whole[i] ^= 0x10;
    CHECK(checksum(whole.data(), whole.size()) != sum);
    whole[i] ^= 0x10;
  }
  CHECK(checksum(whole.data(), whole.size()) == sum);
}
