// GEMINI Algorithm 2 on hand-made span lists (checkpoint/partition.hpp).
#include <doctest/doctest.h>

#include <map>

#include <boost/random/uniform_int_distribution.hpp>

#include "ckptsim/checkpoint/partition.hpp"
#include "ckptsim/core/random.hpp"

using namespace ckptsim;

namespace {

void check_invariants(const PartitionInput& in, const Partition& p) {
  const int d = static_cast<int>(in.spans.size());
  double total = 0;
  std::map<int, SimTime> used;
  bool seen_leftover = false;
  for (const PartitionChunk& c : p.chunks) {
    total += c.bytes;
    CHECK(c.bytes > 0);
    CHECK(c.bytes <= in.chunk_bytes);  // no chunk above R/p
    if (c.span < d) {
      CHECK_FALSE(seen_leftover);      // leftover only after every real span
      used[c.span] += in.alpha + transfer_time(c.bytes, in.bandwidth);
    } else {
      CHECK(c.span == d);
      seen_leftover = true;
    }
  }
  // Bytes conserved: (m-1) x shard.
  CHECK(total == doctest::Approx(in.copies * in.shard_bytes));
  // No span filled beyond mu·t.
  for (const auto& [k, t] : used) {
    CHECK(static_cast<double>(t.ns()) <= in.mu * static_cast<double>(in.spans[static_cast<std::size_t>(k)].ns()) + 1.0);
  }
  CHECK(p.leftover_bytes == doctest::Approx(total - [&] {
          double in_spans = 0;
          for (const auto& c : p.chunks) if (c.span < d) in_spans += c.bytes;
          return in_spans;
        }()));
}

}  // namespace

TEST_CASE("hand-made spans: chunks of R/p, then a partial chunk filling the span") {
  // B = 1e9 B/s, alpha = 1 ms, mu = 0.5, chunks of 100 MB (f = 1 ms + 100 ms = 101 ms).
  // Span 0: 500 ms -> 250 ms usable: two full chunks (202 ms), then 48 ms left:
  //   (48 ms - 1 ms) x 1e9 = 47 MB partial chunk.
  // Shard 300 MB, one copy: 100 + 100 + 47 = 247 MB in span 0; 53 MB left.
  // Span 1: 100 ms -> 50 ms usable: f(100 MB) > 50 ms, partial (50 - 1) ms x 1e9 = 49 MB; 4 MB left.
  // Leftover: 4 MB after the last span.
  PartitionInput in;
  in.spans = {milliseconds(500), milliseconds(100)};
  in.shard_bytes = 300e6;
  in.copies = 1;
  in.chunk_bytes = 100e6;
  in.bandwidth = 1e9;
  in.alpha = milliseconds(1);
  in.mu = 0.5;
  const Partition p = partition_checkpoint(in);
  REQUIRE(p.chunks.size() == 5);
  CHECK(p.chunks[0].bytes == 100e6);
  CHECK(p.chunks[1].offset == milliseconds(101));
  CHECK(p.chunks[2].bytes == doctest::Approx(47e6));
  CHECK(p.chunks[3].span == 1);
  CHECK(p.chunks[3].bytes == doctest::Approx(49e6));
  CHECK(p.chunks[4].span == 2);
  CHECK(p.leftover_bytes == doctest::Approx(4e6));
  // f(4 MB) = 1 ms + 4 ms.
  CHECK(p.leftover_time == milliseconds(5));
  check_invariants(in, p);
}

TEST_CASE("copies follow one another; a copy's last chunk may share a span with the next's first") {
  // Shard 150 MB, 2 copies, chunks of 100 MB, one big span (10 s usable at mu = 1):
  // copy 0: 100 + 50; copy 1: 100 + 50; all in span 0, nothing left over.
  PartitionInput in;
  in.spans = {seconds(10.0)};
  in.shard_bytes = 150e6;
  in.copies = 2;
  in.chunk_bytes = 100e6;
  in.bandwidth = 1e9;
  in.alpha = microseconds(10);
  in.mu = 1.0;
  const Partition p = partition_checkpoint(in);
  REQUIRE(p.chunks.size() == 4);
  CHECK(p.chunks[1].copy == 0);
  CHECK(p.chunks[1].bytes == doctest::Approx(50e6));
  CHECK(p.chunks[2].copy == 1);
  CHECK(p.leftover_bytes == 0);
  check_invariants(in, p);
}

TEST_CASE("naive: one chunk per span, as large as the span allows") {
  // Spans 100 ms and 300 ms at mu = 1, B = 1e9, alpha = 0: chunks of 100 MB and 300 MB;
  // shard 1 GB: 600 MB left over in chunks of the largest (300 MB): 300 + 300.
  PartitionInput in;
  in.spans = {milliseconds(100), milliseconds(300)};
  in.shard_bytes = 1e9;
  in.copies = 1;
  in.one_chunk_per_span = true;
  in.bandwidth = 1e9;
  in.alpha = SimTime::zero();
  in.mu = 1.0;
  const Partition p = partition_checkpoint(in);
  REQUIRE(p.chunks.size() == 4);
  CHECK(p.chunks[0].bytes == doctest::Approx(100e6));
  CHECK(p.chunks[1].bytes == doctest::Approx(300e6));
  CHECK(p.chunks[2].span == 2);
  CHECK(p.leftover_bytes == doctest::Approx(600e6));
  check_invariants(in, p);
}

TEST_CASE("random span lists keep every invariant") {
  auto rng = make_stream(11, 0, RandomComponent::workload);
  boost::random::uniform_int_distribution<int> count(0, 40), span_us(1, 200000), copies(1, 3), shard_mb(1, 2000);
  for (int trial = 0; trial < 300; ++trial) {
    PartitionInput in;
    for (int k = count(rng); k > 0; --k) in.spans.push_back(microseconds(span_us(rng)));
    in.shard_bytes = shard_mb(rng) * 1e6;
    in.copies = copies(rng);
    in.chunk_bytes = 32.0 * 1024 * 1024;
    in.bandwidth = 6.25e9;
    in.alpha = microseconds(10);
    in.mu = 0.8;
    check_invariants(in, partition_checkpoint(in));
  }
}
