#include "ckptsim/workload/caching_allocator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

std::int64_t allocator_bytes(double bytes) {
  constexpr double kLimit = 1152921504606846976.0;  // 2^60
  if (!(bytes >= 0 && bytes < kLimit)) {
    throw ModelError("/model", fmt::format("one tensor of {:.3g} B is beyond what the allocator model handles (2^60 B); "
                                           "the model, sequence or micro-batch is far too large for any GPU",
                                           bytes));
  }
  return std::max<std::int64_t>(1, static_cast<std::int64_t>(std::llround(bytes)));
}

std::int64_t CachingAllocator::round_size(std::int64_t bytes) {
  if (bytes < kAllocatorMinBlock) return kAllocatorMinBlock;
  return kAllocatorMinBlock * ((bytes + kAllocatorMinBlock - 1) / kAllocatorMinBlock);
}

std::int64_t CachingAllocator::segment_size(std::int64_t rounded) {
  if (rounded <= kAllocatorSmallSize) return kAllocatorSmallBuffer;
  if (rounded < kAllocatorMinLargeAlloc) return kAllocatorLargeBuffer;
  return kAllocatorRoundLarge * ((rounded + kAllocatorRoundLarge - 1) / kAllocatorRoundLarge);
}

std::size_t CachingAllocator::segments() const {
  return static_cast<std::size_t>(std::count_if(segments_.begin(), segments_.end(), [](const Segment& s) { return s.alive; }));
}

void CachingAllocator::mark_free(std::size_t segment, std::int64_t offset, std::int64_t size) {
  const Segment& seg = segments_[segment];
  free_.insert({seg.small, size, seg.base + offset, segment, offset});
}

void CachingAllocator::unmark_free(std::size_t segment, std::int64_t offset, std::int64_t size) {
  const Segment& seg = segments_[segment];
  free_.erase({seg.small, size, seg.base + offset, segment, offset});
}

void CachingAllocator::release_free_segments() {
  for (std::size_t i = 0; i < segments_.size(); ++i) {
    Segment& s = segments_[i];
    if (!s.alive || s.blocks.size() != 1 || !s.blocks.begin()->second.free) continue;
    unmark_free(i, 0, s.size);
    s.alive = false;
    s.blocks.clear();
    reserved_ -= s.size;
  }
}

std::size_t CachingAllocator::allocate(std::int64_t bytes) {
  const std::int64_t size = round_size(bytes);
  const bool small = size <= kAllocatorSmallSize;
  // Best fit: the smallest free block of the pool, the lowest address among equal sizes.
  auto it = free_.lower_bound({small, size, 0, 0, 0});
  if (it == free_.end() || it->small != small) {
    release_free_segments();
    Segment seg;
    seg.base = next_base_;
    seg.size = segment_size(size);
    seg.small = small;
    next_base_ += seg.size;
    seg.blocks.emplace(0, Block{seg.size, true});
    reserved_ += seg.size;
    peak_reserved_ = std::max(peak_reserved_, reserved_);
    segments_.push_back(std::move(seg));
    mark_free(segments_.size() - 1, 0, segments_.back().size);
    it = free_.lower_bound({small, size, 0, 0, 0});
  }
  const FreeKey key = *it;
  free_.erase(it);
  Segment& seg = segments_[key.segment];
  Block& blk = seg.blocks.at(key.offset);
  const std::int64_t remaining = blk.size - size;
  const bool split = small ? remaining >= kAllocatorMinBlock : remaining > kAllocatorSmallSize;
  blk.free = false;
  if (split) {
    blk.size = size;
    seg.blocks.emplace(key.offset + size, Block{remaining, true});
    mark_free(key.segment, key.offset + size, remaining);
  }
  const std::int64_t taken = blk.size;
  allocated_ += taken;
  peak_allocated_ = std::max(peak_allocated_, allocated_);
  handles_.push_back({key.segment, key.offset, taken, true});
  return handles_.size() - 1;
}

void CachingAllocator::release(std::size_t handle) {
  Handle& h = handles_.at(handle);
  if (!h.live) throw std::logic_error("caching allocator: a block freed twice");
  h.live = false;
  Segment& seg = segments_[h.segment];
  auto it = seg.blocks.find(h.offset);
  if (it == seg.blocks.end() || it->second.free) throw std::logic_error("caching allocator: freeing a block it does not hold");
  it->second.free = true;
  allocated_ -= h.size;
  // Merge with the free neighbours.
  if (auto next = std::next(it); next != seg.blocks.end() && next->second.free) {
    unmark_free(h.segment, next->first, next->second.size);
    it->second.size += next->second.size;
    seg.blocks.erase(next);
  }
  if (it != seg.blocks.begin()) {
    auto prev = std::prev(it);
    if (prev->second.free) {
      unmark_free(h.segment, prev->first, prev->second.size);
      prev->second.size += it->second.size;
      seg.blocks.erase(it);
      it = prev;
    }
  }
  mark_free(h.segment, it->first, it->second.size);
}

