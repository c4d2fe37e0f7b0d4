#include "ckptsim/checkpoint/partition.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "ckptsim/core/error.hpp"

namespace ckptsim {

namespace {

// Whole nanoseconds of f(s), rounded up so that a span is never over-filled.
SimTime cost(double bytes, double bandwidth, SimTime alpha) { return alpha + transfer_time(bytes, bandwidth); }

}  // namespace

Partition partition_checkpoint(const PartitionInput& in) {
  if (in.bandwidth <= 0) throw ModelError("/cluster/network_bandwidth", "the checkpoint partition needs a positive bandwidth");
  if (!(in.mu > 0 && in.mu <= 1)) throw ModelError("/strategy/span_safety", "the span safety factor must be in (0, 1]");
  if (!(in.chunk_bytes > 0)) throw ModelError("/strategy/gpu_buffer", "the checkpoint chunk size must be positive");
  Partition out;
  if (in.copies <= 0 || in.shard_bytes <= 0) return out;
  int copy = 0;
  double remaining = in.shard_bytes;
  double largest = 0;
  const int d = static_cast<int>(in.spans.size());
  auto advance = [&](double s) {
    remaining -= s;
    if (remaining <= in.shard_bytes * 1e-12) {
      ++copy;
      remaining = in.shard_bytes;
    }
  };
  for (int k = 0; k < d && copy < in.copies; ++k) {
    const SimTime usable = SimTime::from_ns(static_cast<std::int64_t>(std::floor(in.mu * static_cast<double>(in.spans[static_cast<std::size_t>(k)].ns()))));
    SimTime used;
    while (copy < in.copies) {
      const SimTime avail = usable - used;
      double s = 0;
      if (std::isfinite(in.chunk_bytes) && cost(in.chunk_bytes, in.bandwidth, in.alpha) <= avail) {
        s = std::min(in.chunk_bytes, remaining);
      } else {
        // Largest s with alpha + ceil(s/B in ns) <= avail: s = (avail - alpha)·B, whole bytes.
        s = std::floor((avail - in.alpha).seconds() * in.bandwidth);
        s = std::min({s, remaining, in.chunk_bytes});
        if (s < 1.0) break;
        while (s >= 1.0 && cost(s, in.bandwidth, in.alpha) > avail) s = std::floor(s - 1.0);
        if (s < 1.0) break;
      }
      out.chunks.push_back({copy, k, used, s});
      largest = std::max(largest, s);
      used += cost(s, in.bandwidth, in.alpha);
      advance(s);
      if (in.one_chunk_per_span) break;
    }
  }
  // Leftover after the last span, chunks of K (naive: of the largest chunk placed so far).
  double k_left = std::isfinite(in.chunk_bytes) ? in.chunk_bytes : (largest > 0 ? largest : in.shard_bytes);
  SimTime offset;
  while (copy < in.copies) {
    const double s = std::min(k_left, remaining);
    out.chunks.push_back({copy, d, offset, s});
    offset += cost(s, in.bandwidth, in.alpha);
    out.leftover_bytes += s;
    advance(s);
  }
  out.leftover_time = offset;
  return out;
}

}  // namespace ckptsim
