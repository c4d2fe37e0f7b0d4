#pragma once
// PyTorch's CUDA caching allocator, modelled on its rules, and the memory it holds beyond the
// live tensors when an iteration's activations go through it — the fragmentation that ZeRO
// (Rajbhandari et al., SC '20, Section 3.2 and 6.3) attributes to long-lived activation
// checkpoints and parameter gradients interleaved with short-lived activations and their
// gradients ("out of memory with over 30% of memory still available" in extreme cases).
//
// Rules (c10/cuda/CUDACachingAllocator.cpp, PyTorch 2.x; the defaults, no PYTORCH_CUDA_ALLOC_CONF):
//   - a request rounds up to a multiple of 512 B (kMinBlockSize);
//   - requests of at most 1 MiB (kSmallSize) use the small pool, 2 MiB segments (kSmallBuffer);
//     larger ones the large pool: a segment of 20 MiB (kLargeBuffer) below 10 MiB
//     (kMinLargeAlloc), else the request rounded up to 2 MiB (kRoundLarge);
//   - a request takes the smallest free cached block of its pool that fits (best fit; the
//     lowest address among equal sizes), split when what remains is at least 512 B (small
//     pool) or more than 1 MiB (large pool);
//   - a freed block merges with the free blocks beside it in its segment; blocks never move;
//   - a new segment is allocated only when no cached block fits; when the device has no room,
//     every cached segment that is entirely free is returned (release_cached_blocks) first.
// This model always returns entirely free segments before it allocates a new one — the
// allocator running at the edge of its memory — so the peak it reserves is the least memory
// the allocation sequence runs in. One stream (the compute stream) and one pool pair.
// Sizes in bytes (exact integers). Complexity: O(log B) per request for B cached blocks (a free
// set ordered like the allocator's), plus O(S) over the S segments when a new one is needed.
#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "ckptsim/workload/transformer.hpp"

namespace ckptsim {

inline constexpr std::int64_t kAllocatorMinBlock = 512;
inline constexpr std::int64_t kAllocatorSmallSize = 1 << 20;
inline constexpr std::int64_t kAllocatorSmallBuffer = 2 << 20;
inline constexpr std::int64_t kAllocatorLargeBuffer = 20 << 20;
inline constexpr std::int64_t kAllocatorMinLargeAlloc = 10 << 20;
inline constexpr std::int64_t kAllocatorRoundLarge = 2 << 20;

/// Whole bytes of a tensor of `bytes` (rounded); throws ModelError (pointer "/model") for a size
/// beyond 2^60 B or not finite, which no GPU holds and int64 sums would overflow.
std::int64_t allocator_bytes(double bytes);

class CachingAllocator {
 public:
  /// Returns a handle for release().
  std::size_t allocate(std::int64_t bytes);
  void release(std::size_t handle);

  [[nodiscard]] std::int64_t reserved() const { return reserved_; }
  [[nodiscard]] std::int64_t allocated() const { return allocated_; }
  [[nodiscard]] std::int64_t peak_reserved() const { return peak_reserved_; }
  [[nodiscard]] std::int64_t peak_allocated() const { return peak_allocated_; }
  [[nodiscard]] std::size_t segments() const;

  static std::int64_t round_size(std::int64_t bytes);
  static std::int64_t segment_size(std::int64_t rounded);

 private:
  struct Block {
    std::int64_t size = 0;
    bool free = true;
  };
  struct Segment {
    std::int64_t base = 0;  ///< virtual address (order of creation)
    std::int64_t size = 0;
    bool small = false;
    bool alive = true;
    std::map<std::int64_t, Block> blocks;  ///< by offset, covering the segment
  };
  /// A free block, ordered as the allocator's BlockComparator: pool, size, address.
  struct FreeKey {
    bool small;
    std::int64_t size;
    std::int64_t address;
    std::size_t segment;
    std::int64_t offset;
    bool operator<(const FreeKey& o) const {
      return std::tie(small, size, address) < std::tie(o.small, o.size, o.address);
    }
  };
  struct Handle {
    std::size_t segment = 0;
    std::int64_t offset = 0;
    std::int64_t size = 0;
    bool live = false;
  };
  void release_free_segments();
  void mark_free(std::size_t segment, std::int64_t offset, std::int64_t size);
  void unmark_free(std::size_t segment, std::int64_t offset, std::int64_t size);

  std::vector<Segment> segments_;
  std::set<FreeKey> free_;
  std::vector<Handle> handles_;
  std::int64_t next_base_ = 0;
  std::int64_t reserved_ = 0;
  std::int64_t allocated_ = 0;
  std::int64_t peak_reserved_ = 0;
  std::int64_t peak_allocated_ = 0;
};

/// What a compute-stream tensor of the activation trace is.
enum class TensorKind { checkpoint, activation, gradient };

/// One allocation or free of the compute stream, in host order: `bytes` > 0 allocates tensor
/// `id`, `bytes` == 0 frees it. `backward`: the event belongs to the backward phase.
struct AllocatorEvent {
  int id = 0;
  std::int64_t bytes = 0;
  TensorKind kind = TensorKind::activation;
  bool backward = false;
};

/// Per phase (0 = forward and loss, 1 = backward): the peak of the live activations besides
/// the checkpoints and the engine's gradients, and the allocator's overhead (peak reserved -
/// peak allocated), in the second of two iterations (the steady state).
struct ActivationMemory {
  std::array<double, 2> activations{};
  std::array<double, 2> overhead{};
};

/// The compute stream's activations of one iteration (per layer, the tensors of Korthikanti et
/// al., MLSys '23, Section 4.1, in the order Megatron's GPT layer creates and frees them; with
/// training.attention "flash" no a·s²·b tensor, the kernel keeping its output and a fp32
/// log-sum-exp per head and token instead, and its backward a fp32 dQ accumulator (FlashAttention-2,
/// flash_attn_interface.py and flash_bwd_launch_template.h); with model.dropout 0 no dropout
/// mask or output; with recomputation a no-grad forward keeping only each layer's output, and
/// the layer recomputed before its backward), the logits and the loss's tensors as
/// training.cross_entropy keeps them, and the parameter gradients an engine's
/// backward creates per layer (`layer_gradients`, bytes, in creation order; each freed once
/// the next one exists, as DeepSpeed and FSDP copy them out), and `held_gradient` bytes from the
/// loss's backward to the end (the tied embedding's gradient).
std::vector<AllocatorEvent> activation_events(const TransformerShape& shape, const std::vector<double>& layer_gradients,
                                              double held_gradient = 0);

/// activation_events replayed twice through the CachingAllocator.
ActivationMemory activation_memory(const TransformerShape& shape, const std::vector<double>& layer_gradients,
                                   double held_gradient = 0);

}  // namespace ckptsim
