// SegmentClock (closed form) on hand-computed cases, and against SteppedClock.
#include <doctest/doctest.h>

#include "ckptsim/run/segment_clock.hpp"

using namespace ckptsim;

namespace {
SegmentPattern pattern(std::int64_t every, SimTime stall, SimTime completion, std::int64_t persistent = 0,
                       SimTime upload = SimTime::zero()) {
  SegmentPattern p;
  p.iteration = seconds(10);
  p.stall = stall;
  p.every = every;
  p.completion = completion;
  p.checkpoints = true;
  p.persistent_every = persistent;
  p.upload = upload;
  return p;
}
}  // namespace

TEST_CASE("segment clock: hand-computed positions with k = 3, T = 10 s, S = 2 s") {
  // Block 0 = iterations 1..3 (30 s, no checkpoint); then blocks of D = 3*10 + 2 = 32 s whose
  // first iteration carries the stall.
  const SegmentClock c(pattern(3, seconds(2), seconds(2)), 0);
  // 4 iterations: 40 s + one stall = 42 s; 7 iterations: 70 s + two stalls = 74 s.
  CHECK(c.time_to_complete(4) == seconds(42));
  CHECK(c.time_to_complete(7) == seconds(74));
  // At 41.9 s iteration 4 (30 -> 42) is still running: 3 done. At 42 s: 4 done.
  CHECK(c.completed(seconds(41.9)) == 3);
  CHECK(c.completed(seconds(42)) == 4);
  // Stall occupies [30, 32) and [62, 64): at 31 s one second of stall, at 63 s three seconds.
  CHECK(c.stall(seconds(31)) == seconds(1));
  CHECK(c.stall(seconds(63)) == seconds(3));
  // Checkpoint of state 3 is carried by iteration 4 (starts at 30 s) and usable at 32 s.
  CHECK_FALSE(c.latest_checkpoint(seconds(31.9)).has_value());
  const auto ck = c.latest_checkpoint(seconds(32));
  REQUIRE(ck.has_value());
  CHECK(ck->version == 3);
  CHECK(ck->captured_at == seconds(30));
  // Second checkpoint (state 6) starts at 62 s, usable at 64 s.
  CHECK(c.latest_checkpoint(seconds(70))->version == 6);
}

TEST_CASE("segment clock: persistent uploads of every second checkpoint") {
  // k = 1, kp = 2, S = 0, completion = T = 10 s, upload 15 s, starting from n0 = 4.
  // Checkpoint b captures state 4 + b at start_b = 10 b s, usable at 10 b + 10 s; it is
  // uploaded when 4 + b is even (b = 2, 4, ...), usable at 10 b + 25 s.
  const SegmentClock c(pattern(1, SimTime::zero(), seconds(10), 2, seconds(15)), 4);
  CHECK_FALSE(c.latest_persistent(seconds(44)).has_value());  // b = 2 lands at 45 s
  CHECK(c.latest_persistent(seconds(45))->version == 6);
  CHECK(c.latest_persistent(seconds(64))->version == 6);      // b = 4 lands at 65 s
  CHECK(c.latest_persistent(seconds(65))->version == 8);
  CHECK(c.latest_persistent(seconds(65))->captured_at == seconds(40));
}

TEST_CASE("segment clock: closed form equals the stepped walk on a grid of queries") {
  for (std::int64_t k : {std::int64_t{1}, std::int64_t{2}, std::int64_t{5}}) {
    for (double stall : {0.0, 3.0, 25.0}) {
      for (double extra : {0.0, 7.0, 40.0}) {
        const auto p = pattern(k, seconds(stall), seconds(stall + extra), 2 * k, seconds(13));
        for (std::int64_t n0 : {std::int64_t{0}, 2 * k, 5 * k}) {
          const SegmentClock closed(p, n0);
          const SteppedClock stepped(p, n0);
          for (double e = 0; e < 400; e += 1.7) {
            const SimTime at = seconds(e);
            CAPTURE(k);
            CAPTURE(stall);
            CAPTURE(extra);
            CAPTURE(n0);
            CAPTURE(e);
            CHECK(closed.completed(at) == stepped.completed(at));
            CHECK(closed.stall(at) == stepped.stall(at));
            const auto a = closed.latest_checkpoint(at);
            const auto b = stepped.latest_checkpoint(at);
            REQUIRE(a.has_value() == b.has_value());
            if (a) CHECK((a->version == b->version && a->captured_at == b->captured_at));
            const auto pa = closed.latest_persistent(at);
            const auto pb = stepped.latest_persistent(at);
            REQUIRE(pa.has_value() == pb.has_value());
            if (pa) CHECK((pa->version == pb->version && pa->captured_at == pb->captured_at));
          }
          for (std::int64_t j = 0; j < 30; ++j) CHECK(closed.time_to_complete(j) == stepped.time_to_complete(j));
        }
      }
    }
  }
}
