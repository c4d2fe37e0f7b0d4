// The caching-allocator model (workload/caching_allocator.hpp): PyTorch's rounding, pools,
// best fit, splitting and merging, each on a sequence worked by hand; and the activation trace.
#include <doctest/doctest.h>

#include "ckptsim/workload/caching_allocator.hpp"

using namespace ckptsim;

namespace {
constexpr std::int64_t MiB = 1 << 20;
}

TEST_CASE("request rounding and segment sizes follow the allocator's constants") {
  // Requests round up to 512 B; a segment is 2 MiB up to 1 MiB, 20 MiB below 10 MiB, else the
  // request rounded up to 2 MiB.
  CHECK(CachingAllocator::round_size(1) == 512);
  CHECK(CachingAllocator::round_size(512) == 512);
  CHECK(CachingAllocator::round_size(513) == 1024);
  CHECK(CachingAllocator::segment_size(MiB) == 2 * MiB);
  CHECK(CachingAllocator::segment_size(MiB + 512) == 20 * MiB);
  CHECK(CachingAllocator::segment_size(10 * MiB - 512) == 20 * MiB);
  CHECK(CachingAllocator::segment_size(10 * MiB) == 10 * MiB);
  CHECK(CachingAllocator::segment_size(11 * MiB) == 12 * MiB);
}

TEST_CASE("best fit splits a cached block; a request larger than every hole needs a new segment") {
  // 100 MiB allocated then freed: one cached 100 MiB segment. 60 MiB takes it and splits
  // (40 MiB left > 1 MiB). 50 MiB fits in no free block (40): the segment is not entirely free,
  // so nothing is released and a 50 MiB segment is added: 150 MiB reserved for 110 MiB live —
  // the 40 MiB hole is fragmentation.
  CachingAllocator a;
  a.release(a.allocate(100 * MiB));
  CHECK(a.reserved() == 100 * MiB);
  a.allocate(60 * MiB);
  CHECK(a.reserved() == 100 * MiB);
  a.allocate(50 * MiB);
  CHECK(a.reserved() == 150 * MiB);
  CHECK(a.allocated() == 110 * MiB);
  CHECK(a.reserved() - a.allocated() == 40 * MiB);
}

TEST_CASE("a large block is not split when at most 1 MiB would remain") {
  // 99 MiB from a cached 100 MiB block leaves exactly 1 MiB, not more than kSmallSize: the whole
  // block is handed out (100 MiB allocated).
  CachingAllocator a;
  a.release(a.allocate(100 * MiB));
  a.allocate(99 * MiB);
  CHECK(a.allocated() == 100 * MiB);
  // Small pool: 1000 B requests (1024 B) share one 2 MiB segment.
  a.allocate(1000);
  a.allocate(1000);
  CHECK(a.reserved() == 100 * MiB + 2 * MiB);
  CHECK(a.allocated() == 100 * MiB + 2048);
}

TEST_CASE("freed neighbours merge; entirely free segments are returned before a new one") {
  // A cached 60 MiB segment carved into a, b, c of 20 MiB. Freeing a and c leaves two 20 MiB
  // holes: 40 MiB needs a new segment (100 MiB reserved). Freeing b merges a, b and c into one
  // free 60 MiB block, which then takes a 60 MiB request without a new segment. Finally 200 MiB:
  // no block fits; the 40 MiB segment is freed first and returned, the 60 MiB one is in use:
  // 60 + 200 = 260 MiB reserved.
  CachingAllocator a;
  a.release(a.allocate(60 * MiB));
  const std::size_t x = a.allocate(20 * MiB);
  const std::size_t y = a.allocate(20 * MiB);
  const std::size_t z = a.allocate(20 * MiB);
  a.release(x);
  a.release(z);
  const std::size_t forty = a.allocate(40 * MiB);
  CHECK(a.reserved() == 100 * MiB);
  a.release(y);
  a.allocate(60 * MiB);
  CHECK(a.reserved() == 100 * MiB);
  a.release(forty);
  a.allocate(200 * MiB);
  CHECK(a.reserved() == 260 * MiB);
  CHECK(a.segments() == 2);
}

TEST_CASE("the activation trace frees what it allocates and holds one layer's tensors in backward") {
  // GPT-2-like layer, s = 512, b = 8, h = 1024, a = 16, 16-bit: Korthikanti's stored tensors of
  // one layer are 34·s·b·h + 5·a·s²·b = 34 x 4,194,304 + 5 x 33,554,432 = 310,378,496 B, all live
  // at the start of that layer's backward besides the checkpoints (with recomputation).
  TransformerShape s;
  s.layers = 4;
  s.hidden = 1024;
  s.ffn = 4096;
  s.heads = 16;
  s.vocabulary = 1000;
  s.sequence = 512;
  s.micro_batch = 8;
  const auto events = activation_events(s, {});
  std::int64_t live = 0;
  for (const AllocatorEvent& e : events) live += e.bytes > 0 ? 1 : -1;
  CHECK(live == 0);
  const ActivationMemory m = activation_memory(s, {});
  CHECK(m.activations[1] >= 310378496.0);
  CHECK(m.overhead[1] >= 0);
  // Without recomputation every layer's tensors are kept through the forward: at least 4 x.
  s.recompute = false;
  CHECK(activation_memory(s, {}).activations[0] >= 4 * 310378496.0);
}

namespace {
TransformerShape four_layers() {
  TransformerShape s;
  s.layers = 4;
  s.hidden = 1024;
  s.ffn = 4096;
  s.heads = 16;
  s.vocabulary = 1000;
  s.sequence = 512;
  s.micro_batch = 8;
  s.recompute = false;
  return s;
}
}  // namespace

