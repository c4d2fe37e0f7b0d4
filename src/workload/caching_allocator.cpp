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
// element. With FlashAttention the s² tensors are never materialized: the kernel keeps its
// output and the softmax statistics (logsumexp, fp32, b·a·s) for its backward. Without dropout
// (p = 0 returns the input) no mask is kept and the dropout's output is its input. With the
// unfused GeLU (training.gelu, Hugging Face's NewGELUActivation) three more tensors of 4X are
// kept (0.5x, tanh(...), 1 + tanh(...)) and its backward allocates as autograd runs it. `grad`
// keeps what the backward needs; otherwise each tensor is freed after its last forward use.
// Returns what is kept (ids, -1 for none) and the output.
struct LayerSaved {
  int ln1 = -1, qkv = -1, probs = -1, mask_a = -1, probs_d = -1, lse = -1, ctx = -1, mask_1 = -1, ln2 = -1,
      fc1 = -1, gelu = -1, mask_2 = -1, h1 = -1;
  int gelu_half = -1, gelu_tanh = -1, gelu_one_plus = -1;  ///< unfused GeLU: 0.5x, tanh(...), 1 + tanh(...)
  int output = -1;
};

struct Sizes {
  double x = 0;       ///< s·b·h·w
  double mask_x = 0;  ///< s·b·h (1-byte mask)
  double a = 0;       ///< a·s²·b·w
  double mask_a = 0;  ///< a·s²·b
  double lse = 0;     ///< FlashAttention's logsumexp, 4·b·a·s
  double dq_accum = 0;///< FlashAttention-2's backward dQ accumulator, fp32: 4·s·b·h
  bool flash = false;
  bool dropout = false;
  bool unfused_gelu = false;
};

Sizes sizes(const TransformerShape& s) {
  Sizes z;
  const double w = s.word_bytes();
  z.x = s.sequence * s.micro_batch * s.hidden * w;
  z.mask_x = z.x / w;
  z.a = s.heads * s.sequence * s.sequence * s.micro_batch * w;
  z.mask_a = z.a / w;
  z.lse = 4 * s.micro_batch * s.heads * s.sequence;
  z.dq_accum = 4 * s.sequence * s.micro_batch * s.hidden;
  z.flash = s.attention == AttentionKind::flash;
  z.dropout = s.dropout > 0;
  z.unfused_gelu = s.gelu == GeluKind::unfused;
  return z;
}

LayerSaved layer_forward(Trace& t, const TransformerShape& s, bool grad, bool output_is_checkpoint) {
  const Sizes z = sizes(s);
  LayerSaved k;
  auto keep = [&](int& slot, int id) {
    if (grad) slot = id; else t.free(id);
  };
  const int ln1 = t.alloc(z.x);
  const int qkv = t.alloc(3 * z.x);
  keep(k.ln1, ln1);
  int ctx = -1;
  if (z.flash) {
    ctx = t.alloc(z.x);
    keep(k.lse, t.alloc(z.lse));
  } else {
    const int scores = t.alloc(z.a);
    const int probs = t.alloc(z.a);
    t.free(scores);
    if (z.dropout) {
      const int mask_a = t.alloc(z.mask_a);
      const int probs_d = t.alloc(z.a);
      keep(k.probs, probs);
      keep(k.mask_a, mask_a);
      ctx = t.alloc(z.x);
      keep(k.probs_d, probs_d);
    } else {
      ctx = t.alloc(z.x);
      keep(k.probs, probs);
    }
  }
  keep(k.qkv, qkv);
  const int attn = t.alloc(z.x);
  const int mask_1 = z.dropout ? t.alloc(z.mask_x) : -1;
  const int h1 = t.alloc(z.x);
  t.free(attn);
  keep(k.ctx, ctx);
  if (mask_1 >= 0) keep(k.mask_1, mask_1);
  const int ln2 = t.alloc(z.x);
  const int fc1 = t.alloc(4 * z.x);
  keep(k.ln2, ln2);
  int gelu = -1;
  if (z.unfused_gelu) {
    // Hugging Face's NewGELUActivation, 0.5·x·(1 + tanh(c·(x + 0.044715·x³))), in evaluation
    // order: 0.5x is kept for the product's backward, x³ and the sums feeding tanh are freed as
    // they are consumed, tanh's output is kept for its backward and 1 + tanh for the product's;
    // x (FC1's output) is kept by x³'s backward.
    const int half = t.alloc(4 * z.x);
    const int cube = t.alloc(4 * z.x);
    const int scaled = t.alloc(4 * z.x);
    t.free(cube);
    const int sum = t.alloc(4 * z.x);
    t.free(scaled);
    const int inner = t.alloc(4 * z.x);
    t.free(sum);
    const int tanh = t.alloc(4 * z.x);
    t.free(inner);
    const int one_plus = t.alloc(4 * z.x);
    gelu = t.alloc(4 * z.x);
    keep(k.gelu_half, half);
    keep(k.gelu_tanh, tanh);
    keep(k.gelu_one_plus, one_plus);
  } else {
    gelu = t.alloc(4 * z.x);
  }
  keep(k.fc1, fc1);
  const int fc2 = t.alloc(z.x);
  keep(k.gelu, gelu);
  const int mask_2 = z.dropout ? t.alloc(z.mask_x) : -1;
  k.output = t.alloc(z.x, output_is_checkpoint ? TensorKind::checkpoint : TensorKind::activation);
  t.free(fc2);
  if (mask_2 >= 0) keep(k.mask_2, mask_2);
  keep(k.h1, h1);
  return k;
}

