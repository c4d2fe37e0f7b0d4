#pragma once
// Zero3Schedule: which parameters DeepSpeed ZeRO-3 gathers, keeps and releases at each step of
// an iteration; decided from the order of submodule uses alone, with no clock (DeepSpeed
// 0.7.3: deepspeed/runtime/zero/partitioned_param_coordinator.py,
// https://github.com/microsoft/DeepSpeed/blob/v0.7.3/deepspeed/runtime/zero/partitioned_param_coordinator.py).
//
// A use j is one submodule's forward, recomputed forward or backward: it needs the module's
// parameters gathered. Parameters below `param_persistence_threshold` elements are persistent
// (always gathered; never fetched). At step j, as fetch_sub_module (lines 237-352) does:
//   1. if module(j) is not gathered: gather it now (a group of its own, `on_demand`),
//      live += its numel (__all_gather_params, lines 386-401);
//   2. the use waits for its module: the first use after the module's gather takes its
//      tensors out of the in-flight registry (`first_wait`; lines 259-275);
//   3. prefetch, only with a complete trace (`if self.is_complete_trace()`, line 282): walk the
//      trace after the last use already looked at, taking every module not gathered, until the
//      group's numel reaches min(prefetch_bucket_size, max_live_parameters - live) (lines
//      317-347); one coalesced all-gather for the group, live += numel;
//   4. after use j, release module(j) (release_sub_module, lines 356-366): with a complete
//      trace unless it is used again within max_reuse_distance elements (walking uses j+1,
//      j+2, ..., module(j) stays if met before the elements of the uses passed reach
//      max_reuse_distance; __params_to_release, lines 422-453), nor while a later use the
//      prefetcher skipped because the module was gathered is still ahead (lines 337-339 record
//      it, lines 431-440 keep the module); without a complete trace
//      always (`set(p.ds_id for p in iter_params(submodule))`, lines 359-362), so the
//      recomputed forward and the backward gather every module again. A release does
//      live -= its numel.
// The trace is complete from the step after the one that recorded it (reset_step, lines
// 189-202) for as long as every step runs the submodules in the recorded order; a step that
// deviates invalidates it (trace_prologue, lines 144-153), and the next step records again.
// Complexity: O(uses), with an O(1) reuse test from prefix sums.
#include <vector>

namespace ckptsim {

struct Zero3Knobs {
  double prefetch_bucket_size = 5e7;
  double param_persistence_threshold = 1e5;
  double max_live_parameters = 1e9;
  double max_reuse_distance = 1e9;
  bool complete_trace = true;  ///< the coordinator's trace state: complete, or record / invalid
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
  bool on_demand = false;     ///< step 1 (the use's own module) rather than a prefetch
  double elements = 0;
  std::vector<int> modules;
};

struct Zero3Schedule {
  std::vector<GatherGroup> gathers;      ///< in issue order
  std::vector<int> waits_on;             ///< per use: the gather group it needs (-1: none)
  std::vector<char> first_wait;          ///< per use: it takes its module out of the in-flight registry
  std::vector<char> releases;            ///< per use: its module is released after it
  double peak_live = 0;                  ///< most elements gathered at once (non-persistent)
};

Zero3Schedule plan_zero3(const std::vector<SubModule>& modules, const std::vector<ModuleUse>& uses, const Zero3Knobs& knobs);

}  // namespace ckptsim