namespace {

// Writes the events with tensor ids.
class Trace {
 public:
  int alloc(double bytes, TensorKind kind = TensorKind::activation) {
    const int id = next_++;
    events_.push_back({id, allocator_bytes(bytes), kind, backward_});
    kinds_.push_back(kind);
    return id;
  }
  void free(int id) { events_.push_back({id, 0, kinds_[static_cast<std::size_t>(id)], backward_}); }
  void enter_backward() { backward_ = true; }
  std::vector<AllocatorEvent> take() { return std::move(events_); }

 private:
  int next_ = 0;
  bool backward_ = false;
  std::vector<AllocatorEvent> events_;
  std::vector<TensorKind> kinds_;
};

// One layer's forward (Megatron GPT, fused bias-dropout-add, fused softmax): the tensors of
// Korthikanti et al. Section 4.1 in creation order. X = s·b·h·w, A = a·s²·b·w, masks 1 byte per
// element. `grad` keeps what the backward needs and returns it; otherwise each tensor is freed
// after its last forward use. `x` is the layer's input (kept by the caller); returns the output.
struct LayerSaved {
  std::vector<int> tensors;
  int output = -1;
};

LayerSaved layer_forward(Trace& t, const TransformerShape& s, bool grad, bool output_is_checkpoint) {
  const double w = s.word_bytes();
  const double x = s.sequence * s.micro_batch * s.hidden * w;
  const double a = s.heads * s.sequence * s.sequence * s.micro_batch * w;
  const double mx = x / w;
  const double ma = a / w;
  LayerSaved saved;
  auto keep = [&](int id) {
    if (grad) saved.tensors.push_back(id); else t.free(id);
  };
  const int ln1 = t.alloc(x);
  const int qkv = t.alloc(3 * x);
  keep(ln1);
  const int scores = t.alloc(a);
  const int probs = t.alloc(a);
  t.free(scores);
  const int mask_a = t.alloc(ma);
  const int probs_d = t.alloc(a);
  keep(probs);
  keep(mask_a);
  const int ctx = t.alloc(x);
  keep(probs_d);
  keep(qkv);
  const int attn = t.alloc(x);
  const int mask_1 = t.alloc(mx);
  const int h1 = t.alloc(x);
  t.free(attn);
  keep(ctx);
  keep(mask_1);
  const int ln2 = t.alloc(x);
  const int fc1 = t.alloc(4 * x);
  keep(ln2);
  const int gelu = t.alloc(4 * x);
  keep(fc1);
  const int fc2 = t.alloc(x);
  keep(gelu);
  const int mask_2 = t.alloc(mx);
  saved.output = t.alloc(x, output_is_checkpoint ? TensorKind::checkpoint : TensorKind::activation);
  t.free(fc2);
  keep(mask_2);
  keep(h1);
  return saved;
}

// One layer's backward after its recomputed (or kept) forward: each saved tensor freed after its
// use, the activation gradients allocated and freed as the chain rule goes, the engine's
// parameter gradients created along. Takes the gradient of the output, returns the input's.
int layer_backward(Trace& t, const TransformerShape& s, const LayerSaved& saved, int grad_out,
                   const std::vector<double>& gradients) {
  const double w = s.word_bytes();
  const double x = s.sequence * s.micro_batch * s.hidden * w;
  const double a = s.heads * s.sequence * s.sequence * s.micro_batch * w;
  std::size_t next_gradient = 0;
  int previous_gradient = -1;
  auto parameter_gradient = [&] {  // the next gradient tensor of the engine, if any
    if (next_gradient >= gradients.size()) return;
    const int g = t.alloc(gradients[next_gradient++], TensorKind::gradient);
    if (previous_gradient >= 0) t.free(previous_gradient);
    previous_gradient = g;
  };
  // saved: ln1, probs, mask_a, probs_d, qkv, ctx, mask_1, ln2, fc1, gelu, mask_2, h1
  const auto& v = saved.tensors;
  auto drop = [&](std::size_t i) { t.free(v[i]); };
  const int g_fc2 = t.alloc(x);  // dropout backward
  drop(10);
  const int g_gelu = t.alloc(4 * x);  // FC2 backward
  parameter_gradient();
  t.free(g_fc2);
  drop(9);
  const int g_fc1 = t.alloc(4 * x);  // GeLU backward
  t.free(g_gelu);
  drop(8);
  const int g_ln2 = t.alloc(x);  // FC1 backward
  parameter_gradient();
  t.free(g_fc1);
  drop(7);
  const int g_h1 = t.alloc(x);  // LayerNorm 2 backward plus the residual
  t.free(g_ln2);
  t.free(grad_out);
  drop(11);
  const int g_attn = t.alloc(x);  // dropout backward
  drop(6);
  const int g_ctx = t.alloc(x);  // output projection backward
  parameter_gradient();
  t.free(g_attn);
  drop(5);
  const int g_probs_d = t.alloc(a);  // attention over values backward
  const int g_qkv = t.alloc(3 * x);
  t.free(g_ctx);
  drop(3);
  const int g_probs = t.alloc(a);  // dropout backward
  t.free(g_probs_d);
  drop(2);
  const int g_scores = t.alloc(a);  // softmax backward
  t.free(g_probs);
  drop(1);
  t.free(g_scores);  // QKᵀ backward writes into g_qkv
  drop(4);
  const int g_ln1 = t.alloc(x);  // QKV projection backward
  parameter_gradient();
  t.free(g_qkv);
  drop(0);
  const int g_x = t.alloc(x);  // LayerNorm 1 backward plus the residual
  t.free(g_ln1);
  t.free(g_h1);
  while (next_gradient < gradients.size()) parameter_gradient();
  if (previous_gradient >= 0) t.free(previous_gradient);
  return g_x;
}

void iteration(Trace& t, const TransformerShape& s, const std::vector<double>& gradients, double held) {
  const double w = s.word_bytes();
  const double x = s.sequence * s.micro_batch * s.hidden * w;
  const double logits = s.micro_batch * s.sequence * s.vocabulary;
  std::vector<int> inputs{t.alloc(x, s.recompute ? TensorKind::checkpoint : TensorKind::activation)};  // the embedding's output
  std::vector<LayerSaved> kept;
  for (int k = 0; k < s.layers; ++k) {
    LayerSaved saved = layer_forward(t, s, !s.recompute, s.recompute);
    inputs.push_back(saved.output);
    if (!s.recompute) kept.push_back(std::move(saved));
  }
  // Final LayerNorm, logits (16-bit, then fp32 for the loss), the loss's backward.
  const int ln = t.alloc(x);
  const int half = t.alloc(logits * w);
  const int full = t.alloc(logits * 4);
  t.free(half);
  t.enter_backward();
  const int g_half = t.alloc(logits * w);
  t.free(full);
  int grad = t.alloc(x);
  const int held_gradient = held > 0 ? t.alloc(held, TensorKind::gradient) : -1;
  t.free(g_half);
  t.free(ln);
  for (int k = s.layers - 1; k >= 0; --k) {
    const LayerSaved saved = s.recompute ? layer_forward(t, s, true, false) : kept[static_cast<std::size_t>(k)];
    t.free(inputs[static_cast<std::size_t>(k) + 1]);
    grad = layer_backward(t, s, saved, grad, gradients);
    if (s.recompute) t.free(saved.output);  // the recomputed output, held until the layer's backward ends
  }
  t.free(inputs.front());
  t.free(grad);
  if (held_gradient >= 0) t.free(held_gradient);
}

}  // namespace

