// EventQueue: time order, insertion order at equal times, against a sorted reference.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "ckptsim/core/event_queue.hpp"
#include "ckptsim/core/random.hpp"

using namespace ckptsim;

TEST_CASE("event queue pops in (time, insertion) order") {
  EventQueue<int> q;
  // Three events at t = 5 ns inserted as payloads 1, 2, 3 must come out 1, 2, 3 after the
  // t = 2 ns event and before the t = 9 ns one.
  q.schedule(nanoseconds(5), 1);
  q.schedule(nanoseconds(9), 4);
  q.schedule(nanoseconds(5), 2);
  q.schedule(nanoseconds(2), 0);
  q.schedule(nanoseconds(5), 3);
  std::vector<int> order;
  while (!q.empty()) order.push_back(q.pop().payload);
  CHECK(order == std::vector<int>{0, 1, 2, 3, 4});
}

TEST_CASE("event queue matches a stable sort on random interleaved schedule/pop") {
  // Reference: every (time, sequence) pair ever scheduled, popped in sorted order, must equal
  // what a stable sort by time of the same insertions gives (interleaving pops with pushes
  // only ever removes the current minimum).
  EventQueue<std::uint64_t> q;
  std::vector<std::pair<std::int64_t, std::uint64_t>> pending;  // (time, sequence)
  std::uint64_t seq = 0;
  std::uint64_t x = 42;
  for (int step = 0; step < 20000; ++step) {
    x = mix64(x);
    if (x % 3 != 0 || pending.empty()) {
      const std::int64_t t = static_cast<std::int64_t>(x % 1000);
      q.schedule(nanoseconds(t), seq);
      pending.emplace_back(t, seq++);
    } else {
      const auto it = std::min_element(pending.begin(), pending.end());
      const auto e = q.pop();
      REQUIRE(e.time.ns() == it->first);
      REQUIRE(e.payload == it->second);
      pending.erase(it);
    }
  }
  CHECK(q.size() == pending.size());
}
