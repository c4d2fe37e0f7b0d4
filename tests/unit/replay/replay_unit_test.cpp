// ckptsim-replay's pacing and integrity helpers (header-only, no MPI needed).
#include <doctest/doctest.h>

#include <vector>

#include "pattern.hpp"
#include "paced_link.hpp"
#include "pacing_check.hpp"

using namespace ckptsim::replay;

TEST_CASE("paced link: deadlines follow the eligible times and the rate, first come first served") {
  // 100 B/s with 25-byte segments. A 50-byte send eligible at t = 0: segment deadlines 25/100 =
  // 0.25 s and 50/100 = 0.5 s.
  PacedLink link(100, 25);
  CHECK(link.paced());
  const std::vector<double> d = link.schedule({25, 25}, 0.0);
  REQUIRE(d.size() == 2);
  CHECK(d[0] == doctest::Approx(0.25));
  CHECK(d[1] == doctest::Approx(0.5));
  // A 10-byte send eligible at 0.2 waits for the link (free at 0.5): 0.5 + 10/100 = 0.6.
  CHECK(link.schedule({10}, 0.2).back() == doctest::Approx(0.6));
  // One eligible at 2.0 finds the link idle and earns no burst from the idle time: 2.1.
  CHECK(link.schedule({10}, 2.0).back() == doctest::Approx(2.1));
  // The loop's next wake-up is the earliest deadline not yet handed over.
  CHECK(link.next_deadline() == doctest::Approx(0.25));
  link.hand_over(d[0]);
  CHECK(link.next_deadline() == doctest::Approx(0.5));
}

TEST_CASE("paced link: segment size from the rate, and the lateness report") {
  // 1 ms of the rate, clamped to [4 KiB, 4 MiB]: 100 MB/s -> 1e5 B; 1 MB/s -> 1000 B, raised to
  // 4096; 10 GB/s -> 1e7 B, cut to 4194304.
  CHECK(PacedLink(1e8).segment_bytes() == 100000);
  CHECK(PacedLink(1e6).segment_bytes() == 4096);
  CHECK(PacedLink(1e10).segment_bytes() == 4194304);
  // 10000 bytes in 4096-byte segments: 4096 + 4096 + 1808.
  CHECK(PacedLink(1e6).segments(10000) == std::vector<std::size_t>{4096, 4096, 1808});
  // Report: 200 bytes at 100 B/s are 2 s of ideal time; handing the last segment of a send due
  // at 2.0 over at 2.5 is 0.5 s late, so the link kept 2 / (2 + 0.5) = 80% of its rate.
  PacedLink link(100, 100);
  const std::vector<double> d = link.schedule({100, 100}, 0.0);
  link.done(d.back(), 2.5);
  CHECK(link.report().ideal_s == doctest::Approx(2.0));
  CHECK(link.report().late_s == doctest::Approx(0.5));
  CHECK(link.report().achieved_fraction() == doctest::Approx(0.8));
  // Unpaced: every deadline is the eligible time and nothing is counted.
  PacedLink free_link(0);
  CHECK_FALSE(free_link.paced());
  CHECK(free_link.schedule({1 << 20, 1 << 20}, 3.0) == std::vector<double>{3.0, 3.0});
  CHECK(free_link.report().ideal_s == 0);
}

TEST_CASE("pacing check: the largest message's median rate against the requested one") {
  // Requested 100 B/s. p2p: 400 bytes in 4.0, 4.2 and 5.0 s -> median 4.2 s -> 95.2 B/s = 0.952
  // (the 100-byte sample is not the largest and is ignored). all-gather: 400 bytes in 4.0 s
  // twice -> 100 B/s = 1.0. reduce-scatter has no samples and is left out.
  const nlohmann::json samples = nlohmann::json::parse(R"([
    {"kind": "p2p", "bytes": 100, "seconds": 9.0},
    {"kind": "p2p", "bytes": 400, "seconds": 5.0},
    {"kind": "p2p", "bytes": 400, "seconds": 4.0},
    {"kind": "p2p", "bytes": 400, "seconds": 4.2},
    {"kind": "all-gather", "bytes": 400, "seconds": 4.0},
    {"kind": "all-gather", "bytes": 400, "seconds": 4.0},
    {"kind": "gemm", "flops": 10, "seconds": 1.0}
  ])");
  const auto f = measured_rate_fractions(samples, 100);
  REQUIRE(f.size() == 2);
  CHECK(f.at("p2p") == doctest::Approx(400 / 4.2 / 100));
  CHECK(f.at("all-gather") == doctest::Approx(1.0));
  // 0.952 keeps the rate (>= 0.95); at 105 B/s requested p2p's 95.2 B/s is 0.907, under it.
  CHECK(f.at("p2p") >= kKeptFraction);
  CHECK(measured_rate_fractions(samples, 105).at("p2p") < kKeptFraction);
  // Unpaced: nothing to compare with.
  CHECK(measured_rate_fractions(samples, 0).empty());
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
