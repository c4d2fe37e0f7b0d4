// FlowSet's indexed binary min-heap of alive flows ordered by (projected finish, insertion
// number): every operation keeps Flow::heap_pos equal to the flow's index in heap_, so a flow
// whose rate changed is re-keyed in O(log F) and a bulk rebuild is O(F).
#include <cassert>

#include "ckptsim/network/flow_set.hpp"

namespace ckptsim {

bool FlowSet::heap_less(int a, int b) const {
  const Flow& x = flows_[static_cast<std::size_t>(a)];
  const Flow& y = flows_[static_cast<std::size_t>(b)];
  return x.finish < y.finish || (x.finish == y.finish && x.seq < y.seq);
}

void FlowSet::heap_place(std::size_t i, int f) {
  heap_[i] = f;
  flows_[static_cast<std::size_t>(f)].heap_pos = static_cast<int>(i);
}

void FlowSet::heap_sift_up(std::size_t i) {
  const int f = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / 2;
    if (!heap_less(f, heap_[parent])) break;
    heap_place(i, heap_[parent]);
    i = parent;
  }
  heap_place(i, f);
}

void FlowSet::heap_sift_down(std::size_t i) {
  const int f = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    std::size_t child = 2 * i + 1;
    if (child >= n) break;
    if (child + 1 < n && heap_less(heap_[child + 1], heap_[child])) ++child;
    if (!heap_less(heap_[child], f)) break;
    heap_place(i, heap_[child]);
    i = child;
  }
  heap_place(i, f);
}

void FlowSet::heap_push(int f) {
  heap_.push_back(f);
  heap_sift_up(heap_.size() - 1);
}

void FlowSet::heap_erase(int f) {
  Flow& flow = flows_[static_cast<std::size_t>(f)];
  assert(flow.heap_pos >= 0);
  const auto i = static_cast<std::size_t>(flow.heap_pos);
  flow.heap_pos = -1;
  const int last = heap_.back();
  heap_.pop_back();
  if (i == heap_.size()) return;
  heap_place(i, last);
  heap_sift_up(i);
  heap_sift_down(static_cast<std::size_t>(flows_[static_cast<std::size_t>(last)].heap_pos));
}

void FlowSet::heap_update(int f) {
  heap_sift_up(static_cast<std::size_t>(flows_[static_cast<std::size_t>(f)].heap_pos));
  heap_sift_down(static_cast<std::size_t>(flows_[static_cast<std::size_t>(f)].heap_pos));
}

void FlowSet::heap_rebuild() {
  heap_.clear();
  for (std::size_t s = 0; s < flows_.size(); ++s) {
    if (!hot_[s].alive) continue;
    heap_.push_back(static_cast<int>(s));
    flows_[s].heap_pos = static_cast<int>(heap_.size()) - 1;
  }
  for (std::size_t i = heap_.size() / 2; i-- > 0;) heap_sift_down(i);
}

}  // namespace ckptsim
