// FlowSet's indexed binary min-heap of alive flows ordered by (projected finish, insertion
// number). Entries carry their keys (HeapEntry), so a sift touches only the heap array; every
// operation keeps heap_pos_[slot] equal to the flow's index in heap_, so a flow whose rate
// changed is re-keyed in O(log F) and a bulk rebuild is O(F).
#include <cassert>

#include "ckptsim/network/flow_set.hpp"

namespace ckptsim {

void FlowSet::heap_place(std::size_t i, const HeapEntry& e) {
  heap_[i] = e;
  heap_pos_[static_cast<std::size_t>(e.slot)] = static_cast<int>(i);
}

void FlowSet::heap_sift_up(std::size_t i) {
  const HeapEntry e = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!heap_less(e, heap_[parent])) break;
    heap_place(i, heap_[parent]);
    i = parent;
  }
  heap_place(i, e);
}

void FlowSet::heap_sift_down(std::size_t i) {
  const HeapEntry e = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_less(heap_[child + 1], heap_[child])) ++child;
    if (!heap_less(heap_[child], e)) break;
    heap_place(i, heap_[child]);
    i = child;
  }
  heap_place(i, e);
}

void FlowSet::heap_push(int f) {
  const Flow& flow = flows_[static_cast<std::size_t>(f)];
  heap_.push_back(HeapEntry{flow.finish, flow.seq, f});
  heap_sift_up(heap_.size() - 1);
}

void FlowSet::heap_erase(int f) {
  int& pos = heap_pos_[static_cast<std::size_t>(f)];
  assert(pos >= 0);
  const auto i = static_cast<std::size_t>(pos);
  pos = -1;
  const HeapEntry last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  heap_place(i, last);
  heap_sift_up(i);
  heap_sift_down(static_cast<std::size_t>(heap_pos_[static_cast<std::size_t>(last.slot)]));
}

void FlowSet::heap_update(int f) {
  const auto i = static_cast<std::size_t>(heap_pos_[static_cast<std::size_t>(f)]);
  heap_[i].finish = flows_[static_cast<std::size_t>(f)].finish;
  heap_sift_up(i);
  heap_sift_down(static_cast<std::size_t>(heap_pos_[static_cast<std::size_t>(f)]));
}

void FlowSet::heap_rebuild() {
  heap_.clear();
  for (std::size_t s = 0; s < flows_.size(); ++s) {
    if (!hot_[s].alive) continue;
    heap_pos_[s] = static_cast<int>(heap_.size());
    heap_.push_back(HeapEntry{flows_[s].finish, flows_[s].seq, static_cast<int>(s)});
  }
  for (std::size_t i = heap_.size() / 2; i-- > 0;) heap_sift_down(i);
}

}  // namespace ckptsim