std::vector<AllocatorEvent> activation_events(const TransformerShape& shape, const std::vector<double>& layer_gradients,
                                              double held_gradient) {
  Trace t;
  iteration(t, shape, layer_gradients, held_gradient);
  return t.take();
}

ActivationMemory activation_memory(const TransformerShape& shape, const std::vector<double>& layer_gradients,
                                   double held_gradient) {
  ActivationMemory out;
  if (shape.layers < 1) return out;
  const std::vector<AllocatorEvent> events = activation_events(shape, layer_gradients, held_gradient);
  CachingAllocator a;
  for (int round = 0; round < 2; ++round) {
    std::vector<std::size_t> handle_of;
    std::vector<std::int64_t> bytes_of;
    std::array<std::int64_t, 2> peak_reserved{};
    std::array<std::int64_t, 2> peak_allocated{};
    std::array<std::int64_t, 2> peak_activations{};
    std::int64_t activations = 0;
    for (const AllocatorEvent& e : events) {
      const auto id = static_cast<std::size_t>(e.id);
      if (e.bytes > 0) {
        if (handle_of.size() <= id) {
          handle_of.resize(id + 1);
          bytes_of.resize(id + 1);
        }
        handle_of[id] = a.allocate(e.bytes);
        bytes_of[id] = e.bytes;
        if (e.kind == TensorKind::activation) activations += e.bytes;
      } else {
        a.release(handle_of[id]);
        if (e.kind == TensorKind::activation) activations -= bytes_of[id];
      }
      const std::size_t phase = e.backward ? 1 : 0;
      peak_reserved[phase] = std::max(peak_reserved[phase], a.reserved());
      peak_allocated[phase] = std::max(peak_allocated[phase], a.allocated());
      peak_activations[phase] = std::max(peak_activations[phase], activations);
    }
    for (std::size_t p = 0; p < 2; ++p) {
      out.activations[p] = static_cast<double>(peak_activations[p]);
      out.overhead[p] = static_cast<double>(peak_reserved[p] - peak_allocated[p]);
    }
  }
  return out;
}

}  // namespace ckptsim
