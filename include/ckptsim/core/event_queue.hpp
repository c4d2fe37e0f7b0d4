#pragma once
// EventQueue: a binary min-heap of (time, sequence number, payload).
//
// Ordering: earlier time first; equal times in insertion order (sequence number), so runs are
// deterministic (docs/architecture.md, "Decisions"). Complexity: schedule O(log n), pop O(log n), top O(1).
// The payload is a small value type chosen by the model (an enum plus an index, typically).
#include <cassert>
#include <cstdint>
#include <vector>

#include "ckptsim/core/sim_time.hpp"

namespace ckptsim {

template <typename Payload>
class EventQueue {
 public:
  struct Event {
    SimTime time;
    std::uint64_t sequence;
    Payload payload;
  };

  void schedule(SimTime time, Payload payload) {
    heap_.push_back(Event{time, next_sequence_++, std::move(payload)});
    sift_up(heap_.size() - 1);
  }

  [[nodiscard]] bool empty() const { return heap_.empty(); }
  [[nodiscard]] std::size_t size() const { return heap_.size(); }
  [[nodiscard]] const Event& top() const {
    assert(!heap_.empty());
    return heap_.front();
  }

  Event pop() {
    assert(!heap_.empty());
    Event out = std::move(heap_.front());
    heap_.front() = std::move(heap_.back());
    heap_.pop_back();
    if (!heap_.empty()) sift_down(0);
    return out;
  }

  void clear() {
    heap_.clear();
    next_sequence_ = 0;
  }
  void reserve(std::size_t n) { heap_.reserve(n); }

 private:
  static bool before(const Event& a, const Event& b) {
    if (a.time != b.time) return a.time < b.time;
    return a.sequence < b.sequence;
  }
  void sift_up(std::size_t i) {
    Event moving = std::move(heap_[i]);
    while (i > 0) {
      std::size_t parent = (i - 1) / 2;
      if (!before(moving, heap_[parent])) break;
      heap_[i] = std::move(heap_[parent]);
      i = parent;
    }
    heap_[i] = std::move(moving);
  }
  void sift_down(std::size_t i) {
    const std::size_t n = heap_.size();
    Event moving = std::move(heap_[i]);
    for (;;) {
      std::size_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], moving)) break;
      heap_[i] = std::move(heap_[child]);
      i = child;
    }
    heap_[i] = std::move(moving);
  }

  std::vector<Event> heap_;
  std::uint64_t next_sequence_ = 0;
};

}  // namespace ckptsim
