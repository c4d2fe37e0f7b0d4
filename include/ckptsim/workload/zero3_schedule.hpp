#pragma once
// Zero3Schedule: which parameters DeepSpeed ZeRO-3 gathers, keeps and releases at each step of
// an iteration, and how it buckets gradients for reduce-scatter; decided from the order of
// submodule uses alone, with no clock (DeepSpeed 0.7.3: deepspeed/runtime/zero/
// partitioned_param_coordinator.py and stage3.py, https://github.com/microsoft/DeepSpeed/tree/v0.7.3).
//
// A use j is one submodule's forward, recomputed forward or backward: it needs the module's
// parameters gathered. Parameters of at most `param_persistence_threshold` elements are
// persistent (always gathered; never fetched). At step j, as DeepSpeed's fetch_sub_module:
//   1. if module(j) is not gathered: gather it now (a group of its own), live += its numel;
//   2. prefetch: walk the trace after the last use already looked at, taking every module not
//      gathered, until the group's numel reaches min(prefetch_bucket_size,
//      max_live_parameters - live); one coalesced all-gather for the group, live += numel;
//   3. after use j, release module(j) unless it is used again within max_reuse_distance
//      elements: walking uses j+1, j+2, ..., module(j) stays if met before the elements of
//      the uses passed reach max_reuse_distance; a release does live -= its numel.
// Gradients (stage3.py __add_grad_to_ipg_bucket): a use that produces a module's gradient of
// g elements first flushes the bucket when bucket + g > reduce_bucket_size (and the bucket is
// not empty) — one reduce-scatter of the bucket, issued after this use — then adds g; the
// rest is flushed after the last use.
// Complexity: O(uses x reuse look-ahead), the look-ahead bounded by max_reuse_distance.
#include <vector>

namespace ckptsim {

struct Zero3Knobs {
  double prefetch_bucket_size = 5e7;
  double param_persistence_threshold = 1e5;
  double max_live_parameters = 1e9;
  double max_reuse_distance = 1e9;
  double reduce_bucket_size = 5e8;
};

/// One submodule: the element counts of its parameter tensors.
struct SubModule {
  std::vector<double> tensors;
  /// Elements not persistent (gathered on use) under `threshold`.
  [[nodiscard]] double fetched(double threshold) const;
  [[nodiscard]] double total() const;
};

struct ModuleUse {
  int module = 0;
  double gradient = 0;  ///< elements of gradient this use completes (0: none)
};

struct GatherGroup {
  int step = 0;               ///< issued when the host reaches this use
  double elements = 0;
  std::vector<int> modules;
};

struct ReduceBucket {
  int after_use = 0;          ///< issued after this use's compute
  double elements = 0;
};

struct Zero3Schedule {
  std::vector<GatherGroup> gathers;      ///< in issue order (one all-gather stream)
  std::vector<int> waits_on;             ///< per use: the gather group it needs (-1: none)
  std::vector<ReduceBucket> buckets;     ///< in issue order (one reduce-scatter stream)
  double peak_live = 0;                  ///< most elements gathered at once (non-persistent)
};

Zero3Schedule plan_zero3(const std::vector<SubModule>& modules, const std::vector<ModuleUse>& uses, const Zero3Knobs& knobs);

}  // namespace ckptsim