// One layer's backward after its recomputed (or kept) forward: each saved tensor freed after its
// use, the activation gradients allocated and freed as the chain rule goes, the engine's
// parameter gradients created along. Takes the gradient of the output, returns the input's.
// Without dropout a dropout's backward is the identity: the gradient passes through unchanged.
int layer_backward(Trace& t, const TransformerShape& s, const LayerSaved& k, int grad_out,
                   const std::vector<double>& gradients) {
  const Sizes z = sizes(s);
  std::size_t next_gradient = 0;
  int previous_gradient = -1;
  auto parameter_gradient = [&] {  // the next gradient tensor of the engine, if any
    if (next_gradient >= gradients.size()) return;
    const int g = t.alloc(gradients[next_gradient++], TensorKind::gradient);
    if (previous_gradient >= 0) t.free(previous_gradient);
    previous_gradient = g;
  };
  auto drop = [&](int id) {
    if (id >= 0) t.free(id);
  };
  // A dropout's backward: a new tensor (grad x mask), or the incoming gradient itself.
  auto dropout_backward = [&](int mask) {
    if (!z.dropout) return -1;
    const int g = t.alloc(z.x);
    drop(mask);
    return g;
  };
  const int g_fc2_own = dropout_backward(k.mask_2);
  const int g_gelu = t.alloc(4 * z.x);  // FC2 backward
  parameter_gradient();
  drop(g_fc2_own);
  drop(k.gelu);
  int g_fc1 = -1;
  if (z.unfused_gelu) {
    // Autograd's order (last operation first): the product's two gradients, tanh's backward,
    // the scaling by c; the sum passes its gradient to x (the first of x's three) and to
    // 0.044715·x³; x³'s backward (x², 3x², g·3x²) is accumulated into x's gradient in place;
    // then the half's gradient (0.5·g), accumulated the same way.
    const int g_half = t.alloc(4 * z.x);      // g·(1 + tanh)
    const int g_one_plus = t.alloc(4 * z.x);  // g·0.5x
    t.free(g_gelu);
    drop(k.gelu_half);
    drop(k.gelu_one_plus);
    const int g_inner = t.alloc(4 * z.x);  // tanh backward
    t.free(g_one_plus);
    drop(k.gelu_tanh);
    g_fc1 = t.alloc(4 * z.x);  // c·g: x's first gradient
    t.free(g_inner);
    const int g_cube = t.alloc(4 * z.x);  // 0.044715·g
    const int square = t.alloc(4 * z.x);  // x²
    const int thrice = t.alloc(4 * z.x);  // 3x²
    t.free(square);
    const int g_x_cube = t.alloc(4 * z.x);  // g·3x²
    t.free(thrice);
    t.free(g_cube);
    t.free(g_x_cube);  // accumulated into g_fc1
    const int g_x_half = t.alloc(4 * z.x);  // 0.5·g
    t.free(g_half);
    t.free(g_x_half);  // accumulated into g_fc1
  } else {
    g_fc1 = t.alloc(4 * z.x);  // GeLU backward
    t.free(g_gelu);
  }
  drop(k.fc1);
  const int g_ln2 = t.alloc(z.x);  // FC1 backward
  parameter_gradient();
  t.free(g_fc1);
  drop(k.ln2);
  const int g_h1 = t.alloc(z.x);  // LayerNorm 2 backward plus the residual
  t.free(g_ln2);
  t.free(grad_out);
  drop(k.h1);
  const int g_attn_own = dropout_backward(k.mask_1);
  const int g_ctx = t.alloc(z.x);  // output projection backward
  parameter_gradient();
  drop(g_attn_own);
  int g_qkv = -1;
  if (z.flash) {
    g_qkv = t.alloc(3 * z.x);  // FlashAttention-2 backward writes dQ, dK, dV
    const int accum = t.alloc(z.dq_accum);
    t.free(accum);
    t.free(g_ctx);
    drop(k.lse);
    drop(k.ctx);
  } else {
    drop(k.ctx);
    const int g_probs_d = t.alloc(z.a);  // attention over values backward
    g_qkv = t.alloc(3 * z.x);
    t.free(g_ctx);
    int g_probs = g_probs_d;
    if (z.dropout) {
      drop(k.probs_d);
      g_probs = t.alloc(z.a);  // dropout backward
      t.free(g_probs_d);
      drop(k.mask_a);
    }
    const int g_scores = t.alloc(z.a);  // softmax backward
    t.free(g_probs);
    drop(k.probs);
    t.free(g_scores);  // QKᵀ backward writes into g_qkv
  }
  drop(k.qkv);
  const int g_ln1 = t.alloc(z.x);  // QKV projection backward
  parameter_gradient();
  t.free(g_qkv);
  drop(k.ln1);
  const int g_x = t.alloc(z.x);  // LayerNorm 1 backward plus the residual
  t.free(g_ln1);
  t.free(g_h1);
  while (next_gradient < gradients.size()) parameter_gradient();
  if (previous_gradient >= 0) t.free(previous_gradient);
  return g_x;
}

