#pragma once
// Eq. 1 of GEMINI (SOSP '23, §2) for one failure, by the tier it recovers from: the wasted time
// t_ckpt + 1/(2f) + t_rtvl with this strategy's costs (run/strategy_costs.hpp), in seconds.
//
//   from the checkpoint track (memory tier: local or peer; storage tier: storage)
//     t_ckpt = completion, 1/f = k T + S (one checkpoint block), t_rtvl = that tier's retrieval;
//   memory tier falling back to storage (the persistent track, every kp iterations)
//     t_ckpt = U (upload), 1/f = kp T, t_rtvl = retrieval_storage.
// A tier the strategy cannot recover from is absent (no persistent track: the fallback is the
// initial state). Multi-level checkpointing has its own per-level closed form
// (analysis/multi_level_model.hpp), per-step fault tolerance and just-in-time checkpoints theirs
// (analysis/per_step_model.hpp, just_in_time_model.hpp): none of these.
// `ckptsim analyze --json` writes them as closed_form.eq1_by_tier_s; scripts/reproduce_paper.py
// (Fig. 10) reads them there instead of recomputing Eq. 1.
#include <algorithm>
#include <optional>

#include "ckptsim/run/strategy_costs.hpp"

namespace ckptsim {

struct Eq1ByTier {
  std::optional<double> local;
  std::optional<double> peer;
  std::optional<double> storage;
};

inline Eq1ByTier eq1_by_tier(const StrategyCosts& c) {
  Eq1ByTier out;
  const double t = c.iteration_time.seconds();
  const double k = static_cast<double>(std::max<std::int64_t>(1, c.every_iterations));
  const double track = c.completion.seconds() + 0.5 * (k * t + c.stall.seconds());
  switch (c.tier) {
    case CheckpointTier::none:
    case CheckpointTier::multi_level:
    case CheckpointTier::per_step:       // no rollback: a group heals from a live one
    case CheckpointTier::islands:        // an island loses its own round only
    case CheckpointTier::just_in_time: return out;  // the survivors' save, not a periodic track
    case CheckpointTier::storage: out.storage = track + c.retrieval_storage.seconds(); return out;
    case CheckpointTier::shadow: out.peer = track + c.retrieval_peer.seconds(); return out;
    case CheckpointTier::memory:
      out.local = track + c.retrieval_local.seconds();
      out.peer = track + c.retrieval_peer.seconds();
      if (c.persistent_every_iterations > 0)
        out.storage = c.upload.seconds() + 0.5 * static_cast<double>(c.persistent_every_iterations) * t +
                      c.retrieval_storage.seconds();
      return out;
  }
  return out;
}

}  // namespace ckptsim