TEST_CASE("FlashAttention without dropout keeps no s² tensor: the forward peak by hand") {
  // s = 512, b = 8, h = 1024, a = 16, V = 1000, 16-bit, no recomputation, fused cross entropy.
  // X = s·b·h·2 = 8,388,608 B. Each layer keeps LayerNorm 1 (X), QKV (3X), the attention output
  // (X) and its log-sum-exp (4·b·a·s = 262,144 B), LayerNorm 2 (X), FC1 (4X), GeLU (4X), the
  // first residual (X) and its output (X, the next layer's input): 16X + 262,144 = 134,479,872 B;
  // no mask, no dropout output, no scores. The forward ends with the loss holding: the embedding
  // output (X), 4 layers (537,919,488), the final LayerNorm (X), the logits (b·s·V·2 =
  // 8,192,000) and their log-sum-exp (4·b·s = 16,384): 562,905,088 B, the phase's peak (no
  // transient inside a layer exceeds the 16.6 MB the loss adds at the end).
  TransformerShape s = four_layers();
  s.attention = AttentionKind::flash;
  s.dropout = 0;
  s.cross_entropy = CrossEntropyKind::fused;
  CHECK(activation_memory(s, {}).activations[0] == 562905088.0);
}

TEST_CASE("unfused attention without dropout: 32·s·b·h + 2·a·s²·b per layer (Korthikanti's 34 and 5 less the masks)") {
  // Without dropout the attention-probability mask (a·s²·b), the dropout's output (2·a·s²·b) and
  // the two residual masks (s·b·h each) are never made. Per layer: 15X + the probabilities
  // (A = a·s²·b·2 = 67,108,864) + the output X = 201,326,592 B; four layers 805,306,368, plus the
  // embedding output, the final LayerNorm and the fused loss's 8,208,384: 830,291,968 B.
  TransformerShape s = four_layers();
  s.dropout = 0;
  s.cross_entropy = CrossEntropyKind::fused;
  CHECK(activation_memory(s, {}).activations[0] == 830291968.0);
  // With dropout 0.1 each layer keeps Korthikanti's 34·s·b·h + 5·a·s²·b = 310,378,496 B (the
  // output included): 4 of them + 8,388,608 + 8,388,608 + 8,208,384 = 1,266,499,584 B.
  s.dropout = 0.1;
  CHECK(activation_memory(s, {}).activations[0] == 1266499584.0);
}

TEST_CASE("the loss's tensors at the end of the forward, per cross-entropy kind") {
  // Same model without dropout (830,291,968 B with the fused loss's logits + log-sum-exp,
  // 8,208,384 B). PyTorch's cross_entropy keeps the logits and the log-softmax output (2 x
  // 8,192,000); Megatron's keeps the 16-bit logits and their fp32 copy at once before freeing
  // the 16-bit one (8,192,000 x 3 = 24,576,000).
  TransformerShape s = four_layers();
  s.dropout = 0;
  const double rest = 830291968.0 - 8208384.0;
  s.cross_entropy = CrossEntropyKind::torch;
  CHECK(activation_memory(s, {}).activations[0] == rest + 16384000.0);
  s.cross_entropy = CrossEntropyKind::megatron_fp32;
  CHECK(activation_memory(s, {}).activations[0] == rest + 24576000.0);
  // The backward's peak, with a vocabulary of 100,000 so that the loss dominates: the logits
  // are L = b·s·V = 409,600,000 elements, Lw = 819,200,000 B; the rest of the forward (822,083,584
  // B above) stays live. PyTorch's: logits, log-softmax, nll's dense gradient and the logits'
  // gradient at once, rest + 4Lw = 4,098,883,584 B. Fused: the logits and their gradient, then the
  // gradient into the last layer (X) before the logits' gradient is freed: rest + 2Lw + X =
  // 2,468,872,192 B. Megatron's: the fp32 copy and the 16-bit gradient, rest + L(4 + 2) =
  // 3,279,683,584 B.
  s.vocabulary = 100000;
  s.cross_entropy = CrossEntropyKind::torch;
  CHECK(activation_memory(s, {}).activations[1] == 4098883584.0);
  s.cross_entropy = CrossEntropyKind::fused;
  CHECK(activation_memory(s, {}).activations[1] == 2468872192.0);
  s.cross_entropy = CrossEntropyKind::megatron_fp32;
  CHECK(activation_memory(s, {}).activations[1] == 3279683584.0);
}

TEST_CASE("Hugging Face's unfused GeLU keeps three more FFN-wide tensors per layer") {
  // The unfused-attention case above without dropout (830,291,968 B at the end of the forward
  // with the fused GeLU). NewGELUActivation keeps 0.5x, tanh(...) and 1 + tanh(...) besides its
  // input and output: 3 x 4X = 12 x 8,388,608 = 100,663,296 B more per layer, 402,653,184 B for
  // four; its transients (x³ and the sums feeding tanh, at most 2 x 4X beside 0.5x) never reach
  // what the layer keeps once the GeLU is done, so the forward's peak is still at its end:
  // 1,232,945,152 B.
  TransformerShape s = four_layers();
  s.dropout = 0;
  s.cross_entropy = CrossEntropyKind::fused;
  s.gelu = GeluKind::unfused;
  CHECK(activation_memory(s, {}).activations[0] == 1232945152.0);
  // Every tensor the trace allocates is freed, the backward's included.
  std::int64_t live = 0;
  for (const AllocatorEvent& e : activation_events(s, {})) live += e.bytes > 0 ? 1 : -1;
  CHECK(live == 0);
}