// The final LayerNorm, the logits and the loss, then the loss's backward
// (training.cross_entropy):
//   megatron-fp32  the 16-bit logits cast to fp32, which the loss keeps (softmax in place; the
//                  16-bit copy is freed), then the 16-bit gradient (Megatron's
//                  _VocabParallelCrossEntropy);
//   torch          log_softmax keeps its 16-bit output; backward: nll_loss's dense gradient,
//                  then the logits' (torch.nn.functional.cross_entropy);
//   fused          the kernel keeps the logits and a log-sum-exp per token (fp32); backward
//                  writes the logits' gradient (flash-attn's cross_entropy.py).
// For torch and fused the logits are the model's output, which the training loop holds until
// the backward ends (Composer's state.outputs, a Hugging Face ModelOutput). Returns the
// gradient into the last layer and what the caller frees when the backward ends.
struct LossEnd {
  int grad = -1;
  int held_logits = -1;
  int held_gradient = -1;
};

LossEnd loss(Trace& t, const TransformerShape& s, double held) {
  const double w = s.word_bytes();
  const double x = s.sequence * s.micro_batch * s.hidden * w;
  const double tokens = s.micro_batch * s.sequence;
  const double logits = tokens * s.vocabulary;
  LossEnd out;
  const int ln = t.alloc(x);
  int kept = -1;  // what the loss keeps for its backward besides held logits
  switch (s.cross_entropy) {
    case CrossEntropyKind::megatron_fp32: {
      const int half = t.alloc(logits * w);
      kept = t.alloc(logits * 4);
      t.free(half);
      break;
    }
    case CrossEntropyKind::torch:
      out.held_logits = t.alloc(logits * w);
      kept = t.alloc(logits * w);
      break;
    case CrossEntropyKind::fused:
      out.held_logits = t.alloc(logits * w);
      kept = t.alloc(tokens * 4);
      break;
  }
  t.enter_backward();
  int g_logits = -1;
  if (s.cross_entropy == CrossEntropyKind::torch) {
    const int g_nll = t.alloc(logits * w);  // nll_loss backward: dense
    g_logits = t.alloc(logits * w);
    t.free(g_nll);
  } else {
    g_logits = t.alloc(logits * w);
  }
  t.free(kept);
  out.grad = t.alloc(x);
  out.held_gradient = held > 0 ? t.alloc(held, TensorKind::gradient) : -1;
  t.free(g_logits);
  t.free(ln);
  return out;
}

void iteration(Trace& t, const TransformerShape& s, const std::vector<double>& gradients, double held) {
  const double w = s.word_bytes();
  const double x = s.sequence * s.micro_batch * s.hidden * w;
  std::vector<int> inputs{t.alloc(x, s.recompute ? TensorKind::checkpoint : TensorKind::activation)};  // the embedding's output
  std::vector<LayerSaved> kept;
  for (int k = 0; k < s.layers; ++k) {
    LayerSaved saved = layer_forward(t, s, !s.recompute, s.recompute);
    inputs.push_back(saved.output);
    if (!s.recompute) kept.push_back(saved);
  }
  const LossEnd end = loss(t, s, held);
  int grad = end.grad;
  for (int k = s.layers - 1; k >= 0; --k) {
    const LayerSaved saved = s.recompute ? layer_forward(t, s, true, false) : kept[static_cast<std::size_t>(k)];
    t.free(inputs[static_cast<std::size_t>(k) + 1]);
    grad = layer_backward(t, s, saved, grad, gradients);
    if (s.recompute) t.free(saved.output);  // the recomputed output, held until the layer's backward ends
  }
  t.free(inputs.front());
  t.free(grad);
  if (end.held_gradient >= 0) t.free(end.held_gradient);
  if (end.held_logits >= 0) t.free(end.held_logits);
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
